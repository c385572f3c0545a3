import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkspacePagesState } from '../contract/workspace.js';
import { openStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { startLivePages } from './live-pages.js';

describe('live workspace pages', () => {
  it('indexes at start, follows added, changed and removed Markdown files, and leaves no store in a folder without pages', async () => {
    const dir = tempDir();
    const states: WorkspacePagesState[] = [];
    let opened = 0;
    let db: ReturnType<typeof openStore> = null;
    const live = startLivePages({
      folder: dir,
      db: (create) => {
        if (!db && create) {
          db = openStore('workspace', dir);
          opened++;
        }
        return db?.db ?? null;
      },
      onChange: (s) => states.push(s),
      debounceMs: 30,
    });
    try {
      expect(live.state()).toMatchObject({ count: 0, error: null });
      expect(opened).toBe(0);
      mkdirSync(join(dir, 'notes'));
      writeFileSync(join(dir, 'notes', 'a.md'), '# A\nsee [[B]]');
      await expect.poll(() => live.state().count, { timeout: 5000 }).toBe(1);
      expect(opened).toBe(1);
      writeFileSync(join(dir, 'b.md'), '---\ntype: note\n---\n# B');
      await expect.poll(() => live.state().count, { timeout: 5000 }).toBe(2);
      // A non-Markdown file changing (the store's own WAL, say) does not trigger a pass.
      const passes = states.length;
      writeFileSync(join(dir, 'data.csv'), 'a,b');
      await new Promise((r) => setTimeout(r, 150));
      expect(states.length).toBe(passes);
      rmSync(join(dir, 'notes', 'a.md'));
      await expect.poll(() => live.state().count, { timeout: 5000 }).toBe(1);
      expect(live.state().watching).toBe(true);
      expect(live.state().indexed_at).not.toBeNull();
      expect(live.reindex().count).toBe(1);
    } finally {
      live.close();
      (db as ReturnType<typeof openStore>)?.close();
    }
  });
});
