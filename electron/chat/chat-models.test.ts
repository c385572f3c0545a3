// Every model call of a chat turn reaches that chat's model — the reply, and the completions a
// DSPy module asks the sidecar for — checked against a provider that logs each request's model,
// with Settings' default on another model and two chats on two models running at once.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload, Req, Res } from '../contract/channels.js';
import { requestSchemas } from '../contract/channels.js';
import type { ChatModelChoice } from '../contract/chat.js';
import type { Host } from '../host.js';
import { createLlm, type LoopbackProvider, startLoopbackProvider } from '../llm/index.js';
import { SIDECAR_BINARY_NAME } from '../sidecar-client/index.js';
import { APP_ROOT, NO_VENV } from '../sidecar-client/test-lm.js';
import { tempDir, testHost } from '../test-support/index.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A stand-in for the DSPy sidecar, installed where a packaged app keeps its binary: it speaks the
 * real protocol, and each `execute` asks the main process for one completion (as DSPy's LM does),
 * waiting a moment so two chats' runs overlap.
 */
const FAKE_SIDECAR = `#!/usr/bin/env node
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const waiting = new Map();
let n = 0;
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.type === 'res') return waiting.get(m.id)?.(m);
  if (m.type !== 'req') return;
  if (m.method === 'version')
    return send({ type: 'res', id: m.id, result: { protocol: 1, sidecar: 'fake', python: '3', frozen: true,
      methods: ['ping', 'version', 'manifest', 'execute', 'optimize', 'cancel'], callbacks: ['lm.complete'],
      events: ['progress'], dspy: 'fake' } });
  if (m.method === 'execute') {
    const id = 'p' + ++n;
    waiting.set(id, (r) => setTimeout(() => send({ type: 'res', id: m.id, result: { template_id: m.params.template_id,
      outputs: { answer: r.result ? r.result.text : 'error: ' + r.error.message },
      usage: { lm_calls: 0, input_tokens: 0, output_tokens: 0 }, warnings: [] } }), 50));
    return send({ type: 'req', id, method: 'lm.complete', parent: m.id,
      params: { messages: [{ role: 'user', content: 'DSPY ' + JSON.stringify(m.params.params) }] } });
  }
  send({ type: 'res', id: m.id, error: { code: 'INVALID_INPUT', message: 'not faked: ' + m.method } });
});
`;

function installFakeSidecar(): string {
  const resources = tempDir('skilldesk-resources-');
  const dir = join(resources, SIDECAR_BINARY_NAME);
  mkdirSync(dir, { recursive: true });
  const bin = join(dir, process.platform === 'win32' ? `${SIDECAR_BINARY_NAME}.exe` : SIDECAR_BINARY_NAME);
  writeFileSync(bin, FAKE_SIDECAR);
  chmodSync(bin, 0o755);
  return resources;
}

const DSPY_SKILL = {
  name: 'Answer With DSPy',
  description: 'Answers a question with a DSPy program.',
  version: '1.0.0',
  artifacts: [
    {
      kind: 'dspy_module',
      name: 'Answer',
      ordinal: 0,
      content: JSON.stringify({ template_id: 'predict', signature: 'question -> answer' }),
      metadata: { fallback_artifact: 'Answer Prompt' },
    },
    { kind: 'prompt_template', name: 'Answer Prompt', ordinal: 1, content: 'Answer: {{ question }}' },
  ],
};

/** A reply every parser accepts: plain text for the chat, DSPy's field format for its adapters. */
const REPLY = '[[ ## answer ## ]]\nForty-two.\n\n[[ ## completed ## ]]';

async function setup(opts: { resourcesPath?: string; delay_ms?: number } = {}) {
  const provider: LoopbackProvider = await startLoopbackProvider({
    script: Array.from({ length: 40 }, () => ({ text: REPLY, delay_ms: opts.delay_ms ?? 0 })),
  });
  cleanups.push(() => provider.close());
  // Settings' model is `settings-model`; a chat's own choice is honoured.
  let settingsModel = 'settings-model';
  const host: Host = testHost({
    resourcesPath: opts.resourcesPath ?? installFakeSidecar(),
    llm: (choice?: ChatModelChoice) =>
      createLlm(
        { provider: 'openai', model: choice?.model ?? settingsModel, baseUrl: provider.url },
        { keys: { get: () => 'sk-test' } },
      ),
  });
  const call = async <C extends keyof typeof requestSchemas>(channel: C, req: Req<C>): Promise<Res<C>> =>
    (await host.handlers[channel](requestSchemas[channel].parse(req) as never, {
      transport: 'in-process',
    })) as Res<C>;
  await call('skills/import-packages', {
    packages: [{ file_name: 'dspy.json', package: DSPY_SKILL }],
    scope: 'account',
  });
  /** Send a message invoking the DSPy skill and wait for the reply to be stored. */
  const turn = async (req: Req<'chat/send-message'>) => {
    const id = `t${Math.random()}`;
    const done = new Promise<EventPayload<'chat/turn-finished'>>((resolve) => {
      let sid: string | null = null;
      const offStart = host.events.subscribe('chat/turn-started', (e) => {
        if (e.client_turn_id === id) sid = e.session_id;
      });
      const off = host.events.subscribe('chat/turn-finished', (e) => {
        if (e.session_id !== sid) return;
        off();
        offStart();
        resolve(e);
      });
    });
    const r = await call('chat/send-message', {
      ...req,
      client_turn_id: id,
      skill: { name: DSPY_SKILL.name, variables: { question: req.message } },
    });
    return { ...r, finished: await done };
  };
  /** The model of each provider request, split into DSPy's completions and the chat's replies. */
  const models = () => {
    const all = provider.requests.map((r) => {
      const body = r.body as { model: string; messages: Array<{ role: string; content: unknown }> };
      // The question a request answers is in its last user message (the system prompt may recall
      // the other chat's messages as memory).
      const asked = JSON.stringify(body.messages.filter((m) => m.role === 'user').at(-1)?.content);
      return { model: body.model, dspy: asked.includes('DSPY ') || asked.includes('question'), text: asked };
    });
    return all;
  };
  return {
    provider,
    host,
    call,
    turn,
    models,
    setSettingsModel: (m: string) => {
      settingsModel = m;
    },
  };
}

describe("a chat's model reaches every model call of its turn", () => {
  it("runs a DSPy module's completions on the chat's model, not Settings'", async () => {
    const app = await setup();
    const first = await app.turn({
      message: 'What is six times seven?',
      model: { provider: 'openai', model: 'chat-model-x' },
    });
    expect(first.finished.status).toBe('complete');
    expect(first.finished.model_id).toBe('openai:chat-model-x');
    const sent = app.models();
    expect(sent.filter((s) => s.dspy)).toHaveLength(1);
    expect(sent.map((s) => s.model)).toEqual(['chat-model-x', 'chat-model-x']);
    // The model given with the first message stays the chat's own.
    const s = await app.call('chat/get-session', { session_id: first.session_id });
    expect(s.session.model).toEqual({ provider: 'openai', model: 'chat-model-x' });
    // Settings changing between turns moves none of this chat's calls.
    app.setSettingsModel('settings-model-2');
    await app.turn({ message: 'And six times eight?', session_id: first.session_id });
    expect(app.models().map((m) => m.model)).toEqual(Array(4).fill('chat-model-x'));
  }, 60_000);

  it('keeps two chats on two models apart while they run at once, DSPy included', async () => {
    const app = await setup({ delay_ms: 60 });
    const [a, b] = await Promise.all([
      app.turn({ message: 'Question for A', model: { provider: 'openai', model: 'model-a' } }),
      app.turn({ message: 'Question for B', model: { provider: 'openai', model: 'model-b' } }),
    ]);
    expect([a.finished.status, b.finished.status]).toEqual(['complete', 'complete']);
    const sent = app.models();
    expect(sent).toHaveLength(4);
    for (const s of sent) {
      const mine = s.text.includes('Question for A') ? 'model-a' : 'model-b';
      expect(s.model, s.text.slice(0, 200)).toBe(mine);
    }
    expect(
      sent
        .filter((s) => s.dspy)
        .map((s) => s.model)
        .sort(),
    ).toEqual(['model-a', 'model-b']);
  }, 60_000);

  it.skipIf(NO_VENV !== undefined)(
    'does the same through the real DSPy sidecar',
    async () => {
      // No packaged binary: the sidecar/.venv one under the app root is found.
      const app = await setup({ resourcesPath: join(APP_ROOT, 'no-resources'), delay_ms: 30 });
      const [a, b] = await Promise.all([
        app.turn({ message: 'Question for A', model: { provider: 'openai', model: 'model-a' } }),
        app.turn({ message: 'Question for B', model: { provider: 'openai', model: 'model-b' } }),
      ]);
      expect([a.finished.status, b.finished.status]).toEqual(['complete', 'complete']);
      for (const t of [a, b]) {
        const s = await app.call('chat/get-session', { session_id: t.session_id });
        const ran = s.messages.at(-1)!.tool_calls[0]!.result as { outputs: Array<Record<string, unknown>> };
        // DSPy itself answered, not the fallback prompt.
        expect(ran.outputs[0]).toMatchObject({ ok: true, kind: 'dspy_module' });
        expect(ran.outputs[0]).not.toHaveProperty('fallback');
      }
      const sent = app.models();
      expect(sent.length).toBeGreaterThanOrEqual(4);
      for (const s of sent) {
        const mine = s.text.includes('Question for A') ? 'model-a' : 'model-b';
        expect(s.model).toBe(mine);
      }
    },
    180_000,
  );
});
