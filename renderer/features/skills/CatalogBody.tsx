import type { RefObject } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { SkillListItem } from '../../../electron/contract/skills.js';
import { useConnectionStatus, useSkillsStore, useStores } from '../../stores.js';
import { KIND_LABELS } from '../../ui/badges.js';
import { Icon } from '../../ui/Icon.js';
import { SkillList } from './SkillList.js';

/** The catalog's list, or why there is none: not loaded (with a retry), offline, empty, filtered out. */
export function CatalogBody(props: { rows: SkillListItem[]; searchRef: RefObject<HTMLInputElement | null> }) {
  const s = useSkillsStore(
    useShallow((st) => ({
      list: st.list,
      query: st.query,
      kind: st.kind,
      cursor: st.cursor,
      open: st.open,
      load: st.load,
      openSkill: st.openSkill,
      setQuery: st.setQuery,
      setScope: st.setScope,
      setKind: st.setKind,
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
      <div className="list-message empty empty--compact">
        <h2 className="empty__title">No skills yet</h2>
        <p className="empty__text">
          Drop a <span className="mono">.json</span> skill package here, or press <strong>Import</strong>.
        </p>
      </div>
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
  return <SkillList items={rows} cursor={s.cursor} open={s.open} onOpen={(k) => void s.openSkill(k)} />;
}
