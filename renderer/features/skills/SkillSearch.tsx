import type { RefObject } from 'react';
import { useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ArtifactKindName } from '../../../electron/contract/skills.js';
import { useSkillsStore } from '../../stores.js';
import { Kbd, KIND_LABELS } from '../../ui/badges.js';
import { Icon } from '../../ui/Icon.js';
import { rowId } from './SkillList.js';
import type { ScopeFilter } from './skills-store.js';

const SCOPES: Array<{ value: ScopeFilter; label: string }> = [
  { value: 'all', label: 'All' },
  { value: 'account', label: 'Account' },
  { value: 'workspace', label: 'Workspace' },
];

/** The catalog's search box (arrows move through the list, Enter opens, Esc backs out) and filters. */
export function SkillSearch({ searchRef }: { searchRef: RefObject<HTMLInputElement | null> }) {
  const s = useSkillsStore(
    useShallow((st) => ({
      items: st.list.items,
      query: st.query,
      scope: st.scope,
      kind: st.kind,
      cursor: st.cursor,
      open: st.open,
      setQuery: st.setQuery,
      setScope: st.setScope,
      setKind: st.setKind,
      moveCursor: st.moveCursor,
      openCursor: st.openCursor,
      closeDetail: st.closeDetail,
    })),
  );
  const kindsPresent = useMemo(() => {
    const set = new Set<ArtifactKindName>();
    for (const i of s.items) for (const k of i.artifact_kinds) set.add(k);
    return (Object.keys(KIND_LABELS) as ArtifactKindName[]).filter((k) => set.has(k));
  }, [s.items]);

  const onSearchKey = (e: React.KeyboardEvent<HTMLInputElement>) => {
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: 8, PageUp: -8 };
    if (e.key in moves) {
      e.preventDefault();
      s.moveCursor(moves[e.key]!);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      void s.openCursor();
    } else if (e.key === 'Escape') {
      if (s.open) s.closeDetail();
      else if (s.query) s.setQuery('');
      else return;
      e.preventDefault();
      e.stopPropagation();
    }
  };

  return (
    <>
      <div className="search">
        <Icon name="search" />
        <input
          ref={searchRef}
          type="search"
          placeholder="Search skills, tags, triggers…"
          aria-label="Search skills"
          role="combobox"
          aria-expanded="true"
          aria-controls="skill-list"
          aria-autocomplete="list"
          aria-activedescendant={s.cursor ? rowId(s.cursor) : undefined}
          value={s.query}
          onChange={(e) => s.setQuery(e.target.value)}
          onKeyDown={onSearchKey}
        />
        <Kbd>Ctrl K</Kbd>
      </div>
      <div className="filters">
        <fieldset className="segmented" aria-label="Scope">
          {SCOPES.map((o) => (
            <button
              key={o.value}
              type="button"
              className={s.scope === o.value ? 'is-on' : ''}
              aria-pressed={s.scope === o.value}
              onClick={() => s.setScope(o.value)}
            >
              {o.label}
            </button>
          ))}
        </fieldset>
        <label className="select">
          <span className="visually-hidden">Artifact kind</span>
          <select
            value={s.kind ?? ''}
            onChange={(e) => s.setKind((e.target.value || null) as ArtifactKindName | null)}
          >
            <option value="">Any kind</option>
            {kindsPresent.map((k) => (
              <option key={k} value={k}>
                {KIND_LABELS[k]}
              </option>
            ))}
          </select>
          <Icon name="chevronDown" />
        </label>
      </div>
    </>
  );
}
