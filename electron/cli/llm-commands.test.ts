import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../test-support/index.js';

const BIN = resolve(import.meta.dirname, '../../bin/skilldesk.mjs');

describe('skilldesk dev provider', () => {
  it('serves the script in the foreground, logs requests and stops on SIGTERM', async () => {
    const dir = tempDir();
    const script = join(dir, 'script.json');
    writeFileSync(script, JSON.stringify([{ text: 'Hello from the CLI' }]));
    const child = spawn(
      process.execPath,
      [BIN, '--json', 'dev', 'provider', '--port', '0', '--script', script],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    try {
      const lines = createInterface({ input: child.stdout });
      const [first] = (await once(lines, 'line')) as [string];
      const info = JSON.parse(first) as { url: string; port: number; turns: number };
      expect(info).toEqual({ url: `http://127.0.0.1:${info.port}/v1`, port: expect.any(Number), turns: 1 });

      const res = await fetch(`${info.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect((await res.json()).choices[0].message.content).toBe('Hello from the CLI');
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    const log = stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(log).toEqual([
      expect.objectContaining({
        event: 'request',
        method: 'POST',
        path: '/v1/chat/completions',
        status: 200,
        turn: 1,
      }),
      { event: 'stopped', signal: 'SIGTERM', requests: 1, unused_turns: 0 },
    ]);
  });

  it('refuses a missing or invalid script with exit code 2', async () => {
    const dir = tempDir();
    const missing = await runCli(['dev', 'provider', '--script', join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Cannot read script');

    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify([{ text: 1 }]));
    const invalid = await runCli(['dev', 'provider', '--script', bad]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('$[0].text');

    const port = await runCli(['dev', 'provider', '--script', bad, '--port', '70000']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port');
  });
});
