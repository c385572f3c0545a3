import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startLoopbackProvider } from '../../llm/index.js';
import { prepareComponent, runComponentArtifact, SandboxPool, SKILL_WIT } from '../../sandbox/index.js';
import { agentSkillToPackage, skillToAgentFiles } from '../../skills/index.js';
import { PROJECT_ROOT, runCli, tempDir } from '../../test-support/index.js';
import { jsComponent, KITCHEN_JS, SOCKETS_IMPORT, watComponent } from './fixtures.js';
import { wasmComponentKind } from './index.js';

// A filesystem-reaching component: componentize-js with its default features imports wasi:cli,
// wasi:io, wasi:http and wasi:filesystem.
const FILESYSTEM_JS = `
import { log } from 'skilldesk:skill/host@0.1.0';
export function run(input) { log(input); return 'hi'; }
// wasi features on
`;

function pkg(name: string, bytes: Uint8Array, metadata: Record<string, unknown> = {}) {
  return {
    name,
    description: `${name}: a WebAssembly component skill`,
    version: '1.0.0',
    artifacts: [
      {
        kind: 'wasm_component',
        name: 'component.wasm',
        content: Buffer.from(bytes).toString('base64'),
        metadata: { encoding: 'base64', ...metadata },
      },
    ],
  };
}

let kitchen: Uint8Array;
let filesystem: Uint8Array;

beforeAll(async () => {
  kitchen = await jsComponent(KITCHEN_JS);
  filesystem = await jsComponent(FILESYSTEM_JS, { wasiFeatures: true });
}, 600_000);

describe('the skilldesk:skill world', () => {
  it('is published in wit/skill.wit exactly as the app checks it', () => {
    expect(readFileSync(join(PROJECT_ROOT, 'wit', 'skill.wit'), 'utf8')).toBe(SKILL_WIT);
  });

  it('accepts a component importing only host; refuses wasi:sockets and wasi:filesystem by name', async () => {
    const art = (bytes: Uint8Array) => ({
      kind: 'wasm_component',
      name: 'c.wasm',
      content: Buffer.from(bytes).toString('base64'),
      metadata: { encoding: 'base64' },
    });
    expect(wasmComponentKind.validate(art(kitchen), { artifacts: [] })).toEqual([]);
    const sockets = wasmComponentKind.validate(art(await watComponent('ok', SOCKETS_IMPORT)), {
      artifacts: [],
    });
    expect(sockets[0]?.message).toMatch(
      /imports wasi:sockets\/tcp@0\.2\.0, which a skill component is not granted/,
    );
    const fs = wasmComponentKind.validate(art(filesystem), { artifacts: [] });
    expect(fs[0]?.message).toMatch(/wasi:filesystem\/types@[\d.]+/);
    expect(fs[0]?.message).toMatch(/wasi:filesystem\/preopens@[\d.]+/);
    const core = wasmComponentKind.validate({ ...art(kitchen), content: 'AGFzbQEAAAA=' }, { artifacts: [] });
    expect(core[0]?.message).toMatch(/core WebAssembly module, not a component/);
    // A component that imports the model through host declares the network effect.
    expect(wasmComponentKind.effects(art(kitchen), { llm_query: ['network'], get_page: [] })).toEqual([
      { effects: ['network'], why: 'component c.wasm imports skilldesk:skill/host.llm-query' },
    ]);
  });
});

describe('skilldesk: a JavaScript component from outside', () => {
  it('is imported, run with --context (output and trace), refused when hostile, and round-trips', async () => {
    const home = tempDir();
    const dir = tempDir();
    writeFileSync(join(dir, 'adder.json'), JSON.stringify(pkg('Wasm Adder', kitchen)));
    const imported = await runCli(['--home', home, 'skills', 'import', join(dir, 'adder.json')]);
    expect(imported.code, imported.stderr).toBe(0);
    const r = await runCli([
      '--home',
      home,
      '--json',
      'run-skill',
      'Wasm Adder',
      '--context',
      '{"do": "sum", "a": 2, "b": 40}',
      '--session',
      'wasm-1',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json();
    expect(out.results[0]).toMatchObject({ kind: 'wasm_component', ok: true });
    expect(JSON.stringify(out.results[0])).toContain('"sum":42');
    const traces = (await runCli(['--home', home, '--json', 'traces', '--session', 'wasm-1'])).json().traces;
    expect(traces).toMatchObject([{ artifact_kind: 'wasm_component', id: out.results[0].trace_id }]);

    // Hostile imports are refused at import, naming the import; nothing is stored.
    writeFileSync(
      join(dir, 'net.json'),
      JSON.stringify(pkg('Wasm Net', await watComponent('ok', SOCKETS_IMPORT))),
    );
    const net = await runCli(['--home', home, 'skills', 'import', join(dir, 'net.json')]);
    expect(net.code).not.toBe(0);
    expect(net.stderr).toContain('wasi:sockets/tcp@0.2.0');
    writeFileSync(join(dir, 'fs.json'), JSON.stringify(pkg('Wasm Fs', filesystem)));
    const fs = await runCli(['--home', home, 'skills', 'import', join(dir, 'fs.json')]);
    expect(fs.code).not.toBe(0);
    expect(fs.stderr).toMatch(/wasi:filesystem\/(types|preopens)@/);

    // Export to JSON and to an Agent Skills folder and back: the component's bytes are the same.
    const json = await runCli(['--home', home, 'skills', 'export', 'Wasm Adder']);
    const exported = JSON.parse(json.stdout);
    expect(exported.artifacts[0].content).toBe(Buffer.from(kitchen).toString('base64'));
    const { files } = skillToAgentFiles(exported);
    expect([...files.keys()]).toContain('components/component.wasm');
    expect(Buffer.compare(files.get('components/component.wasm')!, Buffer.from(kitchen))).toBe(0);
    const back = agentSkillToPackage(files, 'wasm-adder') as { artifacts: Array<Record<string, unknown>> };
    const comp = back.artifacts.find((a) => a.kind === 'wasm_component')!;
    expect(comp.content).toBe(Buffer.from(kitchen).toString('base64'));
    const folder = join(dir, 'wasm-adder');
    for (const [p, b] of files) {
      mkdirSync(join(folder, p, '..'), { recursive: true });
      writeFileSync(join(folder, p), b);
    }
    const again = await runCli(['--home', tempDir(), 'skills', 'import', folder]);
    expect(again.code, again.stderr).toBe(0);
  }, 300_000);

  it('reads a page and asks the model through the host (loopback provider)', async () => {
    const provider = await startLoopbackProvider({ script: [{ text: 'a summary' }] });
    onTestFinished(() => provider.close());
    const home = tempDir();
    const ws = tempDir();
    writeFileSync(join(ws, 'notes.md'), '# Notes\n\nThe launch is on Friday.\n');
    const dir = tempDir();
    writeFileSync(join(dir, 'pages.json'), JSON.stringify(pkg('Wasm Pages', kitchen)));
    // Into the workspace's own store: the account store's skill runtime is built before the
    // workspace is open and sees no pages.
    const imported = await runCli([
      '--home',
      home,
      '--workspace',
      ws,
      'skills',
      'import',
      join(dir, 'pages.json'),
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    const r = await runCli(
      [
        '--home',
        home,
        '--workspace',
        ws,
        '--json',
        'run-skill',
        'Wasm Pages',
        '--context',
        '{"do": "page", "slug": "notes"}',
        '--provider',
        'openai',
        '--model',
        'gpt-4.1-mini',
        '--base-url',
        provider.url,
      ],
      { OPENAI_API_KEY: 'sk-test' },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const text = JSON.stringify(r.json().results[0]);
    expect(text).toContain('The launch is on Friday');
    expect(text).toContain('a summary');
    expect(JSON.stringify(provider.requests[0]!.body)).toContain('The launch is on Friday');
  }, 300_000);
});

describe('limits: each hostile run fails clearly and the next run works', () => {
  let pool: SandboxPool;
  let componentDir: string;
  let sha: string;
  beforeAll(async () => {
    // Kept for the whole describe (test-support's temp folders go after each test).
    componentDir = mkdtempSync(join(tmpdir(), 'skilldesk-components-'));
    pool = new SandboxPool({ componentDir });
    sha = (await prepareComponent(kitchen, componentDir)).sha256;
  }, 300_000);
  afterAll(async () => {
    await pool.close();
    rmSync(componentDir, { recursive: true, force: true });
  });

  const sum = async () => {
    const r = await pool.runComponent(sha, JSON.stringify({ do: 'sum', a: 1, b: 2 }));
    expect(r, JSON.stringify(r.error)).toMatchObject({ ok: true, result: '{"sum":3}' });
  };

  it('a pure run answers; an err result is a ComponentError', async () => {
    await sum();
    const text = await pool.runComponent(sha, JSON.stringify({ do: 'text' }));
    expect(text).toMatchObject({ ok: true, result: 'plain text, not JSON' });
    const bad = await pool.runComponent(sha, JSON.stringify({ do: 'nope' }));
    expect(bad.error).toMatchObject({ type: 'ComponentError', message: 'unknown action nope' });
    await sum();
  }, 120_000);

  it('an endless loop is stopped at its timeout', async () => {
    const r = await pool.runComponent(sha, JSON.stringify({ do: 'loop' }), { limits: { timeout_ms: 1500 } });
    expect(r.error).toMatchObject({ code: 'SANDBOX_TIMEOUT', type: 'Timeout' });
    await sum();
  }, 120_000);

  it('an endless loop stops when its caller gives up (the chat’s Stop reaches the component)', async () => {
    const ac = new AbortController();
    const artifact = { content: Buffer.from(kitchen).toString('base64') };
    const running = runComponentArtifact(
      pool,
      componentDir,
      artifact,
      { do: 'loop' },
      {
        limits: { timeout_ms: 120_000 },
        signal: ac.signal,
      },
    );
    setTimeout(() => ac.abort(), 300);
    const r = await running;
    // Not the 120 s timeout: the component's worker was ended when the signal fired.
    expect(r.error).toMatchObject({ code: 'CANCELLED' });
    await sum();
  }, 120_000);

  it('a memory bomb stops at the memory cap', async () => {
    const r = await pool.runComponent(sha, JSON.stringify({ do: 'bomb' }), {
      limits: { memory_mb: 128, timeout_ms: 60_000 },
    });
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe('SANDBOX_LIMIT');
    await sum();
    // A hand-written one growing its memory page by page is refused at the cap too.
    const grow = (await prepareComponent(await watComponent('grow'), componentDir)).sha256;
    const g = await pool.runComponent(grow, '{}', { limits: { memory_mb: 64 } });
    expect(g.error).toMatchObject({ code: 'SANDBOX_LIMIT', type: 'MemoryLimit' });
    await sum();
  }, 120_000);

  it('a huge result and a huge log are cut at their limits', async () => {
    const big = await pool.runComponent(sha, JSON.stringify({ do: 'huge', n: 300_000 }), {
      limits: { result_bytes: 100_000 },
    });
    expect(big.error).toMatchObject({ code: 'SANDBOX_LIMIT', type: 'ResultTooLarge' });
    const chatty = await pool.runComponent(sha, JSON.stringify({ do: 'chatty', n: 100_000 }), {
      limits: { output_bytes: 1000 },
    });
    expect(chatty).toMatchObject({ ok: true, result: 'done', stdout_truncated: true });
    expect(chatty.stdout).toMatch(/\[output truncated at 1000 bytes\]/);
    await sum();
  }, 120_000);

  it('each run gets a fresh instance: state a run leaves in its memory is never seen by the next', async () => {
    // The worker makes the next run's instance ahead of time; a run must still start from the
    // component's initial memory, whichever component ran in between.
    const count = (await prepareComponent(await watComponent('count'), componentDir)).sha256;
    for (let i = 0; i < 6; i++) {
      const r = await pool.runComponent(count, '{}');
      expect(r, JSON.stringify(r.error)).toMatchObject({ ok: true, result: '52' });
      if (i === 2) await sum();
    }
    await sum();
  }, 120_000);

  it('a trap is a failed run', async () => {
    const trap = (await prepareComponent(await watComponent('trap'), componentDir)).sha256;
    const r = await pool.runComponent(trap, '{}');
    expect(r.error).toMatchObject({ type: 'Trap' });
    expect(r.error?.message).toMatch(/unreachable/);
    await sum();
  }, 120_000);

  it('host calls are budgeted like Python’s', async () => {
    const r = await pool.runComponent(sha, JSON.stringify({ do: 'page', slug: 'x' }), {
      limits: { host_calls: 1 },
      host: { call: async () => 'page text' },
    });
    // The first call (get-page) is served, the second (llm-query) refused: an err the JS sees.
    expect(r.ok).toBe(false);
    expect(r.error?.message).toMatch(/too many host calls/);
    await sum();
  }, 120_000);

  it('keeps its transpiled form once per hash', () => {
    expect(readdirSync(componentDir).filter((f) => /^[0-9a-f]{64}$/.test(f))).toContain(sha);
  });
});
