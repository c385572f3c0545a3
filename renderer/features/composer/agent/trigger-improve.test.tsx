// @vitest-environment jsdom
// "Improve the description from the trigger evals" in the Composer: the verdicts in words, and
// the real handler's refusal shown where the author can act on it (no model set up).
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import type { ImproveTriggersRes } from '../../../../electron/contract/skills.js';
import { createStores, StoresProvider } from '../../../stores.js';
import { inProcessClient, samplePackage } from '../../../test-support.js';
import { improveVerdictLine, TriggerImprove } from './TriggerImprove.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const rates = (fn: number, fp: number) => ({
  true_positives: 2,
  false_positives: fp,
  false_negatives: fn,
  true_negatives: 2,
  recall: 2 / (2 + fn),
  precision: 2 / (2 + fp),
});

describe('TriggerImprove', () => {
  it('says each verdict in words', () => {
    const base = { before: { train: rates(1, 0), held_out: rates(1, 0) } } as ImproveTriggersRes;
    expect(improveVerdictLine({ ...base, verdict: 'better' })).toMatch(/^Better: .*never saw/);
    expect(improveVerdictLine({ ...base, verdict: 'not_confirmed' })).toMatch(/fits the examples/);
    expect(improveVerdictLine({ ...base, verdict: 'held_out_worse' })).toMatch(
      /more of the held-out ones wrong/,
    );
    expect(improveVerdictLine({ ...base, verdict: 'no_better' })).toMatch(/No proposal did better/);
    expect(
      improveVerdictLine({
        ...base,
        before: { train: rates(0, 0), held_out: rates(0, 0) },
        verdict: 'no_better',
      }),
    ).toMatch(/^Nothing to fix/);
  });

  it('shows why it cannot run: no model set up', async () => {
    const { client, host } = inProcessClient();
    try {
      const evals = Array.from({ length: 6 }, (_, i) => ({
        id: i + 1,
        prompt: i < 3 ? `write a haiku about topic ${i}` : `what is the weather ${i}`,
        should_trigger: i < 3,
      }));
      await client.invoke('skills/import-package', {
        package: samplePackage({
          artifacts: [
            {
              kind: 'prompt_template',
              name: 'main',
              ordinal: 0,
              content: 'Write a haiku about {{ topic }}.',
            },
            {
              kind: 'resource',
              name: 'evals/evals.json',
              ordinal: 1,
              content: JSON.stringify({ evals }),
              metadata: { path: 'evals/evals.json' },
            },
          ],
        }),
        scope: 'account',
      });
      const el = document.createElement('div');
      document.body.append(el);
      const root = createRoot(el);
      await act(async () => {
        root.render(
          <StoresProvider stores={createStores(client)}>
            <TriggerImprove origin={{ name: 'Haiku Helper', scope: 'account' }} dirty />
          </StoresProvider>,
        );
      });
      expect(el.textContent).toContain('not your unsaved edits');
      const button = [...el.querySelectorAll('button')].find((b) =>
        b.textContent?.includes('Improve the description'),
      )!;
      await act(async () => button.click());
      await expect.poll(() => el.querySelector('[role="alert"]')?.textContent ?? '').toMatch(/needs a model/);
      root.unmount();
    } finally {
      await host.dispose();
    }
  }, 60_000);
});
