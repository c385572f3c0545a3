// `skilldesk python network allow|deny|clear|list --chat ID`: a chat's hosts for run_python,
// through the host's python/*-network channels; a URL or an unknown chat is refused.
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../test-support/index.js';

describe('skilldesk python network', () => {
  it('allows, lists, denies and clears a chat’s hosts', async () => {
    const home = tempDir();
    const chat = await runCli(['--home', home, '--json', 'chat', 'hello']);
    expect(chat.code, chat.stderr).toBe(0);
    // --json streams the turn's events, one JSON object a line; each names the chat.
    const sid = (JSON.parse(chat.stdout.split('\n')[0]!) as { session_id: string }).session_id;
    const net = (...args: string[]) => runCli(['--home', home, 'python', 'network', ...args, '--chat', sid]);

    expect((await net('list')).stdout).toBe(`run_python in chat ${sid} has no network\n`);
    const allowed = await net('allow', 'API.example.com', 'data.example.org:8443');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toBe(
      `run_python in chat ${sid} may reach: api.example.com, data.example.org:8443\n`,
    );
    const json = await runCli(['--home', home, '--json', 'python', 'network', '--chat', sid]);
    expect(JSON.parse(json.stdout)).toEqual({
      session_id: sid,
      hosts: ['api.example.com', 'data.example.org:8443'],
    });
    expect((await net('deny', 'api.example.com')).stdout).toBe(
      `run_python in chat ${sid} may reach: data.example.org:8443\n`,
    );
    const url = await net('allow', 'https://example.com/data');
    expect(url.code).toBe(2);
    expect(url.stderr).toContain('not a URL');
    expect((await net('clear')).stdout).toBe(`run_python in chat ${sid} has no network\n`);
    const unknown = await runCli(['--home', home, 'python', 'network', 'list', '--chat', 'no-such-chat']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no chat "no-such-chat"');
  }, 120_000);
});
