// `skilldesk mcp serve` at catalog scale, measured from outside: the MCP SDK's own client starts
// the real CLI over stdio (as Claude Desktop or an IDE would) against a generated catalog of
// 10,000 realistic skills (instructions, a prompt template, a Python script, a reference file,
// an example; sizes drawn from README text), and times resources/read, skills/get and skills/list
// (target: p95 ≤ 20 ms each at 10,000), plus how long a change written by another process takes
// to be announced as resources/list_changed (the server follows the store's change log).
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { packageToRows } from '../electron/skills/convert.js';
import type { SkillPackage } from '../electron/skills/package-schema.js';
import { openStore } from '../electron/store/stores.js';
import { englishSentences, rng } from './corpus.js';
import { type BenchOptions, type BenchResult, percentile, r3, sample } from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const words = (s: string) => s.toLowerCase().match(/[a-z][a-z'-]+/g) ?? [];

/** A skill as people write them: several artifacts, a script and a reference among them. */
function makePackage(i: number, sentences: string[], rand: () => number): SkillPackage {
  const pick = () => sentences[Math.floor(rand() * sentences.length)]!;
  const para = (n: number) => Array.from({ length: n }, pick).join(' ');
  const name = `${words(pick()).slice(0, 3).join(' ')} ${i}`;
  const steps = Array.from({ length: 3 + Math.floor(rand() * 6) }, (_, k) => `${k + 1}. ${pick()}`).join(
    '\n',
  );
  return {
    name,
    description: para(1 + Math.floor(rand() * 2)).slice(0, 1000),
    version: '1.0.0',
    tags: words(pick()).slice(0, 3),
    intent_patterns: [words(pick()).slice(0, 4).join(' ')],
    trigger_phrases: [words(pick()).slice(0, 3).join(' ')],
    artifacts: [
      {
        kind: 'approach',
        name: 'Instructions',
        ordinal: 0,
        content: `# ${name}\n\n${para(3)}\n\n${steps}\n`,
      },
      { kind: 'prompt_template', name: 'Prompt', ordinal: 1, content: `${para(2)}\n\n{{ text }}` },
      {
        kind: 'code_template',
        name: 'Script',
        ordinal: 2,
        content: `# ${pick().replace(/\n/g, ' ')}\nimport json\n\ndef main(text):\n    words = text.split()\n    return json.dumps({"words": len(words)})\n`,
      },
      {
        kind: 'resource',
        name: 'reference.md',
        ordinal: 3,
        metadata: { path: 'references/reference.md' },
        content: `# Reference\n\n${para(4 + Math.floor(rand() * 8))}\n`,
      },
      { kind: 'example', name: 'Example', ordinal: 4, content: `Input: ${pick()}\nOutput: ${pick()}` },
    ],
  } as SkillPackage;
}

const Entry = z.object({
  uri: z.string(),
  frontmatter: z.record(z.string(), z.unknown()),
  resources: z.array(z.object({ uri: z.string(), digest: z.string(), size: z.number() })),
});
const ListResult = z.object({ skills: z.array(Entry), nextCursor: z.string().optional() }).passthrough();
const GetResult = z.object({ skill: Entry }).passthrough();

/** CPU milliseconds a process has used so far (Linux `/proc`; 0 elsewhere, 10 ms ticks). */
function processCpuMs(pid: number | null): number {
  if (!pid) return 0;
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * (1000 / 100);
  } catch {
    return 0;
  }
}

/** Resolves once the process used at most one clock tick of CPU in each of two 300 ms spans (≤ 60 s). */
async function untilIdle(pid: number | null): Promise<void> {
  if (!pid) return;
  const until = Date.now() + 60_000;
  let quiet = 0;
  while (quiet < 2 && Date.now() < until) {
    const c0 = processCpuMs(pid);
    await new Promise((r) => setTimeout(r, 300));
    quiet = processCpuMs(pid) - c0 <= 10 ? quiet + 1 : 0;
  }
}

/** CPU milliseconds this process has used so far. */
function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** resources/read p50 over HTTP and over stdio, interleaved, and their ratio (target ≤ 2). */
async function httpAgainstStdio(
  home: string,
  size: number,
  stdio: Client,
  stdioPid: number | null,
  files: string[],
  n: number,
  at: (xs: string[]) => string,
): Promise<BenchResult> {
  const server = spawn(
    process.execPath,
    [join(root, 'bin', 'skilldesk.mjs'), '--home', home, 'mcp', 'serve', '--http', '0'],
    { env: { PATH: process.env.PATH ?? '', HOME: home }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const http = new Client({ name: 'skilldesk-bench-http', version: '1' });
  try {
    let said = '';
    const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
      server.stderr.on('data', (d: Buffer) => {
        said += d.toString();
        const u = /(http:\/\/\S+)/.exec(said);
        const t = /Bearer (\S+)/.exec(said);
        if (u && t) resolve({ url: u[1]!, token: t[1]! });
      });
      server.once('exit', (code) => reject(new Error(`mcp serve --http exited (${code}): ${said}`)));
    });
    await http.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    await http.readResource({ uri: at(files) });
    // The server builds its match index in slices after it starts: measured once it is idle, as a
    // server a client has been using is (its CPU figures would otherwise carry the build).
    await untilIdle(server.pid ?? null);
    const overHttp: number[] = [];
    const overStdio: number[] = [];
    // CPU time per request of each server process and of this (the client) process for each
    // transport: wall time on a shared machine mixes in the load, and the HTTP figure includes the
    // SDK client's fetch and SSE parsing, which no server change can reach.
    const cpu = { httpServer: 0, stdioServer: 0, httpClient: 0, stdioClient: 0 };
    for (let i = 0; i < n; i++) {
      const uri = at(files);
      let c0 = processCpuMs(server.pid ?? null);
      let m0 = ownCpuMs();
      let t = performance.now();
      await http.readResource({ uri });
      overHttp.push(performance.now() - t);
      cpu.httpClient += ownCpuMs() - m0;
      cpu.httpServer += processCpuMs(server.pid ?? null) - c0;
      c0 = processCpuMs(stdioPid);
      m0 = ownCpuMs();
      t = performance.now();
      await stdio.readResource({ uri });
      overStdio.push(performance.now() - t);
      cpu.stdioClient += ownCpuMs() - m0;
      cpu.stdioServer += processCpuMs(stdioPid) - c0;
    }
    const h = percentile(overHttp, 50);
    const s = percentile(overStdio, 50);
    return {
      bench: `mcp resources/read over http @${size / 1000}k`,
      unit: 'ms',
      p50: r3(h),
      p95: r3(percentile(overHttp, 95)),
      n,
      stdio_p50_ms: r3(s),
      ratio_to_stdio: r3(h / s),
      server_cpu_ms_per_req: r3(cpu.httpServer / n),
      stdio_server_cpu_ms_per_req: r3(cpu.stdioServer / n),
      server_cpu_ratio: r3(cpu.httpServer / Math.max(cpu.stdioServer, 1e-9)),
      client_cpu_ms_per_req: r3(cpu.httpClient / n),
      stdio_client_cpu_ms_per_req: r3(cpu.stdioClient / n),
    };
  } finally {
    await http.close().catch(() => {});
    server.kill();
  }
}

/** Run the MCP server benchmark. */
export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const sentences = englishSentences(root);
  const size = opts.quick ? 1_000 : 10_000;
  const home = join(tmpdir(), `skilldesk-bench-mcp-${process.pid}`);
  rmSync(home, { recursive: true, force: true });
  const store = openStore('account', home)!;
  const rand = rng(size);
  const t0 = performance.now();
  store.repo.transaction(() => {
    for (let i = 0; i < size; i++) {
      const rows = packageToRows(makePackage(i, sentences, rand));
      store.repo.createSkill(rows.skill);
      for (const a of rows.artifacts) store.repo.addArtifact(a);
    }
  });
  opts.log(`built ${size} skills in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(root, 'bin', 'skilldesk.mjs'), '--home', home, 'mcp', 'serve'],
    env: { PATH: process.env.PATH ?? '', HOME: home },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'skilldesk-bench', version: '1' });
  const results: BenchResult[] = [];
  try {
    const tc = performance.now();
    await client.connect(transport);
    const connectMs = performance.now() - tc;
    // The first listing waits for the catalog to be built (every folder, digest and directory).
    const tf = performance.now();
    const first = await client.request({ method: 'skills/list', params: {} }, ListResult);
    const firstMs = performance.now() - tf;
    opts.log(
      `connected in ${connectMs.toFixed(0)} ms; first skills/list (catalog built) ${firstMs.toFixed(0)} ms`,
    );

    // Every entry, every page: what a host does to build its registry.
    const entries: Array<z.infer<typeof Entry>> = [...first.skills];
    const cursors: string[] = [];
    let cursor = first.nextCursor;
    const tw = performance.now();
    while (cursor) {
      cursors.push(cursor);
      const r = await client.request({ method: 'skills/list', params: { cursor } }, ListResult);
      entries.push(...r.skills);
      cursor = r.nextCursor;
    }
    const walkMs = performance.now() - tw;
    const files = entries.flatMap((e) => e.resources.map((r) => r.uri));
    opts.log(
      `${entries.length} entries (${files.length} files) in ${cursors.length + 1} pages, walked in ${walkMs.toFixed(0)} ms`,
    );

    const n = opts.quick ? 200 : 1000;
    const pickRand = rng(11);
    const at = <T>(xs: T[]) => xs[Math.floor(pickRand() * xs.length)]!;
    const rows: Array<[string, (i: number) => Promise<unknown>]> = [
      ['resources/read', () => client.readResource({ uri: at(files) })],
      [
        'skills/get',
        () => client.request({ method: 'skills/get', params: { uri: at(entries).uri } }, GetResult),
      ],
      [
        'skills/list',
        () => {
          const c = pickRand() < 0.2 ? undefined : at(cursors);
          return client.request({ method: 'skills/list', params: c ? { cursor: c } : {} }, ListResult);
        },
      ],
      ['resources/list', () => client.listResources()],
    ];
    for (const [method, fn] of rows) {
      const samples = await sample(n, fn);
      results.push({
        bench: `mcp ${method} @${size / 1000}k`,
        unit: 'ms',
        p50: r3(percentile(samples, 50)),
        p95: r3(percentile(samples, 95)),
        n,
      });
    }

    // The same reads over Streamable HTTP (a second server process on the same home, a session kept
    // between requests), interleaved with stdio ones so the machine's load weighs on both alike.
    results.push(await httpAgainstStdio(home, size, client, transport.pid, files, n, at));

    // A change made by another process (this one, writing the store directly): announced when
    // the server's watch of the change log sees it (it polls every second).
    const announced = new Promise<number>((resolve) => {
      client.setNotificationHandler(
        z.object({ method: z.literal('notifications/resources/list_changed') }).passthrough() as never,
        () => resolve(performance.now()),
      );
    });
    const tw2 = performance.now();
    store.repo.transaction(() => {
      const rows2 = packageToRows(makePackage(size, sentences, rand));
      store.repo.createSkill(rows2.skill);
      for (const a of rows2.artifacts) store.repo.addArtifact(a);
    });
    const seenAt = await Promise.race([
      announced,
      new Promise<number>((r) => setTimeout(() => r(Number.NaN), 10_000)),
    ]);
    const afterChange = await sample(
      20,
      () => client.request({ method: 'skills/get', params: { uri: at(entries).uri } }, GetResult),
      0,
    );
    results.push({
      bench: `mcp catalog @${size / 1000}k`,
      unit: 'ms',
      n: 1,
      connect_ms: r3(connectMs),
      first_list_ms: r3(firstMs),
      all_pages_ms: r3(walkMs),
      change_announced_ms: r3(seenAt - tw2),
      get_after_change_p50_ms: r3(percentile(afterChange, 50)),
    });
  } finally {
    await client.close();
    store.close();
    rmSync(home, { recursive: true, force: true });
  }
  return results;
}
