// The Composer agent and evals in Chromium, against the scripted loopback model: a new
// skill whose first draft fails its dry run, repaired and accepted; a refinement shown per artifact
// and half accepted; evals run with one failing and the pass rate per model.
import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import { connectProvider } from './browser.js';
import { describeWeb, shotSchemes } from './web-suite.js';

const EVALS = [
  {
    id: 1,
    prompt: 'Ann was born in 1990. In 1985 Ann went to school.',
    assertions: [{ type: 'contains', value: '1985' }],
  },
  { id: 2, prompt: 'Bo left on Monday.', assertions: [{ type: 'contains', value: 'No contradictions' }] },
  { id: 3, prompt: 'check the timeline of chapter 2', should_trigger: true },
];

const answer = (template: string, extra: { version?: string; artifacts?: unknown[] } = {}) =>
  JSON.stringify({
    package: {
      name: 'Timeline Checker',
      description: "Checks a story's timeline for contradictions between dated events.",
      version: extra.version ?? '1.0.0',
      source: 'user',
      tags: ['writing'],
      intent_patterns: ['find timeline contradictions'],
      trigger_phrases: ['check the timeline'],
      requires: ['llm'],
      artifacts: [
        {
          kind: 'description',
          name: 'Overview',
          ordinal: 0,
          content: 'Finds dated events that cannot both be true.',
        },
        { kind: 'prompt_template', name: 'Check', ordinal: 1, content: template },
        ...(extra.artifacts ?? []),
      ],
    },
    evals: { threshold: 0.8, evals: EVALS },
  });

// The scripted model, in the order the UI asks.
const SCRIPT = [
  {
    text: answer('List the timeline contradictions in {{ story }}.'),
    usage: { input_tokens: 1800, output_tokens: 600 },
  },
  {
    text: answer('List the timeline contradictions in this story:\n\n{{ input }}'),
    usage: { input_tokens: 2600, output_tokens: 610 },
    expect: { last_user_contains: '[dry_run] Check (eval 1)' },
  },
  {
    text: answer(
      'List the timeline contradictions in this story as JSON {"contradictions": [...]}:\n\n{{ input }}',
      {
        version: '1.1.0',
        artifacts: [
          {
            kind: 'dspy_module',
            name: 'Optimized Check',
            ordinal: 2,
            content: '{"template_id": "chain_of_thought", "signature": "input -> contradictions"}',
            metadata: { fallback_artifact: 'Check' },
          },
        ],
      },
    ),
    expect: { last_user_contains: 'dspy_module' },
  },
  // Evals: two output evals, then the trigger eval asks which skill the model would apply.
  { text: 'Ann went to school in 1985, five years before she was born.' },
  { text: 'Bo left on Monday.' },
  { text: 'Timeline Checker', expect: { last_user_contains: 'Message: check the timeline of chapter 2' } },
  // Evals again on the edited draft: eval 2 has a new prompt and a statement the judge grades.
  { text: 'Ann went to school in 1985, five years before she was born.' },
  {
    text: 'No contradictions found:\n- Bo left on **Monday**\n- Bo came back on Friday',
    expect: { last_user_contains: 'came back on Friday' },
  },
  {
    text: 'PASS\nThe answer says plainly that nothing contradicts.',
    expect: { last_user_contains: 'Statement: It says there is no contradiction' },
  },
  { text: 'Timeline Checker' },
];

describeWeb(
  'Composer agent and evals',
  {
    id: 'e2e/composer-agent',
    script: { turns: SCRIPT, api_key: 'sk-e2e-agent' },
    page: { timeoutMs: 20_000, consoleErrors: false },
    open: 'url',
  },
  (web) => {
    it('creates, repairs, refines (half accepted) and evaluates a skill', async () => {
      const shoot = (name: string) => shotSchemes(web.page, name, { dir: 'composer-agent' });

      await connectProvider(web.page, web.provider.url, 'sk-e2e-agent');

      // Describe → rounds → review → accept.
      await web.page.keyboard.press('Control+3');
      // The empty editor's entry (the catalog header has one of the same name).
      await web.page.locator('.sc-blank').getByRole('button', { name: 'New skill with AI' }).click();
      const dialog = web.page.getByRole('dialog', { name: 'New skill with AI' });
      await pw(dialog.getByLabel('Describe what the skill should do')).toBeFocused();
      await shoot('agent-describe-1440');
      await dialog
        .getByLabel('Describe what the skill should do')
        .fill("a skill that checks a story's timeline for contradictions");
      await web.page.keyboard.press('Control+Enter');
      const rounds = dialog.getByRole('list', { name: 'Rounds' });
      await pw(rounds.locator('.ag-round.is-bad')).toContainText('First draft · 2 problems');
      await pw(rounds.locator('.ag-round.is-ok')).toContainText('Repair 1 · passed every check');
      await pw(dialog.getByRole('region', { name: 'Review' })).toContainText('Timeline Checker');
      await pw(dialog).toContainText('3 evals');
      await shoot('agent-review-1440');
      await dialog.getByRole('button', { name: 'Accept and open in the editor' }).click();
      await pw(web.page.getByRole('heading', { level: 2, name: 'Timeline Checker' })).toBeVisible();
      await pw(web.page.locator('.sc-state--new')).toHaveText('Not saved yet');
      await web.page.getByRole('button', { name: 'Save', exact: true }).click();
      await pw(web.page.getByText(/^Saved Timeline Checker 1\.0\.0/)).toBeVisible();

      // Refine: three changes offered, the template change rejected.
      await web.page.getByRole('button', { name: 'Refine with AI' }).click();
      const ask = web.page.getByRole('textbox', { name: 'What should change?' });
      await ask.fill('add a dspy_module for optimized execution and output JSON with a contradictions array');
      await ask.press('Enter');
      const changes = web.page.getByRole('list', { name: 'Proposed changes' });
      await pw(changes.locator('.ag-change')).toHaveCount(3);
      await pw(changes).toContainText('Optimized Check');
      await shoot('agent-refine-diff-1440');
      // Keep the new template and fields; leave the DSPy module out (it would need the sidecar).
      await web.page.getByRole('checkbox', { name: 'Accept the change to Optimized Check' }).uncheck();
      await web.page.getByRole('button', { name: 'Apply 2 of 3 changes' }).click();
      await pw(web.page.locator('.sc-state--dirty')).toHaveText('Unsaved changes');
      await web.page.getByRole('button', { name: 'Save', exact: true }).click();
      await pw(web.page.getByText(/^Saved Timeline Checker 1\.1\.0/)).toBeVisible();

      // Evals: progress, one failing, the pass rate per model.
      await web.page.getByRole('button', { name: 'Evals', exact: true }).click();
      await web.page.getByRole('button', { name: 'Run evals' }).click();
      const results = web.page.getByRole('list', { name: 'Eval results' });
      await pw(results.locator(':scope > li')).toHaveCount(3);
      await pw(web.page.locator('.ag-score')).toContainText('67% passed (2 of 3)');
      await pw(results.locator(':scope > li.is-bad')).toContainText('No contradictions');
      await pw(results).toContainText('rank 1 · model chose it');
      await pw(web.page.locator('.ag-models')).toContainText('OpenAI · ');
      await pw(web.page.locator('.ag-models')).not.toContainText('openai:');
      await shoot('agent-evals-1440');
      await web.page.setViewportSize({ width: 1024, height: 700 });
      await shoot('agent-evals-1024');
      await web.page.setViewportSize({ width: 1440, height: 900 });

      // Edit a row (no JSON by hand), then run the unsaved draft and read the answer beside its verdict.
      const prompt2 = web.page.getByRole('textbox', { name: 'Prompt of eval 2' });
      await prompt2.fill('Bo left on Monday and came back on Friday.');
      await web.page.getByRole('button', { name: 'Add a check to eval 2' }).click();
      await web.page
        .getByRole('textbox', { name: 'Check 1 of eval 2' })
        .fill('It says there is no contradiction');
      await pw(web.page.locator('.sc-state--dirty')).toHaveText('Unsaved changes');
      await web.page.getByRole('button', { name: 'Run evals on the draft' }).click();
      await pw(web.page.locator('.ag-score')).toContainText('100% passed (3 of 3)');
      await pw(web.page.locator('.ag-score')).toContainText('draft');
      await pw(web.page.locator('.ag-delta')).toContainText(
        '+33 points since the last run (67%, version 1.1.0)',
      );
      const second = results.locator(':scope > li').nth(1);
      await pw(second).toContainText('was failing');
      await pw(results.locator(':scope > li').first()).toContainText('was passing');
      await second.getByText('Answer and checks').click();
      const reply = second.getByRole('group', { name: "The model's answer" });
      await pw(reply.locator('li')).toHaveText(['Bo left on Monday', 'Bo came back on Friday']);
      await pw(reply.locator('strong')).toHaveText('Monday');
      await pw(second.getByRole('list', { name: 'Checks' })).toContainText(
        'passedIt says there is no contradiction — The answer says plainly that nothing contradicts.',
      );
      // Scrolled as a user does (the wheel moves only what the user can scroll), the answer in view.
      const wheelTo = async (target: typeof second) => {
        // Over the score line: below the rows list, which scrolls on its own.
        const box = await web.page.locator('.ag-score').boundingBox();
        await web.page.mouse.move(box!.x + 40, box!.y + box!.height / 2);
        for (let i = 0; i < 20; i++) {
          const r = await target.boundingBox();
          const vh = web.page.viewportSize()!.height;
          if (r && r.y + r.height <= vh - 20 && r.y >= 0) break;
          await web.page.mouse.wheel(0, r && r.y < 0 ? -150 : 150);
        }
      };
      await wheelTo(second.locator('.ag-answer__checks'));
      await shoot('agent-evals-draft-1440');
      await web.page.setViewportSize({ width: 1024, height: 700 });
      await wheelTo(second.locator('.ag-answer__checks'));
      await shoot('agent-evals-draft-1024');
      await web.page.getByRole('textbox', { name: 'Prompt of eval 1' }).focus();
      await shoot('agent-evals-rows-1024');
      // The draft's run is not remembered: the table still shows the saved run.
      await pw(web.page.locator('.ag-models')).toContainText('67% (2/3)');
      expect(web.provider.requests.every((q) => q.expectation_error === undefined)).toBe(true);
      expect(web.problems).toEqual([]);
    }, 120_000);
  },
);
