import type { RefObject } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useSkillsStore } from '../../stores.js';
import { Kbd } from '../../ui/badges.js';
import { Icon } from '../../ui/Icon.js';
import { CatalogFilterBar } from './catalog-filter.js';
import { rowId } from './SkillList.js';

/** The catalog's search box (arrows move through the list, Enter opens, Esc backs out) and filters. */
export function SkillSearch({ searchRef }: { searchRef: RefObject<HTMLInputElement | null> }) {
  const s = useSkillsStore(
    useShallow((st) => ({
      query: st.query,
      scope: st.scope,
      source: st.source,
      kind: st.kind,
      meaning: st.meaning,
      cursor: st.cursor,
      open: st.open,
      setQuery: st.setQuery,
      setScope: st.setScope,
      setKind: st.setKind,
      setSource: st.setSource,
      moveCursor: st.moveCursor,
      openCursor: st.openCursor,
      closeDetail: st.closeDetail,
    })),
  );
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
          placeholder="Search by words or meaning…"
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
      <CatalogFilterBar
        value={{ scope: s.scope, source: s.source, kind: s.kind }}
        onChange={(f) => {
          if (f.scope !== undefined) s.setScope(f.scope);
          if (f.source !== undefined) s.setSource(f.source);
          if (f.kind !== undefined) s.setKind(f.kind);
        }}
      />
      {s.query.trim() && (
        <p className="search-status" role="status">
          {s.meaning.status === 'loading'
            ? 'Words first; looking for skills close in meaning…'
            : s.meaning.status === 'error'
              ? 'Matched by words only: the search by meaning failed.'
              : s.meaning.status === 'ready'
                ? s.meaning.e5
                  ? s.meaning.e5Pending
                    ? `Matched by words and meaning, as chat does. ${s.meaning.e5Pending === 1 ? 'One new skill is' : `${s.meaning.e5Pending} new skills are`} still being prepared for search by meaning; words find ${s.meaning.e5Pending === 1 ? 'it' : 'them'} meanwhile.`
                    : 'Matched by words and meaning, as chat does.'
                  : `Matched by words and meaning, as chat does (without the sentence model${
                      s.meaning.e5Reason ? `: ${s.meaning.e5Reason}` : ''
                    }).`
                : ' '}
        </p>
      )}
    </>
  );
}
