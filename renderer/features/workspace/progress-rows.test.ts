import { describe, expect, it } from 'vitest';
import type { ProgressTask } from '../../../electron/contract/progress.js';
import { progressRows } from './ProgressArea.js';

const task = (
  id: string,
  state: ProgressTask['state'],
  kind: ProgressTask['kind'],
  at: number,
): ProgressTask => ({
  id,
  kind,
  label: `task ${id}`,
  state,
  detail: null,
  fraction: null,
  cancellable: false,
  started_at: new Date(Date.UTC(2026, 10, 28, 12, 0, at)).toISOString(),
});

describe('the progress area rows', () => {
  it('folds finished tasks of a kind into the latest, keeps running ones and each failure', () => {
    const rows = progressRows([
      task('a', 'done', 'import', 1),
      task('b', 'done', 'import', 3),
      task('c', 'failed', 'import', 4),
      task('d', 'running', 'import', 5),
      task('e', 'done', 'import', 2),
      task('f', 'done', 'python', 6),
    ]);
    expect(rows.map((r) => [r.t.id, r.ids])).toEqual([
      ['b', ['a', 'b', 'e']],
      ['c', ['c']],
      ['d', ['d']],
      ['f', ['f']],
    ]);
  });
});
