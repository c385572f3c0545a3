import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../contract/errors.js';
import { tempDir } from '../../test-support/index.js';
import { loadLoopbackScript, parseLoopbackScript } from './script.js';
import { type LoopbackProvider, startLoopbackProvider } from './server.js';

const servers: LoopbackProvider[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(script: Parameters<typeof startLoopbackProvider>[0]['script']) {
  const s = await startLoopbackProvider({ script });
  servers.push(s);
  return s;
}

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** Split an SSE body into events exactly as a spec-following parser would. */
function parseSse(text: string): Array<{ event?: string; data: string }> {
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((block) => {
      const out: { event?: string; data: string } = { data: '' };
      for (const line of block.split('\n')) {
        const [field, ...rest] = line.split(': ');
        if (field === 'event') out.event = rest.join(': ');
        else if (field === 'data') out.data = rest.join(': ');
        else throw new Error(`unexpected SSE line ${JSON.stringify(line)}`);
      }
      return out;
    });
}

const OPENAI_TURN = {
  text: ['Hi', ' there'],
  tool_calls: [
    { id: 'call_x', name: 'get_weather', argument_chunks: ['{"city"', ':"Par', 'is"}'] },
    { name: 'lookup', arguments: { q: 'abc' } },
  ],
  usage: { input_tokens: 11, output_tokens: 22 },
};

describe('OpenAI chat completions wire format', () => {
  it('streams chunks, tool-call fragments, a usage chunk and [DONE]', async () => {
    const s = await serve([OPENAI_TURN]);
    const res = await post(`${s.url}/chat/completions`, {
      model: 'gpt-x',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = parseSse(await res.text());
    expect(events.at(-1)).toEqual({ data: '[DONE]' });
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    expect(events.every((e) => e.event === undefined)).toBe(true);
    for (const c of chunks) {
      expect(c).toMatchObject({ id: chunks[0].id, object: 'chat.completion.chunk', model: 'gpt-x' });
      expect(typeof c.created).toBe('number');
    }
    expect(chunks[0].id).toMatch(/^chatcmpl-/);
    expect(chunks[0].choices[0]).toEqual({
      index: 0,
      delta: { role: 'assistant', content: '', refusal: null },
      logprobs: null,
      finish_reason: null,
    });
    const deltas = chunks.filter((c) => c.choices.length).map((c) => c.choices[0].delta);
    expect(deltas.filter((d) => d.content).map((d) => d.content)).toEqual(['Hi', ' there']);

    const calls = deltas.flatMap((d) => d.tool_calls ?? []);
    const starts = calls.filter((t) => t.id);
    expect(starts).toEqual([
      { index: 0, id: 'call_x', type: 'function', function: { name: 'get_weather', arguments: '' } },
      {
        index: 1,
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name: 'lookup', arguments: '' },
      },
    ]);
    const args = (i: number) =>
      calls
        .filter((t) => t.index === i)
        .map((t) => t.function.arguments)
        .join('');
    expect(calls.filter((t) => t.index === 0 && !t.id).map((t) => t.function.arguments)).toEqual([
      '{"city"',
      ':"Par',
      'is"}',
    ]);
    expect(JSON.parse(args(0))).toEqual({ city: 'Paris' });
    expect(JSON.parse(args(1))).toEqual({ q: 'abc' });

    const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finish).toHaveLength(1);
    expect(finish[0].choices[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
    // Every chunk carries usage: null except the last, which has no choices and the totals.
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 11, completion_tokens: 22, total_tokens: 33 },
    });
  });

  it('sends no usage chunk unless include_usage is asked for', async () => {
    const s = await serve([{ text: 'plain' }]);
    const res = await post(`${s.url}/chat/completions`, {
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const chunks = parseSse(await res.text())
      .slice(0, -1)
      .map((e) => JSON.parse(e.data));
    expect(chunks.every((c) => !('usage' in c) && c.choices.length === 1)).toBe(true);
    expect(chunks.at(-1).choices[0].finish_reason).toBe('stop');
  });

  it('answers a non-streamed request with one chat.completion body', async () => {
    const s = await serve([OPENAI_TURN]);
    const res = await post(`${s.url}/chat/completions`, {
      model: 'gpt-x',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const body = await res.json();
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-x',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Hi there',
            tool_calls: [
              {
                id: 'call_x',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
              },
              { type: 'function', function: { name: 'lookup', arguments: '{"q":"abc"}' } },
            ],
          },
        },
      ],
      usage: { prompt_tokens: 11, completion_tokens: 22, total_tokens: 33 },
    });
  });

  it('maps finish reasons and sends null content for a tool-only reply', async () => {
    const s = await serve([{ text: 'cut', finish_reason: 'length' }, { tool_calls: [{ name: 'f' }] }]);
    const a = await (
      await post(`${s.url}/chat/completions`, { model: 'm', messages: [{ role: 'user', content: '' }] })
    ).json();
    expect(a.choices[0].finish_reason).toBe('length');
    const res = await post(`${s.url}/chat/completions`, {
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: '' }],
    });
    const first = JSON.parse(parseSse(await res.text())[0]!.data);
    expect(first.choices[0].delta).toMatchObject({
      role: 'assistant',
      content: null,
      tool_calls: [{ index: 0, type: 'function', function: { name: 'f', arguments: '' } }],
    });
  });

  it('sends a mid-stream error as an error data event', async () => {
    const s = await serve([{ text: 'so far', stream_error: { message: 'boom', type: 'server_error' } }]);
    const res = await post(`${s.url}/chat/completions`, {
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    const events = parseSse(await res.text());
    expect(JSON.parse(events.at(-1)!.data)).toEqual({
      error: { message: 'boom', type: 'server_error', param: null, code: null },
    });
    expect(events.some((e) => e.data === '[DONE]')).toBe(false);
  });
});

describe('Anthropic Messages wire format', () => {
  const request = (extra: Record<string, unknown> = {}) => ({
    model: 'claude-x',
    max_tokens: 100,
    system: [{ type: 'text', text: 'Be kind.' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hello there' }] }],
    ...extra,
  });

  it('streams the named events in order with text and input_json deltas', async () => {
    const s = await serve([OPENAI_TURN]);
    const res = await post(`${s.url}/messages`, request({ stream: true }), {
      'anthropic-version': '2023-06-01',
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    const events = parseSse(await res.text());
    const data = events.map((e) => JSON.parse(e.data));
    // The event: line always names the data's type.
    expect(events.map((e) => e.event)).toEqual(data.map((d) => d.type));
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(data[0].message).toMatchObject({
      id: expect.stringMatching(/^msg_/),
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 11 },
    });
    expect(data[2]).toEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    });
    expect(data[3]).toEqual({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'Hi' },
    });
    expect(data[6]).toEqual({
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 'call_x', name: 'get_weather', input: {} },
    });
    const json = (index: number) =>
      data
        .filter((d) => d.type === 'content_block_delta' && d.index === index)
        .map((d) => d.delta.partial_json)
        .join('');
    expect(data[7].delta).toEqual({ type: 'input_json_delta', partial_json: '' });
    expect(JSON.parse(json(1))).toEqual({ city: 'Paris' });
    expect(JSON.parse(json(2))).toEqual({ q: 'abc' });
    expect(data.at(-2)).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 22 },
    });
    expect(data.at(-1)).toEqual({ type: 'message_stop' });
  });

  it('answers a non-streamed request with one message body', async () => {
    const s = await serve([OPENAI_TURN, { text: 'done' }]);
    const body = await (await post(`${s.url}/messages`, request())).json();
    expect(body).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [
        { type: 'text', text: 'Hi there' },
        { type: 'tool_use', id: 'call_x', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'lookup', input: { q: 'abc' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 11, output_tokens: 22 },
    });
    const plain = await (await post(`${s.url}/messages`, request())).json();
    expect(plain.stop_reason).toBe('end_turn');
  });

  it('refuses a request the real API would refuse', async () => {
    const s = await serve([{ text: 'unused' }]);
    const res = await post(`${s.url}/messages`, { model: 'c', messages: [] });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
    });
    expect(s.remaining()).toBe(1);
  });

  it('sends a mid-stream error as an error event', async () => {
    const s = await serve([{ text: 'so far', stream_error: { message: 'Overloaded' } }]);
    const events = parseSse(await (await post(`${s.url}/messages`, request({ stream: true }))).text());
    expect(events.at(-1)).toEqual({
      event: 'error',
      data: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    });
    expect(events.some((e) => e.event === 'message_stop')).toBe(false);
  });
});

describe('errors, script and recording', () => {
  it.each([
    [
      401,
      'openai',
      {
        message: expect.stringContaining('Incorrect API key'),
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      },
    ],
    [429, 'openai', { type: 'requests', code: 'rate_limit_exceeded', param: null }],
    [500, 'openai', { type: 'server_error', code: null }],
    [401, 'anthropic', { type: 'authentication_error', message: 'invalid x-api-key' }],
    [429, 'anthropic', { type: 'rate_limit_error' }],
    [500, 'anthropic', { type: 'api_error' }],
    [529, 'anthropic', { type: 'overloaded_error', message: 'Overloaded' }],
  ] as const)('scripted HTTP %i in the %s error shape', async (status, format, error) => {
    const s = await serve([{ status, headers: { 'retry-after': '3' } }]);
    const res =
      format === 'openai'
        ? await post(`${s.url}/chat/completions`, {
            model: 'm',
            stream: true,
            messages: [{ role: 'user', content: 'x' }],
          })
        : await post(`${s.url}/messages`, { model: 'm', max_tokens: 5, stream: true, messages: [] });
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('retry-after')).toBe('3');
    const body = await res.json();
    if (format === 'openai') expect(body).toEqual({ error: expect.objectContaining(error) });
    else
      expect(body).toEqual({
        type: 'error',
        error: expect.objectContaining(error),
        request_id: expect.any(String),
      });
  });

  it('replies 500 with a clear message once the script runs out', async () => {
    const s = await serve([{ text: 'only one' }]);
    await post(`${s.url}/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const res = await post(`${s.url}/chat/completions`, {
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(res.status).toBe(500);
    expect((await res.json()).error.message).toMatch(/script exhausted.*1 scripted turn.*request #2/);
    expect(s.requests[1]!.turn).toBeNull();
  });

  it('consumes turns in order across both formats and paths with or without /v1', async () => {
    const s = await serve([{ text: 'first' }, { text: 'second' }, { text: 'third' }]);
    const a = await (
      await post(`${s.origin}/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'x' }] })
    ).json();
    const b = await (await post(`${s.url}/messages`, { model: 'm', max_tokens: 1, messages: [] })).json();
    const c = await (await post(`${s.origin}/messages`, { model: 'm', max_tokens: 1, messages: [] })).json();
    expect([a.choices[0].message.content, b.content[0].text, c.content[0].text]).toEqual([
      'first',
      'second',
      'third',
    ]);
    expect(s.requests.map((r) => [r.kind, r.turn])).toEqual([
      ['openai', 0],
      ['anthropic', 1],
      ['anthropic', 2],
    ]);
  });

  it('checks a turn’s expectations and reports mismatches', async () => {
    const s = await serve([
      { text: 'ok', expect: { last_user_contains: 'weather', system_contains: 'kind', tools: ['t1'] } },
      { text: 'never', expect: { last_user_contains: 'weather' } },
    ]);
    const good = await post(`${s.url}/chat/completions`, {
      model: 'm',
      messages: [
        { role: 'developer', content: 'Be kind.' },
        { role: 'user', content: [{ type: 'text', text: 'the weather?' }] },
      ],
      tools: [{ type: 'function', function: { name: 't1', parameters: {} } }],
    });
    expect(good.status).toBe(200);
    const bad = await post(`${s.url}/messages`, {
      model: 'm',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'something else' }],
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toContain(
      'does not match script turn 2: the last user message does not contain "weather"',
    );
    expect(s.requests[1]!.expectation_error).toContain('"weather"');
  });

  it('records path, redacted headers and the parsed body', async () => {
    const s = await serve([{ text: 'a' }, { text: 'b' }]);
    await post(
      `${s.url}/chat/completions?x=1`,
      { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      {
        authorization: 'Bearer sk-very-secret',
        'x-custom': 'kept',
      },
    );
    await post(
      `${s.url}/messages`,
      { model: 'm', max_tokens: 1, messages: [] },
      { 'x-api-key': 'sk-ant-very-secret' },
    );
    expect(s.requests[0]).toMatchObject({
      index: 0,
      method: 'POST',
      path: '/v1/chat/completions?x=1',
      kind: 'openai',
      headers: { authorization: '[redacted]', 'x-custom': 'kept' },
      body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      stream: false,
      turn: 0,
      status: 200,
    });
    expect(s.requests[1]!.headers['x-api-key']).toBe('[redacted]');
    expect(JSON.stringify(s.requests)).not.toMatch(/very-secret/);
  });

  it('requires the script’s api_key when one is set', async () => {
    const s = await serve({ turns: [{ text: 'in' }], api_key: 'k1' });
    expect(
      (await post(`${s.url}/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'x' }] }))
        .status,
    ).toBe(401);
    const ok = await post(
      `${s.url}/messages`,
      { model: 'm', max_tokens: 1, messages: [] },
      { 'x-api-key': 'k1' },
    );
    expect(ok.status).toBe(200);
  });

  it('answers 404 for a model it does not serve when strict, as Ollama does', async () => {
    const s = await serve({ turns: [{ text: 'served' }], models: ['alpha-small'], strict_models: true });
    const msg = { messages: [{ role: 'user', content: 'x' }] };
    const missing = await post(`${s.url}/chat/completions`, { model: 'llama3.2', ...msg });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe(
      'model "llama3.2" not found, try pulling it first',
    );
    expect(s.remaining()).toBe(1);
    const ok = await post(`${s.url}/chat/completions`, { model: 'alpha-small', ...msg });
    expect(ok.status).toBe(200);
  });

  it('lists models in both shapes and 404s unknown paths', async () => {
    const s = await serve({ turns: [], models: ['m1', 'm2'] });
    expect(await (await fetch(`${s.url}/models`)).json()).toEqual({
      object: 'list',
      data: [
        { id: 'm1', object: 'model', created: expect.any(Number), owned_by: 'skilldesk-loopback' },
        { id: 'm2', object: 'model', created: expect.any(Number), owned_by: 'skilldesk-loopback' },
      ],
    });
    const anthropic = await (
      await fetch(`${s.url}/models`, { headers: { 'anthropic-version': '2023-06-01' } })
    ).json();
    expect(anthropic).toMatchObject({
      data: [{ type: 'model', id: 'm1' }, { id: 'm2' }],
      has_more: false,
      first_id: 'm1',
    });
    const missing = await fetch(`${s.url}/embeddings`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toContain('/v1/embeddings');
    expect((await fetch(`${s.url}/chat/completions`)).status).toBe(405);
  });

  it('rejects a body that is not JSON', async () => {
    const s = await serve([{ text: 'x' }]);
    const res = await fetch(`${s.url}/chat/completions`, { method: 'POST', body: '{nope' });
    expect(res.status).toBe(400);
    expect((await res.json()).error.type).toBe('invalid_request_error');
  });

  it('ends hanging replies when closed', async () => {
    const s = await startLoopbackProvider({ script: [{ hang: true }] });
    const pending = post(`${s.url}/chat/completions`, {
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    });
    await vi.waitFor(() => expect(s.requests).toHaveLength(1));
    await s.close();
    await expect(pending).rejects.toThrow();
  });

  it('stalls a stream after hang_after content deltas', async () => {
    const s = await serve([{ text: ['a', 'b', 'c'], hang_after: 2 }]);
    const res = await post(`${s.url}/messages`, { model: 'm', max_tokens: 1, stream: true, messages: [] });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('"text":"b"')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).not.toContain('"text":"c"');
    await reader.cancel();
    await vi.waitFor(() => expect(s.requests[0]!.client_closed).toBe(true));
  });
});

describe('script validation', () => {
  it('names the JSON path of a bad turn', () => {
    expect(() =>
      parseLoopbackScript([{ text: 'ok' }, { tool_calls: [{ arguments: {} }] }], 'my.json'),
    ).toThrow(/my\.json: \$\[1\]\.tool_calls\[0\]\.name/);
    expect(() => parseLoopbackScript([{ error: { message: 'x' } }])).toThrow(
      /\$\[0\]\.status: an error turn needs/,
    );
    expect(() => parseLoopbackScript([{ txet: 'typo' }])).toThrow(AppError);
    expect(() => parseLoopbackScript({ turns: [], extra: 1 })).toThrow(AppError);
  });

  it('loads a script file; a missing file is a usage error', () => {
    const dir = tempDir();
    const file = join(dir, 'script.json');
    writeFileSync(file, JSON.stringify({ turns: [{ text: 'hi' }], models: ['x'] }));
    expect(loadLoopbackScript(file)).toMatchObject({ turns: [{ text: 'hi' }], models: ['x'] });
    expect(() => loadLoopbackScript(join(dir, 'missing.json'))).toThrow(
      expect.objectContaining({ code: 'USAGE' }),
    );
    writeFileSync(file, '{oops');
    expect(() => loadLoopbackScript(file)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});
