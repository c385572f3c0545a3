// @vitest-environment jsdom
// The one catalog's filter and chips, shared by the Skills view and the Composer's catalog.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import type { SkillListItem } from '../../../electron/contract/skills.js';
import { visibleRows } from '../composer/composer-state.js';
import { CatalogFilterBar, filterCatalog, NO_FILTERS, SkillChips } from './catalog-filter.js';
import { visibleSkills } from './skills-store.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const item = (name: string, over: Partial<SkillListItem> = {}): SkillListItem => ({
  id: name,
  name,
  scope: 'account',
  version: '1.0.0',
  source: 'user',
  description: `${name} does things`,
  tags: [],
  author: null,
  artifact_kinds: ['description', 'prompt_template'],
  trigger_phrases: [],
  intent_patterns: [],
  always_on: false,
  updated_at: '2026-01-01',
  switch: 'on',
  overridden: false,
  ...over,
});

const items = [
  item('Alpha', { intent_patterns: ['tidy a spreadsheet'] }),
  item('Beta', { source: 'system', artifact_kinds: ['code_template'] }),
  item('Gamma', { scope: 'workspace', source: 'community' }),
];

function render(node: React.ReactNode): HTMLElement {
  const el = document.createElement('div');
  document.body.append(el);
  const root = createRoot(el);
  act(() => root.render(node));
  return el;
}

describe('the shared catalog filter', () => {
  it('lets the same rows through in the Skills view and the Composer', () => {
    const cases = [
      { ...NO_FILTERS, query: 'spreadsheet' },
      { ...NO_FILTERS, source: 'system' as const },
      { ...NO_FILTERS, scope: 'workspace' as const },
      { ...NO_FILTERS, kind: 'code_template' as const },
    ];
    for (const f of cases) {
      const composer = visibleRows({ catalog: { status: 'ready', items, error: null }, filters: f });
      const skills = visibleSkills({ list: { status: 'ready', items, error: null }, ...f });
      expect(skills).toEqual(composer);
      expect(skills).toEqual(filterCatalog(items, f));
    }
    // Intents count as words in both (the Composer once left them out).
    expect(filterCatalog(items, { ...NO_FILTERS, query: 'tidy' }).map((i) => i.name)).toEqual(['Alpha']);
  });

  it('offers scope, source and kind, and reports each change', () => {
    const changes: unknown[] = [];
    const el = render(<CatalogFilterBar value={NO_FILTERS} onChange={(f) => changes.push(f)} />);
    const source = el.querySelector('select[aria-label="Source"]') as HTMLSelectElement;
    const kind = el.querySelector('select[aria-label="Artifact kind"]') as HTMLSelectElement;
    expect([...source.options].map((o) => o.textContent)).toEqual([
      'Any source',
      'User',
      'Community',
      'Built-in',
    ]);
    expect(kind.options.length).toBeGreaterThan(5);
    act(() => {
      source.value = 'community';
      source.dispatchEvent(new Event('change', { bubbles: true }));
    });
    act(() => [...el.querySelectorAll('button')].find((b) => b.textContent === 'Workspace')!.click());
    expect(changes).toEqual([{ source: 'community' }, { scope: 'workspace' }]);
  });

  it('labels a row with scope, built-in, switch and its kinds, counting what does not fit', () => {
    const el = render(
      <SkillChips
        item={item('Delta', {
          source: 'system',
          switch: 'name-only',
          artifact_kinds: ['description', 'approach', 'example', 'resource', 'code_template'],
        })}
      />,
    );
    const text = [...el.querySelectorAll('.badge, .chip')].map((c) => c.textContent);
    expect(text).toEqual(['Account', 'Built-in', 'Name only', 'Approach', 'Example', '+3', '+2']);
    // The counts say what they stand for.
    expect(el.querySelector('.chip-more--wide')?.getAttribute('title')).toBe('Resource, Python');
  });
});
