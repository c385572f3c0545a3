import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../test-support/index.js';

describe('skilldesk sessions export', () => {
  it('writes a chat as Markdown or JSON, and refuses an unknown format or session', async () => {
    const home = tempDir();
    const g = ['--home', home];
    // Without a model the reply still comes, saying so: enough to export.
    const chat = await runCli([...g, '--json', 'chat', 'Plan a picnic for Saturday']);
    expect(chat.code).toBe(0);
    const sid = JSON.parse(chat.stdout.split('\n')[0]!).session_id as string;

    const md = await runCli([...g, 'sessions', 'export', sid, '--format', 'md']);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('# Plan a picnic for Saturday');
    expect(md.stdout).toContain('## You\n\nPlan a picnic for Saturday');
    expect(md.stdout).toContain('## Assistant\n\nNo model is configured');

    const out = join(tempDir(), 'chat.json');
    const json = await runCli([...g, '--json', 'sessions', 'export', sid, '--format', 'json', '--out', out]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ file: out, format: 'json' });
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc.session.id).toBe(sid);
    expect(doc.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);

    const bad = await runCli([...g, 'sessions', 'export', sid, '--format', 'pdf']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/md, json/);
    const missing = await runCli([...g, 'sessions', 'export', 'no-such-chat']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no longer exists/);
  });
});
