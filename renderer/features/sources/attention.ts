import type { ListSourcesRes } from '../../../electron/contract/sources.js';

/** What the sources' last checks found that the user has not acted on. */
export interface SourcesAttention {
  /** Skills a source offers that are not installed. */
  added: number;
  /** Installed skills with a newer upstream version. */
  changed: number;
  /** Installed skills their source no longer has. */
  removed: number;
  /** Installed skills changed in the store since they were accepted (they will not run unasked). */
  tampered: number;
  /**
   * One string per finding, so a dismissed notice comes back when something new is found, and
   * stays away while the same things are still there.
   */
  key: string;
}

/** Count what `sources/list` (each source's saved last check) has for the user to look at. */
export function sourcesAttention(list: ListSourcesRes): SourcesAttention {
  const out = { added: 0, changed: 0, removed: 0, tampered: 0 };
  const keys: string[] = [];
  for (const { source, last_check } of list.sources) {
    if (!last_check) continue;
    for (const s of last_check.skills) {
      const at = `${source.scope}:${source.id}:${s.name}`;
      if (s.status === 'added' || s.status === 'changed' || s.status === 'removed') {
        out[s.status] += 1;
        keys.push(`${at}:${s.status}:${s.upstream_version ?? ''}:${last_check.revision ?? ''}`);
      }
      if (s.tampered) {
        out.tampered += 1;
        keys.push(`${at}:tampered:${s.tampered_files.join(',')}`);
      }
    }
  }
  return { ...out, key: keys.sort().join('\n') };
}

/** The findings in words ("2 updates, 1 new skill"), or null when there is nothing to look at. */
export function describeAttention(a: SourcesAttention): string | null {
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  const parts = [
    a.tampered > 0
      ? n(a.tampered, 'skill changed since you accepted it', 'skills changed since you accepted them')
      : '',
    a.changed > 0 ? n(a.changed, 'update', 'updates') : '',
    a.added > 0 ? n(a.added, 'new skill', 'new skills') : '',
    a.removed > 0 ? n(a.removed, 'skill removed upstream', 'skills removed upstream') : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : null;
}
