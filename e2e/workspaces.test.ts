/**
 * In Chromium (web mode): open a workspace from the UI, switch to another and back (the
 * catalog, chats and traces follow), the pages index follows file changes, and the Traces view
 * filters and exports. Screenshots at 1440×900 and 1024×700, light and dark.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { packageToRows } from '../electron/skills/index.js';
import { openStore } from '../electron/store/index.js';
import { TraceStore } from '../electron/traces/index.js';
import { describeWeb, shot } from './web-suite.js';

/** A workspace folder with one workspace skill, a Markdown page and some traces of that skill. */
function makeWorkspace(parent: string, name: string, skill: string, traces: number, failed: number): string {
  const dir = join(parent, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'readme.md'), `# ${name}\nNotes about [[${skill}]].`);
  const store = openStore('workspace', dir)!;
  const rows = packageToRows({
    name: skill,
    description: `The ${name} team's own skill.`,
    version: '1.0.0',
    artifacts: [
      { kind: 'prompt_template', name: 'Draft', content: 'Draft {{ topic }}' },
      { kind: 'code_template', name: 'Count', content: 'result = len({{ topic }})' },
    ],
  });
  store.repo.createSkill(rows.skill);
  for (const a of rows.artifacts) store.repo.addArtifact(a);
  const [prompt, code] = rows.artifacts as unknown as [{ id: string }, { id: string }];
  const t = new TraceStore(store.db);
  for (let i = 0; i < traces; i++) {
    t.finish(
      t.start({
        session_id: `${name}-s1`,
        skill_id: rows.skill.id,
        artifact_id: prompt.id,
        artifact_kind: 'prompt_template',
      }),
      {
        rendered_input: `Draft topic ${i}`,
        raw_output: `A draft about topic ${i}.`,
        input_tokens: 100 + i,
        output_tokens: 20,
        estimated_cost: 0.0012,
        model_id: 'loopback',
        assertions_run: 1,
        assertions_passed: 1,
      },
    );
  }
  for (let i = 0; i < failed; i++) {
    t.finish(
      t.start({
        session_id: `${name}-s2`,
        skill_id: rows.skill.id,
        artifact_id: code.id,
        artifact_kind: 'code_template',
      }),
      {
        rendered_input: '{"topic": 5}',
        error: "TypeError: object of type 'int' has no len()",
        error_code: 'SANDBOX_FAILED',
      },
    );
  }
  store.close();
  return dir;
}

let parent: string;
let wsA: string;
let wsB: string;

describeWeb(
  'workspaces and traces in Chromium',
  {
    id: 'e2e/workspaces',
    page: { acceptDownloads: true },
    async setup() {
      // Not tempDir(): that one is emptied after each test, and these folders live across the suite.
      parent = mkdtempSync(join(tmpdir(), 'skilldesk-ws-e2e-'));
      wsA = makeWorkspace(parent, 'alpha-notes', 'Alpha Brief', 3, 1);
      wsB = makeWorkspace(parent, 'beta-research', 'Beta Digest', 1, 0);
    },
    teardown: () => {
      if (parent) rmSync(parent, { recursive: true, force: true });
    },
  },
  (web) => {
    const wsButton = () => web.page.getByRole('button', { name: /^Workspace:/ });
    const dialog = () => web.page.getByRole('dialog', { name: 'Open a workspace' });
    const pathField = () => dialog().getByRole('combobox', { name: 'Folder path' });
    const sessions = () => web.page.locator('.session');

    async function openByPath(path: string) {
      await wsButton().click();
      await pathField().fill(path);
      await pathField().press('Enter');
      await expect.poll(() => dialog().count()).toBe(0);
    }

    it('starts account-only, and opens a folder typed with completion', async () => {
      await expect.poll(() => wsButton().textContent()).toMatch(/Account only/);
      await expect.poll(() => web.page.title()).toBe('Account only — SkillDesk');
      // A chat in account-only mode stays in the account.
      await web.page
        .getByRole('textbox', { name: 'Message' })
        .fill('An account chat about nothing in particular');
      await web.page.getByRole('textbox', { name: 'Message' }).press('Enter');
      await expect.poll(() => sessions().count()).toBe(1);

      await web.page.keyboard.press('Control+O');
      await pathField().waitFor();
      // A wrong path says so and keeps the dialog open.
      await pathField().fill(join(parent, 'nowhere'));
      await pathField().press('Enter');
      await dialog()
        .getByRole('alert')
        .getByText(/There is no folder at/)
        .waitFor();
      // Completion lists the folders under what was typed; Tab takes the highlighted one.
      await pathField().fill(`${parent}/al`);
      const options = dialog().getByRole('listbox', { name: 'Matching folders' }).getByRole('option');
      await expect.poll(() => options.allTextContents()).toEqual(['alpha-notes']);
      await pathField().press('ArrowDown');
      await pathField().press('Tab');
      await expect.poll(() => pathField().inputValue()).toBe(`${wsA}/`);
      await shot(web.page, 'workspace-dialog-1440-light');
      await pathField().press('Enter');
      await expect.poll(() => dialog().count()).toBe(0);

      await expect.poll(() => wsButton().textContent()).toMatch(/alpha-notes/);
      await expect.poll(() => web.page.title()).toBe('alpha-notes — SkillDesk');
      await expect.poll(() => web.page.locator('.wspages').textContent()).toMatch(/1 page indexed/);
      // Chats follow: the account chat is not in this workspace.
      await expect.poll(() => sessions().count()).toBe(0);
    });

    it('keeps the pages index current as Markdown files change', async () => {
      writeFileSync(join(wsA, 'plan.md'), '# Plan\nShip it.');
      await expect
        .poll(() => web.page.locator('.wspages').textContent(), { timeout: 8000 })
        .toMatch(/2 pages indexed/);
    });

    it('switches to another workspace and back: the catalog, chats and traces follow', async () => {
      await web.page.getByRole('textbox', { name: 'Message' }).fill('A chat that belongs to alpha notes');
      await web.page.getByRole('textbox', { name: 'Message' }).press('Enter');
      await expect.poll(() => sessions().count()).toBe(1);
      await web.page.getByRole('button', { name: /^Skills/ }).click();
      const list = web.page.getByRole('listbox', { name: 'Skills' });
      await list.getByRole('option', { name: /Alpha Brief/ }).waitFor();

      await openByPath(wsB);
      await expect.poll(() => wsButton().textContent()).toMatch(/beta-research/);
      await list.getByRole('option', { name: /Beta Digest/ }).waitFor();
      await expect.poll(() => list.getByRole('option', { name: /Alpha Brief/ }).count()).toBe(0);
      await expect.poll(() => sessions().count()).toBe(0);

      // Back through the recent list.
      await wsButton().click();
      const recent = dialog().getByRole('region', { name: 'Recent workspaces' });
      await recent.getByRole('button', { name: /^alpha-notes/ }).click();
      await expect.poll(() => wsButton().textContent()).toMatch(/alpha-notes/);
      await list.getByRole('option', { name: /Alpha Brief/ }).waitFor();
      await expect.poll(() => sessions().count()).toBe(1);
      await expect.poll(() => sessions().first().textContent()).toMatch(/alpha notes/i);
    });

    it('filters traces, totals them, shows one in detail and exports JSONL', async () => {
      await web.page.keyboard.press('Control+5');
      const rows = web.page.getByRole('listbox', { name: 'Traces' }).getByRole('option');
      await expect.poll(() => rows.count()).toBe(4);
      const totals = web.page.getByRole('region', { name: 'Totals' });
      await expect.poll(() => totals.textContent()).toMatch(/4runs · 1 failed/);
      await expect.poll(() => totals.textContent()).toMatch(/303 in \/ 60 out/);

      await web.page.getByRole('radio', { name: 'Failed' }).click();
      await expect.poll(() => rows.count()).toBe(1);
      await rows.first().click();
      const detail = web.page.getByRole('region', { name: 'Trace detail' });
      await detail.getByText("TypeError: object of type 'int' has no len()").first().waitFor();
      await web.page.getByRole('radio', { name: 'All' }).click();
      await web.page.getByRole('combobox', { name: 'Artifact kind' }).selectOption('prompt_template');
      await expect.poll(() => rows.count()).toBe(3);
      await expect.poll(() => totals.textContent()).toMatch(/3runs/);
      // Keyboard: the list moves with the arrows.
      await rows.first().click();
      await web.page.getByRole('listbox', { name: 'Traces' }).press('ArrowDown');
      await expect.poll(() => rows.nth(1).getAttribute('aria-selected')).toBe('true');
      await detail
        .getByText(/A draft about topic/)
        .first()
        .waitFor();
      await shot(web.page, 'traces-1440-light');

      const download = web.page.waitForEvent('download');
      await web.page.getByRole('button', { name: 'Export JSONL' }).click();
      const file = await (await download).path();
      const lines = readFileSync(file, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines).toHaveLength(3);
      expect(lines.every((l) => l.artifact_kind === 'prompt_template' && l.skill === 'Alpha Brief')).toBe(
        true,
      );
      expect(lines[0]).toMatchObject({
        input: 'Draft topic 0',
        output: 'A draft about topic 0.',
        status: 'ok',
      });
      await web.page
        .getByRole('status')
        .getByText(/Exported 3 traces/)
        .waitFor();

      // Another workspace's traces replace these.
      await openByPath(wsB);
      await web.page.getByRole('button', { name: 'Clear filters' }).first().click();
      await expect.poll(() => rows.count()).toBe(1);
      await expect.poll(() => rows.first().textContent()).toMatch(/Beta Digest/);
      await openByPath(wsA);
      await expect.poll(() => rows.count()).toBe(4);
    });

    it('looks right at 1440×900 and 1024×700, light and dark', async () => {
      for (const scheme of ['light', 'dark'] as const) {
        await web.page.emulateMedia({ colorScheme: scheme });
        for (const [w, h] of [
          [1440, 900],
          [1024, 700],
        ] as const) {
          await web.page.setViewportSize({ width: w, height: h });
          await web.page.getByRole('listbox', { name: 'Traces' }).getByRole('option').first().click();
          const body = web.page.locator('.traces__detail');
          await expect
            .poll(() => body.evaluate((el) => el.scrollWidth - el.clientWidth))
            .toBeLessThanOrEqual(1);
          await shot(web.page, `traces-${w}-${scheme}`);
          await wsButton().click();
          await pathField().fill(`${parent}/`);
          await expect.poll(() => dialog().getByRole('option').count()).toBe(2);
          await shot(web.page, `workspace-dialog-${w}-${scheme}`);
          await pathField().press('Escape');
          await expect.poll(() => dialog().count()).toBe(0);
        }
      }
      await web.page.emulateMedia({ colorScheme: 'light' });
      expect(web.problems).toEqual([]);
    });

    it('returns to account-only mode', async () => {
      await wsButton().click();
      await dialog().getByRole('button', { name: 'Use account only' }).click();
      await expect.poll(() => wsButton().textContent()).toMatch(/Account only/);
      await expect.poll(() => web.page.locator('.wspages').count()).toBe(0);
      await expect.poll(() => sessions().count()).toBe(1);
    });
  },
);
