import { useEffect, useRef } from 'react';
import type { SkillListItem } from '../../../electron/contract/skills.js';
import { Icon } from '../../ui/Icon.js';
import { SkillChips } from './catalog-filter.js';
import { type SkillKey, skillKey } from './skills-store.js';

/** The DOM id of a row, for aria-activedescendant. */
export function rowId(key: SkillKey): string {
  return `skill-row-${key.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** The catalog rows as a listbox; the search box owns focus and drives the cursor. */
export function SkillList(props: {
  items: SkillListItem[];
  cursor: SkillKey | null;
  open: SkillKey | null;
  onOpen: (key: SkillKey) => void;
  /** Why the search found a row (the hybrid match's reason), when it did. */
  why?: (key: SkillKey) => string | null;
}) {
  const listRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!props.cursor) return;
    const el = listRef.current?.querySelector(`#${CSS.escape(rowId(props.cursor))}`);
    el?.scrollIntoView?.({ block: 'nearest' });
  }, [props.cursor]);
  return (
    <div ref={listRef} id="skill-list" className="skill-list" role="listbox" aria-label="Skills">
      {props.items.map((item) => {
        const key = skillKey(item);
        const active = key === props.cursor;
        const isOpen = key === props.open;
        const why = props.why?.(key) ?? null;
        return (
          <div
            key={key}
            id={rowId(key)}
            role="option"
            aria-selected={active}
            aria-current={isOpen ? 'true' : undefined}
            tabIndex={-1}
            className={`skill-row${active ? ' is-active' : ''}${isOpen ? ' is-open' : ''}${item.overridden ? ' is-overridden' : ''}`}
            onClick={() => props.onOpen(key)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') props.onOpen(key);
            }}
          >
            <div className="skill-row__top">
              <span className="skill-row__name">{item.name}</span>
              <span className="skill-row__version">v{item.version}</span>
            </div>
            <p className="skill-row__desc">{item.description}</p>
            {why && (
              <p className="skill-row__why">
                <Icon name="search" size={12} /> {why}
              </p>
            )}
            <div className="skill-row__meta">
              <SkillChips item={item} />
            </div>
          </div>
        );
      })}
    </div>
  );
}
