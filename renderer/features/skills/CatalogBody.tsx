import type { RefObject } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { SkillListItem } from '../../../electron/contract/skills.js';
import { useConnectionStatus, useSkillsStore, useStores } from '../../stores.js';
import { KIND_LABELS } from '../../ui/badges.js';
import { Icon } from '../../ui/Icon.js';
import { SkillList } from './SkillList.js';
import { matchReason } from './skills-store.js';

/** The catalog's list, or why there is none: not loaded (with a retry), offline, empty, filtered out. */
export function CatalogBody(props: {
  rows: SkillListItem[];
  searchRef: RefObject<HTMLInputElement | null>;
  onImport: () => void;
}) {
  const s = useSkillsStore(
    useShallow((st) => ({
      list: st.list,
      query: st.query,
      kind: st.kind,
      meaning: st.meaning,
      cursor: st.cursor,
      open: st.open,
      load: st.load,
      openSkill: st.openSkill,
      setQuery: st.setQuery,
      setScope: st.setScope,
      setKind: st.setKind,
      setSource: st.setSource,
    })),
  );
  const connection = useConnectionStatus();
  const stores = useStores();
  const { rows } = props;
  if (s.list.status === 'error' && s.list.error) {
    return (
      <div className="callout callout--error list-message" role="alert">
        <Icon name="alert" />
        <div>
          <strong>The catalog could not be loaded.</strong>
          <p>{s.list.error.message}</p>
          <button type="button" className="btn btn--small" onClick={() => void s.load()}>
            Try again
          </button>
        </div>
      </div>
    );
  }
  if (s.list.status !== 'ready') {
    // Offline, the request waits for the connection: say so instead of shimmering forever.
    if (connection !== 'open')
      return (
        <p className="list-waiting" role="status">
          <span className="spinner" aria-hidden="true" /> Skills will load when SkillDesk is reachable again.
        </p>
      );
    return (
      <div className="skill-list" aria-busy="true">
        {[0, 1, 2, 3].map((i) => (
          <div key={i} className="skeleton skeleton--row" />
        ))}
      </div>
    );
  }
  if (s.list.items.length === 0) {
    return (
      <div className="list-message empty empty--compact catalog-empty">
        <h2 className="empty__title">No skills yet</h2>
        <p className="empty__text">
          A skill teaches SkillDesk one job: instructions, prompts, Python or bundled files that a chat uses
          when your message calls for it.
        </p>
        <p className="empty__text">
          Drop a <span className="mono">.json</span> package, a <span className="mono">.zip</span> or an Agent
          Skills folder (one holding <span className="mono">SKILL.md</span>) anywhere here, or:
        </p>
        <div className="sc-row">
          <button type="button" className="btn btn--primary btn--small" onClick={props.onImport}>
            <Icon name="upload" /> Import
          </button>
          <button
            type="button"
            className="btn btn--small"
            onClick={() => {
              stores.app.getState().navigate('composer');
              stores.composer.getState().askNew();
            }}
          >
            <Icon name="plus" /> Write one
          </button>
        </div>
      </div>
    );
  }
  if (rows.length === 0 && s.query.trim() && s.meaning.status === 'loading') {
    return (
      <p className="list-waiting" role="status">
        <span className="spinner" aria-hidden="true" /> No skill has these words; looking for one close in
        meaning…
      </p>
    );
  }
  if (rows.length === 0) {
    return (
      <div className="list-message empty empty--compact">
        <h2 className="empty__title">Nothing matches “{s.query || KIND_LABELS[s.kind ?? 'description']}”</h2>
        <p className="empty__text">Try fewer words, or clear the filters.</p>
        <button
          type="button"
          className="btn btn--small"
          onClick={() => {
            s.setQuery('');
            s.setScope('all');
            s.setKind(null);
            s.setSource('all');
            props.searchRef.current?.focus();
          }}
        >
          Clear filters
        </button>
        {s.query.trim() && (
          <p className="empty__text">
            No skill for this yet?{' '}
            <button
              type="button"
              className="linkish"
              onClick={() => {
                // The Composer asks first if it holds unsaved edits.
                stores.app.getState().navigate('composer');
                stores.composer.getState().askNew();
              }}
            >
              Write one in the Composer
            </button>
          </p>
        )}
      </div>
    );
  }
  return (
    <SkillList
      items={rows}
      cursor={s.cursor}
      open={s.open}
      onOpen={(k) => void s.openSkill(k)}
      why={(k) => matchReason(s, k)}
    />
  );
}
