import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import yazl from 'yazl';
import { connectProvider } from './browser.js';
import { describeWeb, shotSchemes } from './web-suite.js';

// The scripted model: the prompt skill's test-run (Test connection reads /models, spending no turn).
const SCRIPT = [
  {
    text: ['A calm ', 'note about tea.'],
    usage: { input_tokens: 42, output_tokens: 6 },
    expect: { last_user_contains: 'about tea' },
  },
];

async function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Drop files on the Composer as a browser would (a DataTransfer of Files). */
async function dropFiles(page: Page, files: Array<{ name: string; bytes: Buffer; type: string }>) {
  const payload = files.map((f) => ({ name: f.name, type: f.type, b64: f.bytes.toString('base64') }));
  const dt = await page.evaluateHandle((list) => {
    const t = new DataTransfer();
    for (const f of list) {
      const bin = atob(f.b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      t.items.add(new File([bytes], f.name, { type: f.type }));
    }
    return t;
  }, payload);
  const target = page.locator('.sc');
  await target.dispatchEvent('dragenter', { dataTransfer: dt });
  await target.dispatchEvent('dragover', { dataTransfer: dt });
  return {
    overlay: page.locator('.drop-overlay'),
    drop: () => target.dispatchEvent('drop', { dataTransfer: dt }),
  };
}

const workspace = mkdtempSync(join(tmpdir(), 'skilldesk-e2e-ws-'));

describeWeb(
  'Skill Composer: model test-runs, forks, drag-and-drop import',
  {
    id: 'e2e/composer-share',
    script: { turns: SCRIPT, api_key: 'sk-e2e-composer' },
    workspace,
    page: { timeoutMs: 15_000, consoleErrors: false },
    open: 'url',
    teardown: () => rmSync(workspace, { recursive: true, force: true }),
  },
  (web) => {
    it('test-runs a prompt skill against the scripted model, forks an account skill, imports dropped files', async () => {
      const shoot = (name: string) => shotSchemes(web.page, name, { dir: 'composer' });

      // The scripted model as the configured provider.
      await connectProvider(web.page, web.provider.url, 'sk-e2e-composer');

      // A prompt skill from its template: the server's variable list beside the editor.
      await web.page.keyboard.press('Control+3');
      await pw(web.page.getByRole('heading', { level: 1, name: 'Composer' })).toBeVisible();
      await web.page.getByRole('button', { name: 'New', exact: true }).click();
      await web.page.getByRole('button', { name: /Prompt skill/ }).click();
      await pw(web.page.getByRole('heading', { level: 2, name: 'My prompt skill' })).toBeVisible();
      await pw(web.page.locator('.sc-vars code')).toHaveText(['topic', 'tone']);

      // A JSON Schema that does not compile is a warning: saving stays allowed.
      const meta = web.page.getByRole('textbox', { name: 'Metadata of Prompt' });
      const setMeta = async (value: unknown) => {
        await meta.click();
        await web.page.keyboard.press('Control+A');
        await web.page.keyboard.insertText(JSON.stringify(value, null, 2));
      };
      await setMeta({ assertions: [{ type: 'structural', schema: { type: 'teapot' } }] });
      await pw(web.page.locator('.sc-state--warn')).toHaveText('1 warning');
      await pw(web.page.locator('.sc-issues--warn')).toContainText('does not compile');
      await pw(web.page.getByRole('button', { name: 'Save', exact: true })).toBeEnabled();

      // Two assertions: one the scripted reply passes, one it fails.
      await setMeta({
        assertions: [
          { type: 'pattern', pattern: '\\btea\\b', severity: 'hard' },
          { type: 'pattern', pattern: 'coffee', severity: 'soft' },
        ],
      });
      await pw(web.page.locator('.sc-state--warn')).toHaveCount(0);
      await pw(web.page.locator('.sc-state--ok')).toHaveText('Valid');
      await web.page.getByRole('button', { name: 'Save', exact: true }).click();
      await pw(web.page.getByText(/^Saved My prompt skill 1\.0\.0 to the workspace store/)).toBeVisible();

      const ctx = web.page.getByRole('textbox', { name: 'Test context' });
      await ctx.click();
      await web.page.keyboard.press('Control+A');
      await web.page.keyboard.insertText('{"topic": "tea", "tone": "calm"}');
      await web.page.getByRole('button', { name: 'Run', exact: true }).click();
      const result = web.page.getByRole('article', { name: 'Result of Prompt' });
      await pw(result).toContainText('A calm note about tea.');
      await pw(result.locator('.sc-asserts .is-pass')).toContainText('tea');
      await pw(result.locator('.sc-asserts .is-fail')).toContainText('coffee');
      await pw(result).toContainText('42 → 6 tokens');
      await pw(result).toContainText('Rendered input');
      await shoot('composer-model-run-1440');
      // The run is a trace of the "composer" session.
      await result.getByRole('button', { name: 'Open trace' }).click();
      const trace = web.page.getByRole('dialog', { name: 'Trace' });
      await pw(trace).toContainText('1 of 2 passed');
      await pw(trace).toContainText('Use a calm tone.');
      await trace.getByRole('button', { name: 'Close trace' }).click();

      // The context is remembered per skill, across a reload.
      await web.page.reload();
      await web.page.getByRole('textbox', { name: 'Message' }).waitFor();
      await web.page.keyboard.press('Control+3');
      await pw(web.page.getByRole('heading', { level: 2, name: 'My prompt skill' })).toBeVisible();
      await pw(ctx).toContainText('"topic": "tea"');

      // Customize a built-in account skill for this workspace: both rows show their badge.
      const catalog = web.page.getByRole('list', { name: 'Skills' });
      await catalog.getByRole('button', { name: /Translate/ }).click();
      await web.page.getByRole('button', { name: 'Customize for this workspace' }).click();
      await pw(web.page.getByText('Translate now has a workspace copy.')).toBeVisible();
      const head = web.page.locator('.sc-head');
      await pw(head.locator('.badge--workspace')).toBeVisible();
      await pw(head.locator('.badge--overrides')).toHaveText('Overrides account');
      const rows = catalog.locator('li').filter({ hasText: 'Translate' });
      await pw(rows).toHaveCount(2);
      await pw(rows.locator('.badge--overrides')).toHaveCount(1);
      await pw(rows.locator('.badge--overridden')).toHaveCount(1);
      await shoot('composer-fork-1440');

      // Drop a zip of an Agent Skills folder with a broken JSON file: nothing is written…
      const zip = await zipOf({
        'Tone Check/SKILL.md':
          '---\nname: Tone Check\ndescription: Checks the tone of a text.\n---\n# Tone\nBe kind.\n',
        'Tone Check/references/words.md': 'calm, kind, warm\n',
      });
      const broken = Buffer.from('{"name": "Half", "description": ');
      const first = await dropFiles(web.page, [
        { name: 'tone-check.zip', bytes: zip, type: 'application/zip' },
        { name: 'broken.json', bytes: broken, type: 'application/json' },
      ]);
      await pw(first.overlay).toBeVisible();
      await shoot('composer-drop-overlay-1440');
      await first.drop();
      const report = web.page.getByRole('region', { name: 'Import report' });
      await pw(report).toContainText('Nothing was imported');
      await pw(report.locator('li').filter({ hasText: 'broken.json' })).toContainText('not valid JSON');
      await pw(report.locator('li').filter({ hasText: 'broken.json' })).toContainText('refused');
      await pw(report.locator('li').filter({ hasText: 'tone-check.zip' })).toContainText('not imported');
      await shoot('composer-drop-refused-1440');
      // …and dropped alone, the zip imports, with the Agent Skills name warning.
      const second = await dropFiles(web.page, [
        { name: 'tone-check.zip', bytes: zip, type: 'application/zip' },
      ]);
      await second.drop();
      const row = report.locator('li').filter({ hasText: 'Tone Check' });
      await pw(row).toContainText('created');
      await pw(row.locator('.sc-report__issue--warn')).toContainText('breaks the Agent Skills naming rule');
      await pw(catalog.getByRole('button', { name: /Tone Check/ })).toBeVisible();
      await shoot('composer-drop-imported-1440');

      // An Agent Skills folder picked with the folder picker imports with its bundled files.
      const folder = join(mkdtempSync(join(tmpdir(), 'skilldesk-e2e-pick-')), 'kind-words');
      mkdirSync(join(folder, 'references'), { recursive: true });
      writeFileSync(
        join(folder, 'SKILL.md'),
        '---\nname: kind-words\ndescription: Suggests kinder words.\n---\n# Kind words\n',
      );
      writeFileSync(join(folder, 'references', 'list.md'), 'gentle\n');
      await web.page.getByTestId('composer-import-folder').setInputFiles(folder);
      const picked = report.locator('li').filter({ hasText: 'kind-words' });
      await pw(picked).toContainText('created');
      await pw(picked.locator('.sc-report__issue--warn')).toHaveCount(0);
      await pw(catalog.getByRole('button', { name: /kind-words/ })).toBeVisible();

      // The bundled file opens as a resource: its size and type, and a download.
      await catalog.getByRole('button', { name: /Tone Check/ }).click();
      await web.page.getByRole('button', { name: 'Resource references/words.md' }).click();
      const bundled = web.page.getByRole('region', { name: 'Bundled file' });
      await pw(bundled).toContainText('17 bytes · text/markdown');
      // Opening another skill put the import report away.
      await pw(web.page.getByRole('button', { name: 'Dismiss the import report' })).toHaveCount(0);
      await bundled.scrollIntoViewIfNeeded();
      await shoot('composer-resource-1440');
      const [file] = await Promise.all([
        web.page.waitForEvent('download'),
        bundled.getByRole('button', { name: 'Download' }).click(),
      ]);
      expect(file.suggestedFilename()).toBe('words.md');

      // Export as an Agent Skills folder (a zip in web mode).
      await web.page.getByRole('button', { name: 'Export' }).click();
      const [exported] = await Promise.all([
        web.page.waitForEvent('download'),
        web.page.getByRole('menuitem', { name: /Agent Skills folder/ }).click(),
      ]);
      expect(exported.suggestedFilename()).toBe('tone-check.zip');

      await web.page.setViewportSize({ width: 1024, height: 700 });
      await shoot('composer-drop-imported-1024');
      expect(web.problems).toEqual([]);
    }, 120_000);
  },
);
