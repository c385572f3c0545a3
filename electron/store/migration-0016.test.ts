// Migration 0016: imported Agent Skills scripts stored as plain-Python code_template artifacts
// become resource files; SkillDesk's own code templates are left as they are.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/index.js';
import { openDatabase } from './db.js';

describe('migration 0016_scripts_are_files', () => {
  it('turns imported scripts into files and keeps every other artifact', () => {
    const file = join(tempDir(), 'agents.db');
    const before = openDatabase(file, { targetVersion: 15 });
    before.prepare("INSERT INTO skills (id, name, description) VALUES ('s1', 'pdf', 'd')").run();
    const add = before.prepare(
      'INSERT INTO skill_artifacts (id, skill_id, kind, name, ordinal, content, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const rows: Array<[string, string, string, string | null]> = [
      // Imported from a folder: a script.
      ['a1', 'code_template', 'scripts/fill.py', '{"path":"scripts/fill.py","template":false}'],
      ['a2', 'code_template', 'tools/x.PY', '{"path":"tools/x.PY","template":false,"timeout_ms":500}'],
      // SkillDesk's own: a template, a plain program with no path, a templated file with a path.
      ['a3', 'code_template', 'Count', null],
      ['a4', 'code_template', 'Plain', '{"template":false}'],
      ['a5', 'code_template', 'scripts/t.py', '{"path":"scripts/t.py"}'],
      ['a6', 'code_template', 'scripts/u.py', '{"path":"scripts/u.py","template":true}'],
      ['a7', 'resource', 'notes.md', '{"path":"notes.md"}'],
    ];
    rows.forEach(([id, kind, name, meta], i) => {
      add.run(id, 's1', kind, name, i, `content ${i}`, meta);
    });
    before.close();

    const db = openDatabase(file, { targetVersion: 16 });
    expect(db.pragma('user_version', { simple: true })).toBe(16);
    const after = db
      .prepare('SELECT id, kind, name, content, metadata FROM skill_artifacts ORDER BY id')
      .all() as Array<{ id: string; kind: string; name: string; content: string; metadata: string | null }>;
    expect(after.map((r) => [r.id, r.kind, r.metadata ? JSON.parse(r.metadata) : null])).toEqual([
      ['a1', 'resource', { path: 'scripts/fill.py' }],
      ['a2', 'resource', { path: 'tools/x.PY', timeout_ms: 500 }],
      ['a3', 'code_template', null],
      ['a4', 'code_template', { template: false }],
      ['a5', 'code_template', { path: 'scripts/t.py' }],
      ['a6', 'code_template', { path: 'scripts/u.py', template: true }],
      ['a7', 'resource', { path: 'notes.md' }],
    ]);
    expect(after.map((r) => r.content)).toEqual(rows.map((_, i) => `content ${i}`));
    db.close();
  });
});
