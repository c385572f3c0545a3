// Image attachments through the chat handler slice: magic bytes checked at the
// boundary, images sent as image parts to a model that reads them (as the loopback provider
// received them), kept with the message, never given to skills, and refused before any call for
// a model that does not read images.
import { afterEach, describe, expect, it } from 'vitest';
import type { EventName, EventPayload, Req, Res } from '../contract/channels.js';
import { requestSchemas } from '../contract/channels.js';
import { sniffImage } from '../contract/chat.js';
import { isAppError } from '../contract/errors.js';
import type { Host } from '../host.js';
import { createLlm, type LoopbackProvider, modelReadsImages, startLoopbackProvider } from '../llm/index.js';
import { testHost } from '../test-support/index.js';
import { skillAttachments } from './engine.js';

// A 1×1 PNG, a GIF header and a WebP header, as real files start.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]);
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([24, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(model: string, replies: string[]) {
  const provider: LoopbackProvider = await startLoopbackProvider({
    script: replies.map((text) => ({ text })),
  });
  cleanups.push(() => provider.close());
  const llmFor = (m: string) =>
    createLlm({ provider: 'openai', model: m, baseUrl: provider.url }, { keys: { get: () => 'sk-test' } });
  let llm = llmFor(model);
  const host: Host = testHost({ llm: () => llm });
  const call = async <C extends keyof typeof requestSchemas>(channel: C, req: Req<C>): Promise<Res<C>> =>
    (await host.handlers[channel](requestSchemas[channel].parse(req) as never, {
      transport: 'in-process',
    })) as Res<C>;
  const next = <E extends EventName>(event: E) =>
    new Promise<EventPayload<E>>((resolve) => {
      const off = host.events.subscribe(event, (p) => {
        off();
        resolve(p);
      });
    });
  /** Switch the chat to another model, as the model picker does. */
  const switchModel = (m: string) => {
    llm = llmFor(m);
  };
  return { provider, call, next, switchModel };
}

const parse = (attachments: unknown) =>
  requestSchemas['chat/send-message'].safeParse({ message: 'look', attachments });
const firstError = (attachments: unknown) => {
  const r = parse(attachments);
  expect(r.success).toBe(false);
  return r.error!.issues[0]!.message;
};

describe('image attachments', () => {
  it('accepts PNG, JPEG, GIF and WebP by their bytes and refuses the rest in words', () => {
    expect(sniffImage(PNG)).toBe('image/png');
    expect(sniffImage(JPEG)).toBe('image/jpeg');
    expect(sniffImage(GIF)).toBe('image/gif');
    expect(sniffImage(WEBP)).toBe('image/webp');
    expect(sniffImage(Buffer.from('%PDF-1.7'))).toBeNull();
    for (const [b, t] of [
      [PNG, 'image/png'],
      [JPEG, 'image/jpeg'],
      [GIF, 'image/gif'],
      [WEBP, 'image/webp'],
    ] as const)
      expect(parse([{ name: `x.${t.slice(6)}`, media_type: t, data: b.toString('base64') }]).success).toBe(
        true,
      );
    // A PDF renamed .png: the type says PNG, the bytes do not.
    expect(
      firstError([
        { name: 'fake.png', media_type: 'image/png', data: Buffer.from('%PDF-1.7 xxxx').toString('base64') },
      ]),
    ).toMatch(/fake\.png is not a PNG, JPEG, GIF or WebP image/);
    // A JPEG labelled PNG.
    expect(firstError([{ name: 'a.png', media_type: 'image/png', data: JPEG.toString('base64') }])).toMatch(
      /says image\/png but its contents are image\/jpeg/,
    );
    expect(
      firstError([{ name: 'a.svg', media_type: 'image/svg+xml', data: PNG.toString('base64') }]),
    ).toMatch(/attach a PNG, JPEG, GIF or WebP file/);
    expect(firstError([{ name: 'a.png', media_type: 'image/png', data: 'not base64!' }])).toMatch(
      /not valid base64/,
    );
    const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]).toString('base64');
    expect(firstError([{ name: 'big.png', media_type: 'image/png', data: big }])).toMatch(
      /big\.png is larger than 5 MiB/,
    );
    expect(firstError([{ name: 'a.png', media_type: 'image/png', text: 'x', data: 'AAAA' }])).toMatch(
      /either/,
    );
  });

  it('sends images as image parts to a model that reads them and keeps them with the message', async () => {
    const { provider, call, next } = await setup('gpt-4.1-mini', ['A single pixel.', 'Still one pixel.']);
    const data = PNG.toString('base64');
    const done = next('chat/turn-finished');
    const r = await call('chat/send-message', {
      message: 'What is in this image?',
      attachments: [
        { name: 'pixel.png', media_type: 'image/png', data },
        { name: 'notes.txt', media_type: 'text/plain', text: 'a note' },
      ],
    });
    expect((await done).status).toBe('complete');
    const body = provider.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
    const user = body.messages.filter((m) => m.role === 'user').at(-1)!;
    expect(user.content).toEqual([
      { type: 'text', text: expect.stringContaining('<attachment name="notes.txt">') },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } },
    ]);
    // The image's bytes are not pasted into the text.
    expect(JSON.stringify(user.content)).not.toContain('<attachment name="pixel.png">');
    const s = await call('chat/get-session', { session_id: r.session_id });
    expect(s.messages[0]!.attachments).toEqual([
      { name: 'pixel.png', media_type: 'image/png', size: PNG.length },
      { name: 'notes.txt', media_type: 'text/plain', size: 6 },
    ]);
    const got = await call('chat/get-attachment', {
      session_id: r.session_id,
      message_id: r.user_message_id,
      index: 0,
    });
    expect(got).toEqual({ name: 'pixel.png', media_type: 'image/png', size: PNG.length, data });
    await expect(
      call('chat/get-attachment', { session_id: r.session_id, message_id: r.user_message_id, index: 5 }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // The next turn carries the earlier image in its history.
    const again = next('chat/turn-finished');
    await call('chat/send-message', { session_id: r.session_id, message: 'And now?' });
    await again;
    const second = provider.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
    expect(JSON.stringify(second.messages)).toContain(`data:image/png;base64,${data}`);
  });

  it('refuses images for a model that does not read them, before storing or calling anything', async () => {
    const { provider, call } = await setup('deepseek-like-text-model', ['never sent']);
    const err = await call('chat/send-message', {
      message: 'What is this?',
      attachments: [{ name: 'pixel.png', media_type: 'image/png', data: PNG.toString('base64') }],
    }).catch((e: unknown) => e);
    expect(isAppError(err)).toBe(true);
    expect(err).toMatchObject({ code: 'INVALID_INPUT' });
    expect((err as Error).message).toMatch(
      /^deepseek-like-text-model cannot read images; choose a model that can, e\.g\. gpt-4\.1/,
    );
    expect(provider.requests).toHaveLength(0);
    expect((await call('chat/list-sessions', {})).sessions).toHaveLength(0);
  });

  it('tells a text-only model chosen later that an earlier message had an image it is not sent', async () => {
    const { provider, call, next, switchModel } = await setup('gpt-4.1-mini', [
      'A pixel.',
      'I cannot see it.',
    ]);
    const data = PNG.toString('base64');
    const first = next('chat/turn-finished');
    const r = await call('chat/send-message', {
      message: 'What is in this image?',
      attachments: [{ name: 'pi"xel.png', media_type: 'image/png', data }],
    });
    await first;
    switchModel('deepseek-like-text-model');
    const second = next('chat/turn-finished');
    await call('chat/send-message', { session_id: r.session_id, message: 'Describe it again.' });
    expect((await second).status).toBe('complete');
    const body = provider.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
    const sent = JSON.stringify(body.messages);
    expect(sent).not.toContain(data);
    const earlier = body.messages.find((m) => m.role === 'user')!;
    expect(earlier.content).toBe(
      `What is in this image?\n\n<attachment name="pi'xel.png" type="image/png">[an image; not sent, because deepseek-like-text-model does not read images]</attachment>`,
    );
    expect(body.messages.filter((m) => m.role === 'user').at(-1)!.content).toBe('Describe it again.');
  });

  it('gives skills the text files only', () => {
    expect(
      skillAttachments([
        { name: 'pixel.png', media_type: 'image/png', data: PNG.toString('base64') },
        { name: 'a.csv', media_type: 'text/csv', text: 'x,y' },
      ]),
    ).toEqual([{ name: 'a.csv', media_type: 'text/csv', text: 'x,y' }]);
  });

  it('knows which models read images by name; unknown ones do not', () => {
    expect(modelReadsImages('openai', 'gpt-4o-mini')).toBe(true);
    expect(modelReadsImages('openai', 'gpt-5')).toBe(true);
    expect(modelReadsImages('openai', 'gpt-3.5-turbo')).toBe(false);
    expect(modelReadsImages('openai', 'o3-mini')).toBe(false);
    expect(modelReadsImages('anthropic', 'claude-3-5-sonnet-latest')).toBe(true);
    expect(modelReadsImages('anthropic', 'claude-sonnet-4-5')).toBe(true);
    expect(modelReadsImages('google', 'models/gemini-2.5-flash')).toBe(true);
    expect(modelReadsImages('deepseek', 'deepseek-chat')).toBe(false);
    expect(modelReadsImages('openai-compatible', 'my-local-model')).toBe(false);
  });
});
