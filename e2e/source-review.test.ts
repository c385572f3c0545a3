/**
 * A source review in Chromium (web mode): before Accept, each new or changed skill shows its
 * description, its permissions (network hosts, tools, scripts and where they run, packages), the
 * scan's findings with their severity, and for a changed skill what changed; the add form is laid
 * out like the app's other forms. Reached and accepted by keyboard. Screenshots at 1440×900 and
 * 1024×700, light and dark, under test-artifacts/e2e.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import { runCli } from '../electron/test-support/index.js';
import { describeWeb, shot } from './web-suite.js';

const repo = mkdtempSync(join(tmpdir(), 'skilldesk-e2e-review-'));
const git = (...a: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...a], { cwd: repo });
const skill = (name: string, description: string, body: string, extra = '') => {
  mkdirSync(join(repo, name), { recursive: true });
  writeFileSync(
    join(repo, name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${description}\n${extra}---\n${body}\n`,
  );
};

describeWeb(
  'a source review shows what each skill would bring (Chromium)',
  {
    id: 'e2e/source-review',
    open: 'url',
    async setup(web) {
      skill(
        'tidy',
        'Tidies meeting notes into decisions and actions.',
        'List the decisions, then the actions.',
      );
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('commit', '-q', '-m', 'one');
      const env = { SKILLDESK_HOME: web.app.home };
      const added = await runCli(['sources', 'add', repo, '--name', 'team'], env);
      expect(added.code, added.stderr).toBe(0);
      const updated = await runCli(['sources', 'update', 'team', '--all'], env);
      expect(updated.code, updated.stderr).toBe(0);
      // Upstream moves on: tidy changes, and a new skill with a script, a package and a host arrives.
      skill(
        'tidy',
        'Tidies meeting notes into decisions, actions and owners.',
        'List the decisions, then the actions with their owners.',
      );
      skill(
        'rates',
        'Converts amounts between currencies at the day’s rates.',
        'Run scripts/rates.py with the amount; it asks https://api.rates.example.com/v1/latest for the rates.',
        'allowed-tools: WebFetch\n',
      );
      mkdirSync(join(repo, 'rates', 'scripts'));
      writeFileSync(
        join(repo, 'rates', 'scripts', 'rates.py'),
        'import httpx\nprint(httpx.get("https://api.rates.example.com/v1/latest").json())\n',
      );
      writeFileSync(join(repo, 'rates', 'requirements.txt'), 'httpx\n');
      git('add', '-A');
      git('commit', '-q', '-m', 'two');
      const checked = await runCli(['sources', 'check', 'team'], env);
      expect(checked.code, checked.stderr).toBeLessThan(2);
    },
    teardown: () => rmSync(repo, { recursive: true, force: true }),
    startTimeoutMs: 180_000,
  },
  (web) => {
    it('shows description, permissions, scan and diff before Accept, and accepts by keyboard', async () => {
      await web.page.getByRole('button', { name: /^Settings/ }).click();
      const source = web.page.getByRole('article', { name: 'Source team' });
      await pw(source.getByText('2 updates waiting for you.')).toBeVisible();

      const rates = source.getByRole('listitem', { name: 'rates: New' });
      await pw(rates).toContainText('Converts amounts between currencies');
      const perms = rates.getByRole('region', { name: 'Permissions of rates' });
      await pw(perms).toContainText('Network hosts');
      await pw(perms).toContainText('api.rates.example.com');
      await pw(perms).toContainText('WebFetch');
      await pw(perms).toContainText('scripts/rates.py');
      await pw(perms).toContainText('Python in the Pyodide sandbox');
      await pw(perms).toContainText('httpx');
      const scan = rates.getByRole('region', { name: 'Scan of rates' });
      await pw(scan).toBeVisible();
      // Whatever the scan says, it says it with a severity or says it found nothing.
      await pw(scan).toContainText(/High|Medium|Low|Nothing suspicious found/);

      const tidy = source.getByRole('listitem', { name: 'tidy: Changed' });
      await pw(tidy).toContainText('decisions, actions and owners');
      await pw(tidy.getByRole('region', { name: 'Scan of tidy' })).toContainText('Nothing suspicious found');
      const diff = tidy.locator('details.source-skill__diff');
      await pw(diff).toHaveAttribute('open', '');
      await pw(diff).toContainText('with their owners');

      // The add form uses the app's fields.
      await pw(
        web.page.getByRole('form', { name: 'Add a source' }).getByLabel('Repository or catalog'),
      ).toHaveClass(/\binput\b/);

      for (const [w, h] of [
        [1440, 900],
        [1024, 700],
      ] as const) {
        await web.page.setViewportSize({ width: w, height: h });
        await rates.scrollIntoViewIfNeeded();
        for (const scheme of ['light', 'dark'] as const) {
          await web.page.emulateMedia({ colorScheme: scheme });
          await shot(web.page, `source-review-${w}-${scheme}`);
        }
        await tidy.scrollIntoViewIfNeeded();
        await web.page.emulateMedia({ colorScheme: 'light' });
        await shot(web.page, `source-review-changed-${w}-light`);
        await web.page.emulateMedia({ colorScheme: 'dark' });
        await shot(web.page, `source-review-changed-${w}-dark`);
      }
      await web.page.emulateMedia({ colorScheme: 'light' });

      // Accept one by keyboard.
      const accept = tidy.getByRole('button', { name: 'Accept tidy' });
      await accept.focus();
      await web.page.keyboard.press('Enter');
      await pw(source.getByRole('status').filter({ hasText: 'Installed' })).toContainText('tidy');
      expect(web.problems).toEqual([]);
    });
  },
);
