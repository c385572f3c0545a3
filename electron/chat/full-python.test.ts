// Full Python through the chat slice with the loopback provider scripting the model's calls:
// CPython in the OS sandbox, with the lock's pandas and matplotlib installed on first use from
// the shared wheel cache (SKILLDESK_WHEEL_CACHE; CI downloads them once). A CSV attached, pandas
// computing a number checked exactly, a matplotlib PNG saved and listed in the folder, a second
// turn reading the file the first wrote, a run past its time limit (the next one works), the
// network refused, and a cancel that kills the run; then the chat's allowed host reached over HTTPS
// through the proxy, and a refused name offered to allow. Where bubblewrap cannot run, the runtime's
// refusal is checked instead.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload, Result } from '../contract/channels.js';
import type { ApprovalRequestedEvent } from '../contract/tools.js';
import { createHost, type Host } from '../host.js';
import { type LoopbackScriptInput, startLoopbackProvider } from '../llm/index.js';
import { findProgram, nativeSandboxSupport } from '../scripts/index.js';
import { quietLogger, tempDir } from '../test-support/index.js';
import { invokeChannel } from '../transport/dispatch.js';
import { TEST_WHEEL_CACHE } from './full-python.test-support.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function open(home: string, env: Record<string, string>) {
  const host: Host = createHost({ home, env, mode: 'test', logger: quietLogger });
  cleanups.push(() => host.dispose());
  const call = async <T = Record<string, unknown>>(channel: string, req: unknown): Promise<Result<T>> =>
    (await invokeChannel(host.handlers, channel, req, { transport: 'in-process' }, quietLogger)) as Result<T>;
  const ok = async <T = Record<string, unknown>>(channel: string, req: unknown): Promise<T> => {
    const r = await call<T>(channel, req);
    if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
    return r.value;
  };
  const requested: ApprovalRequestedEvent[] = [];
  host.events.subscribe('tools/approval-requested', (e) => requested.push(e));
  const started: Array<EventPayload<'chat/tool-call-started'>> = [];
  host.events.subscribe('chat/tool-call-started', (e) => started.push(e));
  const tasks: string[] = [];
  host.events.subscribe('progress/task-updated', (t) => {
    if (t.kind === 'python') tasks.push(`${t.state}: ${t.detail ?? ''}`);
  });
  const turn = async (message: string, extra: Record<string, unknown> = {}) => {
    const done = new Promise<EventPayload<'chat/turn-finished'>>((resolve) => {
      const off = host.events.subscribe('chat/turn-finished', (p) => {
        off();
        resolve(p);
      });
    });
    const r = await ok<{ session_id: string }>('chat/send-message', { message, ...extra });
    return { session_id: r.session_id, finished: done };
  };
  return { host, ok, call, requested, started, tasks, turn };
}

const py = (code: string, extra: Record<string, unknown> = {}) => ({
  tool_calls: [{ name: 'run_python', arguments: { code, ...extra } }],
});

const CSV = 'region,amount\nnorth,10.5\nsouth,20.25\neast,30\nwest,45\nnorth,4.5\n';

const ANALYSE = `import pandas as pd
import matplotlib.pyplot as plt
df = pd.read_csv("sales.csv")
by = df.groupby("region")["amount"].sum().sort_index()
by.to_csv("by_region.csv")
print("total", df["amount"].sum(), "north", by["north"])
ax = by.plot(kind="bar")
ax.figure.savefig("out/chart.png")
`;

async function withProvider(script: LoopbackScriptInput, packages = 'pandas,matplotlib') {
  const provider = await startLoopbackProvider({ script });
  cleanups.push(() => provider.close());
  const home = tempDir();
  const app = open(home, {
    SKILLDESK_WHEEL_CACHE: TEST_WHEEL_CACHE,
    // CI installs the part of the lock these tests use; the whole lock is the opt-in bench's.
    SKILLDESK_FULL_PYTHON_PACKAGES: packages,
  });
  await app.ok('settings/set-provider', { provider: 'openai', base_url: provider.url });
  await app.ok('settings/set-key', { provider: 'openai', key: 'sk-test' });
  return { app, provider, home };
}

type Call = { name: string; ok: boolean; result?: Record<string, unknown> };
async function callsOf(app: ReturnType<typeof open>, session_id: string): Promise<Call[]> {
  const s = await app.ok<{ messages: Array<{ tool_calls: Call[] }> }>('chat/get-session', { session_id });
  return s.messages.flatMap((m) => m.tool_calls);
}

const sandbox = nativeSandboxSupport();

describe.runIf(sandbox.ok)('Full Python in a chat', () => {
  it('pandas on an attached CSV, a matplotlib PNG kept, a second turn reads it; limits, no network, cancel', async () => {
    const { app } = await withProvider([
      { ...py(ANALYSE), expect: { tools: ['run_python'] } },
      { text: 'Total 110.25.', expect: { tool_result_contains: 'total 110.25 north 15.0' } },
      py(
        'import pandas as pd\nby = pd.read_csv("by_region.csv").set_index("region")\ndisplay(by, "By region")\nprint(by["amount"]["west"])',
      ),
      { text: 'West 45.', expect: { tool_result_contains: '45.0' } },
      py('while True:\n    pass', { timeout_ms: 1500 }),
      {
        ...py('import numpy as np\nprint(int(np.arange(10).sum()))'),
        expect: { tool_result_contains: 'time limit' },
      },
      { text: 'Recovered.', expect: { tool_result_contains: '45' } },
      py(
        'import socket\ntry:\n    socket.create_connection(("1.1.1.1", 80), timeout=3)\n    print("REACHED")\nexcept OSError as e:\n    print("refused:", type(e).__name__)\n',
      ),
      { text: 'No network.', expect: { tool_result_contains: 'refused:' } },
      py('import time\nopen("started.txt", "w").write("x")\ntime.sleep(60)', { timeout_ms: 90_000 }),
    ]);
    const t1 = await app.turn('Analyse the sales', {
      python: 'full',
      attachments: [{ name: 'sales.csv', media_type: 'text/csv', text: CSV }],
    });
    await expect.poll(() => app.requested.length, { timeout: 30_000 }).toBe(1);
    expect(app.requested[0]).toMatchObject({ tool: 'run_python', args: { code: ANALYSE } });
    expect(app.requested[0]!.description).toContain('Full Python');
    await app.ok('tools/answer-approval', { approval_id: app.requested[0]!.approval_id, decision: 'chat' });
    // The first run installs the environment (from the cache, or downloading once): minutes at worst.
    expect(await t1.finished).toMatchObject({ status: 'complete', text: 'Total 110.25.' });
    const [c1] = await callsOf(app, t1.session_id);
    expect(c1).toMatchObject({
      ok: true,
      result: { runtime: 'full', stdout: 'total 110.25 north 15.0\n', exception: null },
    });
    const written = (c1!.result!.files as Array<{ name: string; mime: string }>).map((f) => [f.name, f.mime]);
    expect(written).toEqual([
      ['by_region.csv', 'text/csv'],
      ['out/chart.png', 'image/png'],
    ]);
    const png = await app.ok<{ data_base64: string }>('chat/read-file', {
      session_id: t1.session_id,
      name: 'out/chart.png',
    });
    const bytes = Buffer.from(png.data_base64, 'base64');
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(bytes.length).toBeGreaterThan(5000);
    const listed = await app.ok<{ files: Array<{ name: string }> }>('chat/list-files', {
      session_id: t1.session_id,
    });
    expect(listed.files.map((f) => f.name)).toEqual(['by_region.csv', 'out/chart.png', 'sales.csv']);
    expect(app.tasks.at(-1)).toMatch(/^(done|running)/);

    const sid = t1.session_id;
    // The turn's runtime became the chat's: later turns name none.
    expect(await app.ok('python/get-runtime', { session_id: sid })).toMatchObject({
      runtime: 'full',
      from: 'chat',
      full: { installed: true, packages: ['pandas', 'matplotlib'] },
    });
    const t2 = await app.turn('West?', { session_id: sid });
    expect(await t2.finished).toMatchObject({ status: 'complete', text: 'West 45.' });
    expect(app.requested).toHaveLength(1);
    // display() saved the DataFrame as a table file of the chat, its named index a column.
    const c2 = (await callsOf(app, sid))[1]!;
    expect(String(c2.result!.stdout)).toContain(
      '[shown to the user as a table: out/by-region.csv, 4 rows x 2 columns]',
    );
    const table = await app.ok<{ data_base64: string }>('chat/read-file', {
      session_id: sid,
      name: 'out/by-region.csv',
    });
    expect(Buffer.from(table.data_base64, 'base64').toString()).toBe(
      'region,amount\neast,30.0\nnorth,15.0\nsouth,20.25\nwest,45.0\n',
    );

    const t3 = await app.turn('Loop', { session_id: sid });
    expect(await t3.finished).toMatchObject({ status: 'complete', text: 'Recovered.' });
    const c3 = (await callsOf(app, sid)).slice(2, 4);
    expect(c3[0]).toMatchObject({
      ok: false,
      result: { stopped: { code: 'SANDBOX_TIMEOUT', reason: 'time limit: stopped after 1500 ms' } },
    });
    expect(c3[1]).toMatchObject({ ok: true, result: { stdout: '45\n', exception: null } });

    const t4 = await app.turn('Fetch', { session_id: sid });
    expect(await t4.finished).toMatchObject({ status: 'complete' });
    const c4 = (await callsOf(app, sid))[4]!;
    expect(String(c4.result!.stdout)).toMatch(/^refused: /);

    const t5 = await app.turn('Sleep', { session_id: sid });
    await expect
      .poll(() => app.started.filter((s) => s.session_id === sid).length, { timeout: 30_000 })
      .toBe(6);
    const t0 = Date.now();
    expect(await app.ok('chat/cancel', { session_id: sid })).toEqual({ cancelled: true });
    expect((await t5.finished).status).toBe('partial');
    expect(Date.now() - t0).toBeLessThan(15_000);
    // Nothing of the cancelled run was kept.
    const after = await app.ok<{ files: Array<{ name: string }> }>('chat/list-files', { session_id: sid });
    expect(after.files.map((f) => f.name)).not.toContain('started.txt');
  }, 900_000);
});

/** A self-signed certificate for 127.0.0.1 (key, cert PEM), made by openssl; null without it. */
function selfSigned(): { key: string; cert: string } | null {
  const dir = tempDir();
  const r = spawnSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2'],
      ...['-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1'],
    ],
    { stdio: 'ignore' },
  );
  if (r.status !== 0) return null;
  return {
    key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
  };
}

describe.runIf(sandbox.ok)('Full Python’s network', () => {
  const tls = selfSigned();
  it.runIf(tls)(
    'reaches only the hosts the chat allows, over HTTPS through the proxy; a refused name is offered to allow',
    async () => {
      // 8 MiB, past the 5 MiB a host-call reply may carry: a Full Python download streams.
      const big = Buffer.alloc(8 * 1024 * 1024, 'a');
      const server = createHttpsServer({ key: tls!.key, cert: tls!.cert }, (req, res) =>
        res.end(req.url === '/big.csv' ? big : `served ${req.url}`),
      );
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
      const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
      const FETCH = `import ssl, urllib.request
ctx = ssl.create_default_context(cafile="cert.pem")
for url in ["https://${host}/rates.json", "https://api.example.com/v1"]:
    try:
        print(urllib.request.urlopen(url, context=ctx, timeout=20).read().decode())
    except Exception as e:
        print("refused:", e)
try:
    print("big", len(urllib.request.urlopen("https://${host}/big.csv", context=ctx, timeout=60).read()))
except Exception as e:
    print("big refused:", e)
`;
      // Only a small wheel of the lock: the network path needs no scientific stack.
      const { app } = await withProvider(
        [py(FETCH), { text: 'Refused.' }, py(FETCH), { text: 'Fetched.' }],
        'packaging',
      );
      const t1 = await app.turn('Fetch the rates', {
        python: 'full',
        attachments: [{ name: 'cert.pem', media_type: 'text/plain', text: tls!.cert }],
      });
      await expect.poll(() => app.requested.length, { timeout: 30_000 }).toBe(1);
      expect(app.requested[0]!.description).toContain('No network.');
      await app.ok('tools/answer-approval', { approval_id: app.requested[0]!.approval_id, decision: 'chat' });
      expect(await t1.finished).toMatchObject({ status: 'complete', text: 'Refused.' });
      const sid = t1.session_id;
      const [c1] = await callsOf(app, sid);
      expect(String(c1!.result!.stdout)).toContain(
        `refused: <urlopen error Tunnel connection failed: 403 run_python in this chat may not reach ${host}: it is not granted.`,
      );
      expect(String(c1!.result!.stdout)).toContain(
        `skilldesk python network allow api.example.com --chat ${sid}`,
      );
      // The chat's question offers the name, never the internal address.
      const requests = c1!.result!.requests as Array<Record<string, unknown>>;
      expect(requests.map((r) => r.refused_host)).toEqual([undefined, 'api.example.com', undefined]);

      await app.ok('python/set-network', { session_id: sid, hosts: [host] });
      const t2 = await app.turn('Again', { session_id: sid });
      expect(await t2.finished).toMatchObject({ status: 'complete', text: 'Fetched.' });
      const c2 = (await callsOf(app, sid))[1]!;
      expect(String(c2.result!.stdout)).toMatch(
        /^served \/rates\.json\nrefused: .*may not reach api\.example\.com.*\nbig 8388608\n/,
      );
      expect(c2.result!.requests).toEqual([
        expect.objectContaining({ method: 'CONNECT', url: `https://${host}`, status: 200 }),
        expect.objectContaining({ method: 'CONNECT', refused_host: 'api.example.com' }),
        expect.objectContaining({ method: 'CONNECT', url: `https://${host}`, status: 200 }),
      ]);
    },
    600_000,
  );
});

describe.runIf(sandbox.ok && findProgram('soffice') !== null)(
  'Full Python and the host’s document programs',
  () => {
    it('is told it may start LibreOffice, converts an attached document with it, and starts nothing else', async () => {
      const convert = [
        'import subprocess',
        "r = subprocess.run(['soffice', '--headless', '--convert-to', 'pdf', '--outdir', 'out', 'notes.txt'], capture_output=True, text=True, timeout=120)",
        "print(r.returncode, open('out/notes.pdf', 'rb').read(5))",
        'try:',
        "    subprocess.run(['od', '-c', 'notes.txt'], capture_output=True)",
        "    print('od ran')",
        'except PermissionError:',
        "    print('od refused')",
      ].join('\n');
      const { app, provider } = await withProvider(
        [
          { ...py(convert, { timeout_ms: 120_000 }), expect: { tools: ['run_python'] } },
          { text: 'Converted.', expect: { tool_result_contains: "0 b'%PDF-'" } },
        ],
        'pandas',
      );
      const t = await app.turn('Make a PDF of my notes', {
        python: 'full',
        attachments: [{ name: 'notes.txt', media_type: 'text/plain', text: 'Quarterly notes, kept.\n' }],
      });
      await expect.poll(() => app.requested.length, { timeout: 30_000 }).toBe(1);
      await app.ok('tools/answer-approval', { approval_id: app.requested[0]!.approval_id, decision: 'once' });
      expect(await t.finished).toMatchObject({ status: 'complete', text: 'Converted.' });
      const tools = (
        provider.requests[0]!.body as { tools?: Array<{ function?: { name: string; description: string } }> }
      ).tools;
      const described = tools?.find((x) => x.function?.name === 'run_python')?.function?.description ?? '';
      expect(described).toContain('Programs you may start with subprocess: soffice');
      const [c] = await callsOf(app, t.session_id);
      expect(String(c!.result!.stdout)).toBe("0 b'%PDF-'\nod refused\n");
      expect((c!.result!.files as Array<{ name: string }>).map((f) => f.name)).toContain('out/notes.pdf');
    }, 600_000);
  },
);

describe.runIf(!sandbox.ok)('Full Python without the OS sandbox', () => {
  it('refuses with the reason', async () => {
    const { app } = await withProvider([
      py('print(1)'),
      { text: 'Refused.', expect: { tool_result_contains: 'runs only inside the OS sandbox' } },
    ]);
    const t = await app.turn('Run', { python: 'full' });
    expect(await t.finished).toMatchObject({ text: 'Refused.' });
  }, 60_000);
});
