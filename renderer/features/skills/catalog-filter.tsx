/**
 * The one skills catalog's filters and row chips, shared by the Skills view and the Composer's
 * catalog so both lists filter and label a skill the same way.
 */
import { ARTIFACT_KINDS, KIND_FACTS, type KindFacts } from '../../../electron/contract/kinds.js';
import type { ArtifactKindName, SkillListItem, SkillScope } from '../../../electron/contract/skills.js';
import { KIND_LABELS, KindChip, OverrideBadge, ScopeBadge } from '../../ui/badges.js';
import { Icon } from '../../ui/Icon.js';

/** Which catalog rows show: words, scope, source and artifact kind. */
export interface CatalogFilterValues {
  query: string;
  scope: 'all' | SkillScope;
  source: 'all' | SkillListItem['source'];
  kind: ArtifactKindName | null;
}

/** The filters of a fresh catalog: everything shown. */
export const NO_FILTERS: CatalogFilterValues = { query: '', scope: 'all', source: 'all', kind: null };

/** Whether a row passes the scope, source and kind filters (the words are checked apart). */
export function passesFacets(item: SkillListItem, f: Omit<CatalogFilterValues, 'query'>): boolean {
  if (f.scope !== 'all' && item.scope !== f.scope) return false;
  if (f.source !== 'all' && item.source !== f.source) return false;
  if (f.kind && !item.artifact_kinds.includes(f.kind)) return false;
  return true;
}

/** Whether every word of the query appears in the row's name, description, tags, triggers, intents or author. */
export function hasEveryWord(item: SkillListItem, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = [
    item.name,
    item.description,
    ...item.tags,
    ...item.trigger_phrases,
    ...item.intent_patterns,
    item.author ?? '',
  ]
    .join('\n')
    .toLowerCase();
  return words.every((w) => hay.includes(w));
}

/** The rows every filter lets through, in catalog order (the instant, keyword part of a search). */
export function filterCatalog(items: SkillListItem[], f: CatalogFilterValues): SkillListItem[] {
  return items.filter((item) => passesFacets(item, f) && hasEveryWord(item, f.query));
}

const SCOPES: Array<{ value: CatalogFilterValues['scope']; label: string }> = [
  { value: 'all', label: 'All' },
  { value: 'account', label: 'Account' },
  { value: 'workspace', label: 'Workspace' },
];

const SOURCES: Array<{ value: CatalogFilterValues['source']; label: string }> = [
  { value: 'all', label: 'Any source' },
  { value: 'user', label: 'User' },
  { value: 'community', label: 'Community' },
  { value: 'system', label: 'Built-in' },
];

/** Scope (All / Account / Workspace), source and artifact kind: the catalog's filter bar. */
export function CatalogFilterBar(props: {
  value: Omit<CatalogFilterValues, 'query'>;
  onChange: (f: Partial<CatalogFilterValues>) => void;
}) {
  const { value: f, onChange } = props;
  return (
    <div className="catalog-filters">
      <fieldset className="segmented" aria-label="Scope">
        {SCOPES.map((o) => (
          <button
            key={o.value}
            type="button"
            className={f.scope === o.value ? 'is-on' : ''}
            aria-pressed={f.scope === o.value}
            onClick={() => onChange({ scope: o.value })}
          >
            {o.label}
          </button>
        ))}
      </fieldset>
      <div className="catalog-filters__selects">
        <label className="select">
          <span className="visually-hidden">Source</span>
          <select
            aria-label="Source"
            value={f.source}
            onChange={(e) => onChange({ source: e.target.value as CatalogFilterValues['source'] })}
          >
            {SOURCES.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
          <Icon name="chevronDown" />
        </label>
        <label className="select">
          <span className="visually-hidden">Artifact kind</span>
          <select
            aria-label="Artifact kind"
            value={f.kind ?? ''}
            onChange={(e) => onChange({ kind: (e.target.value || null) as ArtifactKindName | null })}
          >
            <option value="">Any kind</option>
            {ARTIFACT_KINDS.map((k) => (
              <option key={k} value={k}>
                {KIND_LABELS[k]}
              </option>
            ))}
          </select>
          <Icon name="chevronDown" />
        </label>
      </div>
    </div>
  );
}

function kindList(kinds: readonly ArtifactKindName[]): string {
  return kinds.map((k) => KIND_LABELS[k]).join(', ');
}

/**
 * A catalog row's chips: scope, override, built-in, the on/name-only/off switch, and its artifact
 * kinds (two shown, one in a narrow list; the rest counted, never cut off).
 */
export function SkillChips({ item }: { item: SkillListItem }) {
  const kinds = item.artifact_kinds.filter((k) => (KIND_FACTS[k] as KindFacts | undefined)?.chip !== false);
  return (
    <>
      <ScopeBadge scope={item.scope} />
      <OverrideBadge overridden={item.overridden} overrides={item.overrides} />
      {item.source === 'system' && (
        <span className="badge badge--system" title="Ships with SkillDesk">
          Built-in
        </span>
      )}
      {item.switch !== 'on' && (
        <span
          className="badge badge--switched"
          title={
            item.switch === 'off'
              ? 'Switched off: never used in chats'
              : 'Name only: used when asked for by name'
          }
        >
          {item.switch === 'off' ? 'Off' : 'Name only'}
        </span>
      )}
      {kinds.slice(0, 2).map((k) => (
        <KindChip key={k} kind={k} />
      ))}
      {kinds.length > 1 && (
        <span className="chip chip-more chip-more--narrow" title={kindList(kinds.slice(1))}>
          +{kinds.length - 1}
        </span>
      )}
      {kinds.length > 2 && (
        <span className="chip chip-more chip-more--wide" title={kindList(kinds.slice(2))}>
          +{kinds.length - 2}
        </span>
      )}
    </>
  );
}
