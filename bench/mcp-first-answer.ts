// How soon `skilldesk mcp serve` answers a real client at catalog scale: the official MCP Python
// SDK client (sidecar/.venv) starts the CLI over stdio against a generated catalog and times the
// connection (`server/discover`, or `initialize` when discover goes unanswered for 10 s), the
// first `tools/list`, the first and second `search_skills`, and walking every `skills/list` page
// (which waits for the catalog's first build). `npm run bench -- --only mcp-first-answer`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSkillCatalog } from '../electron/test-support/skill-catalog.js';
import type { BenchOptions, BenchResult } from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Run the first-answer benchmark. */
export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const size = opts.quick ? 1_000 : 10_000;
  const home = mkdtempSync(join(tmpdir(), 'skilldesk-bench-first-'));
  try {
    opts.log(`wrote ${size} skills in ${(writeSkillCatalog(home, size) / 1000).toFixed(1)} s`);
    const cli = join(root, 'bin', 'skilldesk.mjs');
    spawnSync(process.execPath, [cli, '--version'], { timeout: 300_000 }); // a stale bundle rebuilds here
    const r = spawnSync(
      join(root, 'sidecar', '.venv', 'bin', 'python'),
      [
        join(root, 'electron', 'mcp-serve', 'python-client.py'),
        JSON.stringify({ command: [process.execPath, cli, '--home', home, 'mcp', 'serve'] }),
      ],
      { encoding: 'utf8', timeout: 900_000, maxBuffer: 64 * 1024 * 1024 },
    );
    if (r.status !== 0) throw new Error(`python client failed: ${r.stderr}`);
    const out = JSON.parse(r.stdout);
    return [
      {
        bench: `mcp.serve.first_answer_ms.${size}`,
        unit: 'ms',
        n: 1,
        connected_ms: out.connected_ms,
        tools_list_ms: out.tools_list_ms,
        protocol: out.protocol,
        search1_ms: out.search1_ms,
        search2_ms: out.search2_ms,
        skills_listed_ms: out.skills_listed_ms,
      },
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
