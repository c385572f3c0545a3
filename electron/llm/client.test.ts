import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../contract/errors.js';
import {
  createLlm,
  envKeySource,
  type KeySource,
  type LlmEvent,
  type LlmRequest,
  type LoopbackProvider,
  type LoopbackScriptInput,
  type ProviderId,
  startLoopbackProvider,
} from './index.js';

const SECRET = 'sk-test-secret-0123456789';
const keys: KeySource = { get: () => SECRET };

const servers: LoopbackProvider[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(script: LoopbackScriptInput): Promise<LoopbackProvider> {
  const s = await startLoopbackProvider({ script });
  servers.push(s);
  return s;
}

async function collect(events: AsyncIterable<LlmEvent>): Promise<LlmEvent[]> {
  const out: LlmEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected the call to fail');
}

const TOOLS = [
  {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  { name: 'lookup', description: 'Look something up', parameters: { type: 'object', properties: {} } },
];

const MODELS = { openai: 'gpt-4.1-mini', anthropic: 'claude-sonnet-4-5' } as const;

describe.each(['openai', 'anthropic'] as const)('%s wire format through the AI SDK', (provider) => {
  const llmFor = (server: LoopbackProvider, model: string = MODELS[provider]) =>
    createLlm({ provider, model, baseUrl: server.url }, { keys });

  /** The system prompt and messages as the server received them, format-independent. */
  function received(server: LoopbackProvider, i = 0) {
    const body = server.requests[i]!.body as Record<string, unknown>;
    const messages = body.messages as Array<Record<string, unknown>>;
    if (provider === 'openai') {
      return {
        system: messages.filter((m) => m.role === 'system').map((m) => m.content),
        turns: messages.filter((m) => m.role !== 'system'),
        tools: ((body.tools ?? []) as Array<{ function: { name: string; parameters: unknown } }>).map(
          (t) => ({
            name: t.function.name,
            schema: t.function.parameters,
          }),
        ),
        body,
      };
    }
    return {
      system: ((body.system ?? []) as Array<{ text: string }>).map((b) => b.text),
      turns: messages,
      tools: ((body.tools ?? []) as Array<{ name: string; input_schema: unknown }>).map((t) => ({
        name: t.name,
        schema: t.input_schema,
      })),
      body,
    };
  }

  it('generates text with usage and cost, and the request carries system, messages and model', async () => {
    const server = await serve([
      {
        text: 'Hello from the loopback.',
        usage: { input_tokens: 1000, output_tokens: 2000 },
        expect: { format: provider },
      },
    ]);
    const r = await llmFor(server).generate({
      system: 'You are terse.',
      messages: [
        { role: 'user', content: 'First question' },
        { role: 'assistant', content: 'First answer' },
        { role: 'user', content: 'Say hello' },
      ],
      maxOutputTokens: 300,
    });
    expect(r).toMatchObject({
      text: 'Hello from the loopback.',
      tool_calls: [],
      usage: { input_tokens: 1000, output_tokens: 2000 },
      finish_reason: 'stop',
      provider,
      model: MODELS[provider],
    });
    // openai gpt-4.1-mini: 0.4/1.6 per Mtok; anthropic claude-sonnet-4-5: 3/15 per Mtok.
    expect(r.estimated_cost).toBeCloseTo(provider === 'openai' ? 0.0036 : 0.033, 10);

    const got = received(server);
    expect(got.system).toEqual(['You are terse.']);
    expect(got.turns.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(got.turns.at(-1))).toContain('Say hello');
    expect(got.body.model).toBe(MODELS[provider]);
    expect(got.body.stream ?? false).toBe(false);
    expect(got.body.max_tokens).toBe(300);
  });

  it('never lets the API key into the recorded requests', async () => {
    const server = await serve([{ text: 'ok' }]);
    await llmFor(server).generate({ messages: [{ role: 'user', content: 'hi' }] });
    const rec = server.requests[0]!;
    expect(rec.headers[provider === 'openai' ? 'authorization' : 'x-api-key']).toBe('[redacted]');
    expect(JSON.stringify(server.requests)).not.toContain(SECRET);
    if (provider === 'anthropic') expect(rec.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('returns tool calls without running them, and the tools reach the server', async () => {
    const server = await serve([
      {
        text: 'Let me check.',
        tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }],
        expect: { tools: ['get_weather', 'lookup'] },
      },
    ]);
    const r = await llmFor(server).generate({
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: TOOLS,
    });
    expect(r.text).toBe('Let me check.');
    expect(r.tool_calls).toEqual([{ id: 'call_1', name: 'get_weather', args: { city: 'Paris' } }]);
    expect(r.finish_reason).toBe('tool-calls');
    expect(received(server).tools).toEqual([
      { name: 'get_weather', schema: expect.objectContaining({ properties: { city: { type: 'string' } } }) },
      { name: 'lookup', schema: expect.objectContaining({ type: 'object' }) },
    ]);
  });

  it('streams text deltas, then one finish event with usage and cost', async () => {
    const server = await serve([
      { text: ['Hel', 'lo, ', 'world', '!'], usage: { input_tokens: 7, output_tokens: 4 } },
    ]);
    const events = await collect(llmFor(server).stream({ messages: [{ role: 'user', content: 'hi' }] }));
    expect(events.filter((e) => e.type === 'text-delta').map((e) => e.text)).toEqual([
      'Hel',
      'lo, ',
      'world',
      '!',
    ]);
    expect(events.at(-1)).toMatchObject({
      type: 'finish',
      usage: { input_tokens: 7, output_tokens: 4 },
      finish_reason: 'stop',
      estimated_cost: expect.any(Number),
    });
    expect(events.filter((e) => e.type === 'finish')).toHaveLength(1);
    expect(server.requests[0]!.stream).toBe(true);
    if (provider === 'openai') {
      expect(server.requests[0]!.body).toMatchObject({ stream_options: { include_usage: true } });
    }
  });

  it('streams several tool calls whose arguments arrive in many fragments', async () => {
    const server = await serve([
      {
        text: 'Checking both.',
        tool_calls: [
          { id: 'call_a', name: 'get_weather', argument_chunks: ['{"ci', 'ty": "Pa', 'ris', '"}'] },
          {
            id: 'call_b',
            name: 'lookup',
            arguments: { query: 'a fairly long query string that spans fragments' },
          },
        ],
        usage: { input_tokens: 20, output_tokens: 30 },
      },
    ]);
    const events = await collect(
      llmFor(server).stream({ messages: [{ role: 'user', content: 'Weather?' }], tools: TOOLS }),
    );
    const calls = events.filter((e) => e.type === 'tool-call');
    expect(calls).toEqual([
      { type: 'tool-call', id: 'call_a', name: 'get_weather', args: { city: 'Paris' } },
      {
        type: 'tool-call',
        id: 'call_b',
        name: 'lookup',
        args: { query: 'a fairly long query string that spans fragments' },
      },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finish_reason: 'tool-calls' });
  });

  it('sends earlier tool calls and their results back in the wire format', async () => {
    const server = await serve([{ text: 'It is sunny.', expect: { tool_result_contains: 'sunny, 21C' } }]);
    const r = await llmFor(server).generate({
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'call_1', name: 'get_weather', args: { city: 'Paris' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', name: 'get_weather', content: 'sunny, 21C' },
      ],
      tools: TOOLS,
    });
    expect(r.text).toBe('It is sunny.');
    const turns = received(server).turns;
    if (provider === 'openai') {
      expect(turns[1]).toMatchObject({
        role: 'assistant',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      });
      expect(turns[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_1', content: 'sunny, 21C' });
    } else {
      expect(turns[1]).toMatchObject({
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }],
      });
      expect(turns[2]).toMatchObject({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'sunny, 21C' }],
      });
    }
  });

  it.each([
    [401, 'LLM_FAILED'],
    [429, 'LLM_RATE_LIMITED'],
    [500, 'LLM_FAILED'],
  ] as const)('maps HTTP %i to %s, once, with the provider message', async (status, code) => {
    const message = `scripted failure ${status}`;
    const server = await serve([
      { status, error: { message }, headers: { 'retry-after': '7' } },
      { status, error: { message } },
    ]);
    const llm = llmFor(server);
    const err = await rejection(llm.generate({ messages: [{ role: 'user', content: 'hi' }] }));
    expect(err.code).toBe(code);
    expect(err.message).toContain(message);
    expect(err.details).toMatchObject({ provider, status });
    if (status === 429) expect(err.details?.retryAfter).toBe('7');

    const events = await collect(llm.stream({ messages: [{ role: 'user', content: 'hi' }] }));
    expect(events).toEqual([
      { type: 'error', error: expect.objectContaining({ code, message: err.message }) },
    ]);
    // maxRetries: 0 — one request per call, no hidden retries.
    expect(server.requests).toHaveLength(2);
  });

  it('reports an error sent inside the stream after some text', async () => {
    const server = await serve([
      {
        text: 'partial answer',
        stream_error: {
          message: 'Overloaded right now',
          type: provider === 'openai' ? 'server_error' : 'overloaded_error',
        },
      },
    ]);
    const events = await collect(llmFor(server).stream({ messages: [{ role: 'user', content: 'hi' }] }));
    expect(events.filter((e) => e.type === 'text-delta').length).toBeGreaterThan(0);
    const last = events.at(-1);
    expect(last?.type).toBe('error');
    expect(last?.type === 'error' && last.error.code).toBe('LLM_FAILED');
    expect(last?.type === 'error' && last.error.message).toContain('Overloaded right now');
    expect(events.some((e) => e.type === 'finish')).toBe(false);
  });

  it('times out a call the server never answers', async () => {
    const server = await serve([{ hang: true }, { hang: true }]);
    const llm = llmFor(server);
    const err = await rejection(llm.generate({ messages: [{ role: 'user', content: 'hi' }], timeoutMs: 50 }));
    expect(err.code).toBe('LLM_TIMEOUT');
    const events = await collect(llm.stream({ messages: [{ role: 'user', content: 'hi' }], timeoutMs: 50 }));
    expect(events).toEqual([{ type: 'error', error: expect.objectContaining({ code: 'LLM_TIMEOUT' }) }]);
  });

  it('cancels mid-stream through the AbortSignal', async () => {
    const server = await serve([{ text: 'one two three four', hang_after: 1 }]);
    const controller = new AbortController();
    const events: LlmEvent[] = [];
    for await (const e of llmFor(server).stream({
      messages: [{ role: 'user', content: 'hi' }],
      signal: controller.signal,
    })) {
      events.push(e);
      if (e.type === 'text-delta') controller.abort();
    }
    expect(events).toEqual([
      { type: 'text-delta', text: 'one ' },
      { type: 'error', error: expect.objectContaining({ code: 'CANCELLED' }) },
    ]);
    await vi.waitFor(() => expect(server.requests[0]!.client_closed).toBe(true));
  });

  it('cancels a non-streamed call and refuses one whose signal is already aborted', async () => {
    const server = await serve([{ hang: true }]);
    const llm = llmFor(server);
    const controller = new AbortController();
    const pending = llm.generate({ messages: [{ role: 'user', content: 'hi' }], signal: controller.signal });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    controller.abort();
    expect((await rejection(pending)).code).toBe('CANCELLED');

    const err = await rejection(
      llm.generate({ messages: [{ role: 'user', content: 'hi' }], signal: controller.signal }),
    );
    expect(err.code).toBe('CANCELLED');
    expect(server.requests).toHaveLength(1);
  });

  it('aborts the HTTP request when the consumer stops iterating early', async () => {
    const server = await serve([{ text: 'one two three', hang_after: 1 }]);
    for await (const e of llmFor(server).stream({ messages: [{ role: 'user', content: 'hi' }] })) {
      if (e.type === 'text-delta') break;
    }
    await vi.waitFor(() => expect(server.requests[0]!.client_closed).toBe(true));
  });

  it('gives a null cost for a model without a price', async () => {
    const server = await serve([{ text: 'ok' }]);
    const r = await llmFor(server, 'some-unpriced-model').generate({
      messages: [{ role: 'user', content: 'hi' }],
      maxOutputTokens: 100,
    });
    expect(r.estimated_cost).toBeNull();
    expect((server.requests[0]!.body as { model: string }).model).toBe('some-unpriced-model');
  });
});

describe('provider setup', () => {
  it('fails with LLM_MISSING_KEY naming the variable only when a call is made', async () => {
    const server = await serve([{ text: 'never sent' }]);
    // Creating the client succeeds without a key.
    const llm = createLlm({ provider: 'anthropic', baseUrl: server.url }, { keys: envKeySource({}) });
    const err = await rejection(llm.generate({ messages: [{ role: 'user', content: 'hi' }] }));
    expect(err.code).toBe('LLM_MISSING_KEY');
    expect(err.message).toContain('ANTHROPIC_API_KEY');
    const events = await collect(llm.stream({ messages: [{ role: 'user', content: 'hi' }] }));
    expect(events).toEqual([{ type: 'error', error: expect.objectContaining({ code: 'LLM_MISSING_KEY' }) }]);
    expect(server.requests).toHaveLength(0);
  });

  it('uses the key from the environment source', async () => {
    const server = await startLoopbackProvider({
      script: { turns: [{ text: 'authorised' }], api_key: SECRET },
    });
    servers.push(server);
    const llm = createLlm(
      { provider: 'openai', baseUrl: server.url },
      { keys: envKeySource({ OPENAI_API_KEY: SECRET }) },
    );
    expect((await llm.generate({ messages: [{ role: 'user', content: 'hi' }] })).text).toBe('authorised');
  });

  it.each([
    // A local server's model is one its /models lists; none is ever invented.
    ['openai-compatible', 'local-model'],
    ['deepseek', 'deepseek-chat'],
    ['xai', 'grok-4'],
  ] as const)('%s speaks the OpenAI wire format to the base URL', async (provider, model) => {
    const server = await serve([
      // xAI streams each tool call whole; the others get OpenAI's fragments.
      {
        text: 'compatible',
        tool_calls: [{ name: 'lookup', arguments: { q: 1 } }],
        whole_tool_calls: provider === 'xai',
      },
    ]);
    const noKey = provider === 'openai-compatible';
    const llm = createLlm(
      { provider, model, baseUrl: server.url },
      { keys: noKey ? envKeySource({}) : keys },
    );
    const events = await collect(llm.stream({ messages: [{ role: 'user', content: 'hi' }], tools: TOOLS }));
    expect(events.filter((e) => e.type === 'text-delta').map((e) => e.text)).toEqual(['compatible']);
    expect(events.find((e) => e.type === 'tool-call')).toMatchObject({ name: 'lookup', args: { q: 1 } });
    expect(events.at(-1)).toMatchObject({ type: 'finish', finish_reason: 'tool-calls' });
    const rec = server.requests[0]!;
    expect(rec.kind).toBe('openai');
    expect(rec.path).toBe('/v1/chat/completions');
    // A local server needs no key: no Authorization header at all.
    expect('authorization' in rec.headers).toBe(!noKey);
  });

  it('google calls the Gemini API with its key header (stubbed fetch, no network)', async () => {
    const seen: Array<{ url: string; headers: Headers; body: unknown }> = [];
    const fetch = async (url: string | URL | Request, init?: RequestInit) => {
      seen.push({
        url: String(url),
        headers: new Headers(init?.headers),
        body: JSON.parse(String(init?.body)),
      });
      const body = {
        candidates: [
          { content: { role: 'model', parts: [{ text: 'Gemini says hi' }] }, finishReason: 'STOP', index: 0 },
        ],
        usageMetadata: { promptTokenCount: 1000, candidatesTokenCount: 1000, totalTokenCount: 2000 },
      };
      return new Response(JSON.stringify(body), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    };
    const r = await createLlm({ provider: 'google' }, { keys, fetch }).generate({
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(r).toMatchObject({
      text: 'Gemini says hi',
      usage: { input_tokens: 1000, output_tokens: 1000 },
      finish_reason: 'stop',
    });
    expect(r.estimated_cost).toBeCloseTo(0.0028, 10);
    expect(seen[0]!.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
    );
    expect(seen[0]!.headers.get('x-goog-api-key')).toBe(SECRET);
    expect(seen[0]!.body).toMatchObject({ systemInstruction: { parts: [{ text: 'Be brief.' }] } });
  });

  it('flags tool calls with unparsable arguments or unknown tools instead of failing', async () => {
    const server = await serve([
      {
        tool_calls: [
          { id: 'c1', name: 'get_weather', arguments: '{"city": "Par' },
          { id: 'c2', name: 'no_such_tool', arguments: {} },
        ],
      },
    ]);
    const llm = createLlm({ provider: 'openai', baseUrl: server.url }, { keys });
    const events = await collect(llm.stream({ messages: [{ role: 'user', content: 'hi' }], tools: TOOLS }));
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([
      expect.objectContaining({
        id: 'c1',
        name: 'get_weather',
        args: '{"city": "Par',
        invalid: true,
        error: expect.any(String),
      }),
      expect.objectContaining({
        id: 'c2',
        name: 'no_such_tool',
        invalid: true,
        error: expect.stringContaining('no_such_tool'),
      }),
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finish_reason: 'tool-calls' });
  });

  it('rejects an invalid config up front', () => {
    expect(() => createLlm({ provider: 'openai-compatible' }, { keys })).toThrow(/base URL/);
    expect(() => createLlm({ provider: 'nope' as ProviderId }, { keys })).toThrow(AppError);
  });

  it('hands SDK warnings to onWarning instead of printing them', async () => {
    const server = await serve([{ text: 'ok' }, { text: 'ok' }]);
    const warnings: string[] = [];
    const info = vi.spyOn(console, 'info');
    const warn = vi.spyOn(console, 'warn');
    // An unknown Anthropic model makes the SDK warn about its output-token limit.
    const llm = createLlm(
      { provider: 'anthropic', model: 'unknown-model', baseUrl: server.url },
      { keys, onWarning: (w) => warnings.push(w) },
    );
    await llm.generate({ messages: [{ role: 'user', content: 'hi' }] });
    await collect(llm.stream({ messages: [{ role: 'user', content: 'hi' }] }));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^Anthropic \(unknown-model\): compatibility maxOutputTokens/);
    expect(info).not.toHaveBeenCalled();
    expect(warn).not.toHaveBeenCalled();
    info.mockRestore();
    warn.mockRestore();
  });

  it('passes request options through', async () => {
    const server = await serve([{ text: 'ok' }]);
    const req: LlmRequest = {
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0.25,
      maxOutputTokens: 42,
    };
    await createLlm({ provider: 'openai', baseUrl: server.url }, { keys }).generate(req);
    expect(server.requests[0]!.body).toMatchObject({
      temperature: 0.25,
      max_tokens: 42,
      model: 'gpt-4.1-mini',
    });
  });
});
