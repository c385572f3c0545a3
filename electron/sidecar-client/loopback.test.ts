// The whole path: sidecar -> client -> the provider layer (createLlm) -> the loopback provider
// server speaking the OpenAI wire format. The script holds DSPy-formatted replies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlm, type LoopbackProvider, NO_KEYS, startLoopbackProvider } from '../llm/index.js';
import { skipWithout } from '../test-support/index.js';
import { createSidecarClient, type LmHandler } from './client.js';
import { APP_ROOT, type LmBoundClient, NO_VENV, withLm } from './test-lm.js';

const REPLY =
  '[[ ## reasoning ## ]]\nTwo claims disagree.\n\n[[ ## contradictions ## ]]\nClaim 1 vs claim 2\n\n[[ ## completed ## ]]';

describe.skipIf(skipWithout(NO_VENV, 'sidecar with the loopback provider'))(
  'sidecar with the loopback provider',
  () => {
    let provider: LoopbackProvider;
    let client: LmBoundClient;

    beforeAll(async () => {
      provider = await startLoopbackProvider({
        // One DSPy-formatted reply, then replies no adapter can parse (DSPy retries through its
        // JSON adapter, so several are consumed by one failing execute).
        script: [
          { text: REPLY, usage: { input_tokens: 120, output_tokens: 30 } },
          ...Array.from({ length: 6 }, () => ({ text: 'not in the format' })),
        ],
      });
      const llm = createLlm(
        { provider: 'openai-compatible', baseUrl: provider.url, model: 'loopback-gpt' },
        { keys: NO_KEYS },
      );
      const lm: LmHandler = async (req, ctx) => {
        const system = req.messages
          .filter((m) => m.role === 'system')
          .map((m) => m.content)
          .join('\n\n');
        const messages = req.messages.flatMap((m) =>
          m.role === 'system'
            ? []
            : [{ role: m.role, content: m.content } as { role: 'user'; content: string }],
        );
        const r = await llm.generate({
          system: system || undefined,
          messages,
          signal: ctx.signal,
          temperature: req.temperature,
          maxOutputTokens: req.max_tokens,
        });
        return { text: r.text, input_tokens: r.usage.input_tokens, output_tokens: r.usage.output_tokens };
      };
      client = withLm(createSidecarClient({ appRoot: APP_ROOT, idleTimeoutMs: 0 }), lm);
    });
    afterAll(async () => {
      await client?.dispose();
      await provider?.close();
    });

    it('executes the design example through the real provider layer', async () => {
      const res = await client.execute({
        template_id: 'chain_of_thought',
        signature: 'claims -> contradictions',
        params: { claims: ['Mara was born in Elst.', 'Mara was born in Vost.'] },
      });
      expect(res.outputs).toEqual({
        reasoning: 'Two claims disagree.',
        contradictions: 'Claim 1 vs claim 2',
      });
      expect(res.usage).toEqual({ lm_calls: 1, input_tokens: 120, output_tokens: 30 });
      const sent = provider.requests[0]?.body as { messages: Array<{ role: string; content: unknown }> };
      expect(JSON.stringify(sent.messages)).toContain('Mara was born in Elst.');
    });

    it('reports an answer DSPy cannot parse as SIDECAR_FAILED, not as unavailability', async () => {
      await expect(
        client.execute({
          template_id: 'predict',
          signature: 'claims -> contradictions',
          params: { claims: 'x' },
        }),
      ).rejects.toMatchObject({ code: 'SIDECAR_FAILED' });
    });
  },
);
