// `mode: llm` skills: the reference's three examples imported as Agent Skills folders and run with
// `skilldesk run-skill --input` against the loopback provider (scripted tool calls), the tool's
// Python running in the real sandbox; the argv rules; the import-time refusals.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startLoopbackProvider } from '../../llm/index.js';
import { runCli, tempDir } from '../../test-support/index.js';
import { buildArgv } from './argv.js';
import { LlmToolSchema, validateLlmAgent } from './schema.js';

const ASSISTANT = `---
name: assistant
description: A concise general assistant.
mode: llm
---
You are a concise, helpful assistant. Answer in plain text.
`;

const SITE_CHECKER = `---
name: site-checker
description: Ask about any website - the LLM checks its live status and explains it.
mode: llm
network: [HOSTPORT]
timeout_ms: 20000
tools:
  - name: check_status
    description: Check a website's live HTTP status. Returns JSON with url, status_code, response_time_ms, server.
    command: ['python3', 'check.py']
    parameters:
      - name: url
        description: URL to check (e.g. example.com)
        required: true
---
You are a website status assistant. When the user asks about a site, call
check_status with the URL, then explain the result in plain English.
`;

// Plain urllib, as a script written for a normal Python would be: the prelude routes it through
// the app's http_request.
const CHECK_PY = `import json, sys, time, urllib.request, urllib.error
url = sys.argv[1]
if not url.startswith("http"):
    url = "http://" + url
t0 = time.time()
try:
    with urllib.request.urlopen(url, timeout=10) as r:
        code, server = r.status, r.headers.get("Server")
except urllib.error.HTTPError as e:
    code, server = e.code, e.headers.get("Server")
except urllib.error.URLError as e:
    print(f"cannot reach {url}: {e.reason}", file=sys.stderr)
    sys.exit(2)
print(json.dumps({"url": url, "status_code": code, "response_time_ms": int((time.time() - t0) * 1000), "server": server}))
`;

const SUMMARIZER = `---
name: cheap-summarizer
description: Summarize text on a small, cheap model.
mode: llm
provider: openai
model: gpt-5-mini
max_tokens: 512
---
Summarize the input in 2-3 plain-text sentences.
`;

function folder(root: string, name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [p, text] of Object.entries(files)) writeFileSync(join(dir, p), text);
  return dir;
}

async function loopback(turns: unknown[]) {
  const p = await startLoopbackProvider({ script: turns as never });
  onTestFinished(() => p.close());
  return p;
}

describe('argv rules', () => {
  const tool = LlmToolSchema.parse({
    name: 'check',
    description: 'x',
    command: ['python3', 'c.py'],
    parameters: [
      { name: 'url', description: 'u', required: true },
      { name: 'depth', description: 'd', type: 'integer' },
      { name: 'mode', description: 'm' },
    ],
  });

  it('passes the first required parameter positionally and the others as --name value', () => {
    expect(buildArgv(tool, { url: 'example.com', mode: 'fast', depth: 2 })).toEqual({
      ok: true,
      argv: ['example.com', '--depth', '2', '--mode', 'fast'],
    });
    expect(buildArgv(tool, { url: 'example.com' })).toEqual({ ok: true, argv: ['example.com'] });
  });

  it('passes an optional first parameter as a flag', () => {
    const t = LlmToolSchema.parse({ ...tool, parameters: [{ name: 'q', description: 'q' }] });
    expect(buildArgv(t, { q: 'x' })).toEqual({ ok: true, argv: ['--q', 'x'] });
  });

  it('refuses a value starting with "-", a missing required one and an undeclared one', () => {
    const inj = buildArgv(tool, { url: '--help' });
    expect(inj.ok).toBe(false);
    expect(!inj.ok && inj.error).toMatch(/starts with "-"/);
    expect(buildArgv(tool, { url: 'a', mode: '-rf' }).ok).toBe(false);
    expect(buildArgv(tool, { mode: 'x' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/needs the argument "url"/),
    });
    expect(buildArgv(tool, { url: 'a', shell: 'x' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/no argument "shell"/),
    });
  });
});

describe('import checks', () => {
  const files = [{ kind: 'resource', name: 'check.py', content: 'print(1)', metadata: { path: 'check.py' } }];
  const issues = (metadata: Record<string, unknown>) =>
    validateLlmAgent({ kind: 'llm_agent', name: 'SKILL.md', content: 'x', metadata }, { artifacts: files });
  const tool = (command: string[]) => ({
    tools: [{ name: 't', description: 'd', command, parameters: [] }],
  });

  it('accepts python, python3 and python3.x with a .py file of the skill', () => {
    for (const py of ['python', 'python3', 'python3.12']) expect(issues(tool([py, 'check.py']))).toEqual([]);
    expect(issues(tool(['python3', './check.py']))).toEqual([]);
  });

  it('refuses any other command by name, with why', () => {
    const r = issues(tool(['bash', '-c', 'curl evil']));
    expect(r[0]).toMatchObject({ path: ['metadata', 'tools', 0, 'command', 0] });
    expect(r[0]!.message).toMatch(/"bash" cannot run.*never runs as a native program/);
    expect(issues(tool(['python3', '-c', 'import os']))[0]!.message).toMatch(/interpreter options/);
    expect(issues(tool(['python3', 'missing.py']))[0]!.message).toMatch(/not a .py file of this skill/);
  });

  it('refuses a tool_env naming a provider key, and unknown fields by name', () => {
    const r = issues({ tool_env: ['WEATHER_API_KEY', 'OPENAI_API_KEY'] });
    expect(r).toEqual([
      {
        path: ['metadata', 'tool_env', 1],
        message: expect.stringMatching(/OPENAI_API_KEY is a model provider's key/),
      },
    ]);
    expect(issues({ tool_env: ['ANTHROPIC_API_KEY'] })).toHaveLength(1);
    expect(issues({ max_tool_round: 3 })[0]!.message).toMatch(/unknown key "max_tool_round"/);
    expect(issues({ provider: 'acme' })[0]!.path).toEqual(['metadata', 'provider']);
  });
});

describe('skilldesk run-skill with mode: llm skills', () => {
  let site: Server;
  let hostport = '';
  const hits: string[] = [];
  beforeAll(async () => {
    site = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/moved') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        res.end();
        return;
      }
      res.writeHead(200, { server: 'TinyTest/1.0', 'content-type': 'text/plain' });
      res.end('hello');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    hostport = `127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => site.close(() => r())));

  const setup = async () => {
    const dir = tempDir();
    const home = join(dir, 'home');
    const run = (...a: string[]) => runCli(['--home', home, ...a], { OPENAI_API_KEY: 'sk-loopback' });
    for (const d of [
      folder(dir, 'assistant', { 'SKILL.md': ASSISTANT }),
      folder(dir, 'site-checker', {
        'SKILL.md': SITE_CHECKER.replace('HOSTPORT', hostport),
        'check.py': CHECK_PY,
      }),
      folder(dir, 'cheap-summarizer', { 'SKILL.md': SUMMARIZER }),
    ]) {
      const r = await run('skills', 'import', d);
      expect(r.code, r.stderr + r.stdout).toBe(0);
    }
    return { dir, home, run };
  };
  const flags = (url: string) => ['--provider', 'openai', '--base-url', url, '--model', 'chat-model'];

  it('runs a pure-prompt skill: the body is the system prompt, the input the user message', async () => {
    const { run } = await setup();
    const p = await loopback([
      {
        text: 'Hamlet avenges his father and dies.',
        expect: {
          system_contains: 'concise, helpful assistant',
          last_user_contains: 'Summarize the plot of Hamlet',
        },
      },
    ]);
    const r = await run(
      '--json',
      'run-skill',
      'assistant',
      '--input',
      'Summarize the plot of Hamlet.',
      ...flags(p.url),
    );
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const out = r.json();
    expect(out.results).toHaveLength(1);
    expect(out.results[0]).toMatchObject({
      kind: 'llm_agent',
      ok: true,
      text: 'Hamlet avenges his father and dies.',
    });
    expect(p.requests[0]!.body).toMatchObject({ model: 'chat-model' });
  });

  it('runs the site checker: the tool call runs check.py in the sandbox against a granted local server', async () => {
    const { run } = await setup();
    expect((await run('skills', 'grant', 'site-checker', hostport)).code).toBe(0);
    const p = await loopback([
      {
        tool_calls: [{ name: 'check_status', arguments: { url: `http://${hostport}/` } }],
        expect: { tools: ['check_status'] },
      },
      { text: 'The site is up (200, TinyTest).', expect: { tool_result_contains: '"status_code": 200' } },
    ]);
    const before = hits.length;
    const r = await run('--json', 'run-skill', 'site-checker', '--input', 'Is my site up?', ...flags(p.url));
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const res = r.json().results[0];
    expect(res).toMatchObject({ ok: true, text: 'The site is up (200, TinyTest).' });
    expect(hits.length).toBe(before + 1);
    const steps = res.data.steps as Array<Record<string, unknown>>;
    expect(steps.map((s) => s.type)).toEqual(['model', 'http', 'tool', 'model']);
    expect(steps[1]).toMatchObject({ type: 'http', method: 'GET', status: 200, bytes: 5 });
    expect(steps[2]).toMatchObject({ type: 'tool', argv: [`http://${hostport}/`], exit_code: 0 });
    expect(String(steps[2]!.result)).toContain('TinyTest/1.0');
  }, 120_000);

  it('refuses an ungranted host, and a redirect to an ungranted address; the error reaches the model', async () => {
    const { run } = await setup();
    const p = await loopback([
      { tool_calls: [{ name: 'check_status', arguments: { url: `http://${hostport}/` } }] },
      {
        tool_calls: [{ name: 'check_status', arguments: { url: '--version' } }],
        expect: { tool_result_contains: 'not granted' },
      },
      { text: 'I may not check that site.', expect: { tool_result_contains: 'starts with "-"' } },
    ]);
    const r = await run('--json', 'run-skill', 'site-checker', '--input', 'Is it up?', ...flags(p.url));
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const steps = r.json().results[0].data.steps as Array<Record<string, unknown>>;
    const tool = steps.find((s) => s.type === 'tool')!;
    expect(tool).toMatchObject({ ok: false, exit_code: 2 });
    expect(String(tool.result)).toMatch(
      /may not reach 127\.0\.0\.1:\d+: it is not granted.*skills grant "site-checker"/,
    );

    expect((await run('skills', 'grant', 'site-checker', hostport)).code).toBe(0);
    const p2 = await loopback([
      { tool_calls: [{ name: 'check_status', arguments: { url: `http://${hostport}/moved` } }] },
      { text: 'It redirects somewhere I may not go.', expect: { tool_result_contains: '169.254.169.254' } },
    ]);
    const r2 = await run('--json', 'run-skill', 'site-checker', '--input', 'Is it up?', ...flags(p2.url));
    expect(r2.code, r2.stderr + r2.stdout).toBe(0);
    const steps2 = r2.json().results[0].data.steps as Array<Record<string, unknown>>;
    expect(steps2.filter((s) => s.type === 'http')).toEqual([
      expect.objectContaining({ status: 302, url: `http://${hostport}/moved` }),
      expect.objectContaining({ status: null, url: 'http://169.254.169.254/latest/meta-data/' }),
    ]);
  }, 120_000);

  it('gives up after max_tool_rounds', async () => {
    const { dir, run } = await setup();
    const d = folder(dir, 'looper', {
      'SKILL.md': SITE_CHECKER.replace('name: site-checker', 'name: looper')
        .replace('HOSTPORT', hostport)
        .replace('timeout_ms: 20000', 'max_tool_rounds: 1'),
      'check.py': 'import sys\nprint("fine", sys.argv[1])\n',
    });
    expect((await run('skills', 'import', d)).code).toBe(0);
    const call = { tool_calls: [{ name: 'check_status', arguments: { url: 'a.example' } }] };
    const p = await loopback([call, { ...call, expect: { tool_result_contains: 'fine a.example' } }]);
    const r = await run('--json', 'run-skill', 'looper', '--input', 'loop', ...flags(p.url));
    expect(r.code).toBe(1);
    const res = r.json().results[0];
    expect(res.ok).toBe(false);
    expect(res.error.message).toMatch(/still calling tools after 1 round \(max_tool_rounds\)/);
    expect(p.requests).toHaveLength(2);
  }, 120_000);

  it("runs the summarizer on its own model on the run's provider", async () => {
    const { run } = await setup();
    const p = await loopback([
      { text: 'A short summary.', expect: { model: 'gpt-5-mini', system_contains: 'Summarize the input' } },
    ]);
    const r = await run('--json', 'run-skill', 'cheap-summarizer', '--input', 'Long text …', ...flags(p.url));
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.json().results[0]).toMatchObject({
      ok: true,
      text: 'A short summary.',
      model_id: 'openai:gpt-5-mini',
    });
    const body = p.requests[0]!.body as Record<string, unknown>;
    expect(body.model).toBe('gpt-5-mini');
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(512);
  });

  it('says what to set when the skill names a provider that is not set up', async () => {
    const { home } = await setup();
    const p = await loopback([]);
    // No OpenAI key anywhere: the run's own provider is Anthropic (the loopback).
    const r = await runCli(
      [
        '--home',
        home,
        '--json',
        'run-skill',
        'cheap-summarizer',
        '--input',
        'x',
        '--provider',
        'anthropic',
        '--base-url',
        p.url,
        '--model',
        'm',
      ],
      { ANTHROPIC_API_KEY: 'sk-loopback' },
    );
    expect(r.code).toBe(1);
    expect(r.json().results[0].error.message).toMatch(/runs on OpenAI.*OPENAI_API_KEY/);
    expect(p.requests).toHaveLength(0);
  });

  it('gives a tool only the secrets its tool_env opts in, and refuses a provider key as a secret', async () => {
    const { dir, home, run } = await setup();
    const d = folder(dir, 'weather', {
      'SKILL.md': `---
name: weather
description: Weather by city.
mode: llm
tool_env: [WEATHER_API_KEY]
tools:
  - name: weather
    description: Look up the weather for a city.
    command: ['python3', 'weather.py']
    parameters:
      - name: city
        description: City name
        required: true
---
Answer with the weather.
`,
      'weather.py':
        'import json, os, sys\nprint(json.dumps({"city": sys.argv[1], "env": dict(os.environ)}))\n',
    });
    expect((await run('skills', 'import', d)).code).toBe(0);
    const refused = await runCli(
      ['--home', home, 'skills', 'secret', 'set', 'weather', 'WEATHER_API_KEY'],
      { OPENAI_API_KEY: 'sk-loopback' },
      'sk-loopback\n',
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/one of your model provider keys/);
    const byName = await runCli(
      ['--home', home, 'skills', 'secret', 'set', 'weather', 'OPENAI_API_KEY'],
      {},
      'x\n',
    );
    expect(byName.code).toBe(1);
    expect(byName.stderr).toMatch(/OPENAI_API_KEY is a model provider's key name/);
    const stored = await runCli(
      ['--home', home, 'skills', 'secret', 'set', 'weather', 'WEATHER_API_KEY'],
      {},
      'w-123\n',
    );
    expect(stored.code, stored.stderr).toBe(0);
    const p = await loopback([
      { tool_calls: [{ name: 'weather', arguments: { city: 'Oslo' } }] },
      { text: 'Cold.', expect: { tool_result_contains: 'w-123' } },
    ]);
    const r = await run('--json', 'run-skill', 'weather', '--input', 'Weather in Oslo?', ...flags(p.url));
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const tool = (r.json().results[0].data.steps as Array<Record<string, unknown>>).find(
      (x) => x.type === 'tool',
    )!;
    const seenEnv = JSON.parse(String(tool.result)).env as Record<string, string>;
    expect(seenEnv.WEATHER_API_KEY).toBe('w-123');
    expect(Object.values(seenEnv)).not.toContain('sk-loopback');
    expect(Object.keys(seenEnv).some((k) => k.includes('OPENAI'))).toBe(false);
  }, 120_000);

  it("runs from the chat: the chat's model hands the request over with apply_skill and gets the answer back", async () => {
    const { run } = await setup();
    const p = await loopback([
      {
        tool_calls: [
          { name: 'apply_skill', arguments: { name: 'assistant', ctx: { input: 'Plot of Hamlet?' } } },
        ],
      },
      {
        text: 'Hamlet avenges his father.',
        expect: { system_contains: 'concise, helpful assistant', last_user_contains: 'Plot of Hamlet?' },
      },
      {
        text: 'The assistant says: Hamlet avenges his father.',
        expect: { tool_result_contains: 'Hamlet avenges his father.' },
      },
    ]);
    const r = await run('chat', 'Ask the assistant about Hamlet', '--yes', ...flags(p.url));
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain('The assistant says: Hamlet avenges his father.');
    expect(p.remaining()).toBe(0);
  }, 120_000);

  it('exports an LLM skill as an Agent Skills folder and a JSON package that import back the same', async () => {
    const { dir, run } = await setup();
    const out = join(dir, 'exported');
    const e = await run('skills', 'export', 'site-checker', '--format', 'agent-skill', '-o', out);
    expect(e.code, e.stderr).toBe(0);
    const md = readFileSync(join(out, 'SKILL.md'), 'utf8');
    expect(md).toMatch(/mode: llm/);
    expect(md).toMatch(/check_status/);
    expect(readFileSync(join(out, 'check.py'), 'utf8')).toBe(CHECK_PY);
    const json = (await run('--json', 'skills', 'export', 'site-checker')).json() as {
      artifacts: Array<Record<string, unknown>>;
    };
    const agent = json.artifacts.find((a) => a.kind === 'llm_agent')!;
    expect(agent.metadata).toMatchObject({
      network: [hostport],
      tools: [{ name: 'check_status', command: ['python3', 'check.py'] }],
    });
    // Into another home: the folder and the JSON package give the same settings.
    const other = join(dir, 'other');
    const imported = await runCli(['--home', other, 'skills', 'import', out]);
    expect(imported.code).toBe(0);
    // The hosts it asks for are shown at install, with how to grant them.
    expect(imported.stderr).toContain(
      `its tools ask to reach ${hostport}; nothing is reachable until you grant it`,
    );
    const back = (
      await runCli(['--home', other, '--json', 'skills', 'export', 'site-checker'])
    ).json() as typeof json;
    expect(back.artifacts.find((a) => a.kind === 'llm_agent')!.metadata).toEqual(agent.metadata);
    writeFileSync(join(dir, 'pkg.json'), JSON.stringify({ ...json, id: undefined }));
    const third = join(dir, 'third');
    const j = await runCli(['--home', third, 'skills', 'import', join(dir, 'pkg.json')]);
    expect(j.code, j.stderr + j.stdout).toBe(0);
  });

  it('refuses, at import, a tool command that is not Python or a component, naming it', async () => {
    const { dir, run } = await setup();
    const d = folder(dir, 'shell-tool', {
      'SKILL.md': SITE_CHECKER.replace('name: site-checker', 'name: shell-tool')
        .replace('HOSTPORT', hostport)
        .replace("['python3', 'check.py']", "['bash', 'check.sh']"),
      'check.sh': 'curl "$1"\n',
    });
    const r = await run('skills', 'import', d);
    expect(r.code).toBe(2);
    expect(r.stderr + r.stdout).toMatch(
      /tools\[0\]\.command\[0\].*"bash" cannot run.*never runs as a native program/s,
    );
    const key = folder(dir, 'leaky', {
      'SKILL.md': ASSISTANT.replace('name: assistant', 'name: leaky').replace(
        'mode: llm',
        'mode: llm\ntool_env: [ANTHROPIC_API_KEY]',
      ),
    });
    const k = await run('skills', 'import', key);
    expect(k.code).toBe(2);
    expect(k.stderr + k.stdout).toMatch(/tool_env\[0\].*ANTHROPIC_API_KEY is a model provider's key/s);
  });
});
