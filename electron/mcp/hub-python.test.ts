// SkillDesk's MCP client against a server written with the official Python SDK (`mcp` 2.3.0 in the
// sidecar's environment, a server of the 2026-07-28 era that still answers `initialize`): its
// tools reach the chat and run, its prompts reach the `/` menu.

import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, skipWithout, tempDir } from '../test-support/index.js';
import { McpHub } from './hub.js';

const python =
  process.platform === 'win32'
    ? join(PROJECT_ROOT, 'sidecar', '.venv', 'Scripts', 'python.exe')
    : join(PROJECT_ROOT, 'sidecar', '.venv', 'bin', 'python');
const missing = !existsSync(python)
  ? 'sidecar/.venv is missing (npm install creates it)'
  : spawnSync(python, ['-c', 'import mcp.server.mcpserver'], { timeout: 60_000 }).status !== 0
    ? 'the Python MCP SDK is not installed in sidecar/.venv (npm install adds it)'
    : null;
const skip = skipWithout(missing, 'MCP client against a Python SDK server');

const hubs: McpHub[] = [];
afterEach(async () => {
  for (const h of hubs.splice(0)) await h.close();
});

describe.skipIf(skip)('MCP client against a Python SDK server', () => {
  it('lists and calls its tools and fills its prompts', async () => {
    const script = join(tempDir(), 'py_server.py');
    writeFileSync(
      script,
      `from mcp.server.mcpserver import MCPServer

app = MCPServer("py-server", version="1.0.0")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


@app.prompt(title="Greeting")
def greet(name: str) -> str:
    """Greet someone by name."""
    return f"Say hello to {name}."


app.run()
`,
    );
    const hub = new McpHub({
      servers: () => [
        { name: 'py', scope: 'account', overridden: false, config: { command: python, args: [script] } },
      ],
      env: process.env,
      timeoutMs: 60_000,
    });
    hubs.push(hub);
    const tools = await hub.tools();
    expect(hub.status()[0]).toMatchObject({ state: 'ready' });
    const add = tools.find((t) => t.name === 'add')!;
    expect(add).toMatchObject({ exposed: 'py__add', description: 'Add two whole numbers.' });
    const r = await hub.call(add, { a: 2, b: 40 });
    expect(JSON.stringify(r)).toContain('42');

    const { prompts, failed } = await hub.prompts();
    expect(failed).toEqual([]);
    expect(prompts).toEqual([
      expect.objectContaining({
        server: 'py',
        name: 'greet',
        title: 'Greeting',
        arguments: [expect.objectContaining({ name: 'name', required: true })],
      }),
    ]);
    const filled = await hub.getPrompt('py', 'greet', { name: 'Ada' });
    expect(filled.messages).toEqual([{ role: 'user', text: 'Say hello to Ada.' }]);
  }, 120_000);
});
