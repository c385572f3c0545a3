import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import { findNativePython, type NativePython, nativeSandboxSupport } from '../electron/scripts/index.js';
import { runCli, tempDir } from '../electron/test-support/index.js';
import { seedNativeEnv } from '../electron/test-support/native-env.js';
import { gotoChat } from './browser.js';
import { describeWeb, shotSchemes } from './web-suite.js';

const python: NativePython | null = (() => {
  try {
    return findNativePython();
  } catch {
    return null;
  }
})();

function writeSkill(root: string, name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  const all = {
    'SKILL.md': `---\nname: ${name}\ndescription: ${name} makes documents\n---\nUse the scripts.\n`,
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

async function cliAccepted(home: string, skill: string): Promise<boolean | undefined> {
  const r = await runCli(['--home', home, '--json', 'skills', 'native-runtime', 'list']);
  const list = JSON.parse(r.stdout) as { skills: Array<{ skill: string; native_accepted: boolean }> };
  return list.skills.find((s) => s.skill === skill)?.native_accepted;
}

async function cliGranted(home: string, skill: string): Promise<string[]> {
  const r = await runCli(['--home', home, '--json', 'skills', 'programs', 'list', skill]);
  const list = JSON.parse(r.stdout) as { programs: Array<{ program: string; granted: boolean }> };
  return list.programs.filter((p) => p.granted).map((p) => p.program);
}

describeWeb(
  "the skill page's Scripts section (Chromium)",
  {
    id: 'e2e/skill-scripts',
    missing: !python && 'no Python 3.11+ (python3 or SKILLDESK_PYTHON)',
    page: { timeoutMs: 15_000 },
    open: 'none',
    pagePerTest: true,
    async setup(web) {
      const root = tempDir();
      const docMaker = writeSkill(root, 'doc-maker', {
        'scripts/build.py':
          '"""Build a document."""\nfrom lxml import etree\nprint(etree.tostring(etree.Element("p")))\n',
        // Programs outside Python: one every machine has, one none has.
        'scripts/convert.py':
          'import subprocess\nsubprocess.run(["sh", "-c", "true"])\nsubprocess.run(["ls", "out"])\nsubprocess.run(["skilldesk-missing-tool", "x"])\n',
      });
      const deck = writeSkill(root, 'deck-helper', {
        'scripts/make.py': 'from pptx import Presentation\nfrom PIL import Image\nimport helpers\n',
        'scripts/helpers.py': 'import json\n',
      });
      for (const dir of [docMaker, deck])
        expect((await runCli(['--home', web.app.home, 'skills', 'import', dir])).code).toBe(0);
      seedNativeEnv(web.app.home, 'doc-maker', python!);
    },
    startTimeoutMs: 120_000,
  },
  (web) => {
    const sandbox = nativeSandboxSupport();

    async function openSkill(name: string) {
      await web.page.getByRole('button', { name: /^Skills/ }).click();
      await web.page
        .getByRole('listbox', { name: 'Skills' })
        .getByRole('option', { name: new RegExp(name) })
        .click();
      await web.page.getByRole('heading', { level: 2, name }).waitFor();
      const section = web.page.getByRole('region', { name: 'Scripts', exact: true });
      await section.waitFor();
      return section;
    }

    for (const [width, height] of [
      [1440, 900],
      [1024, 700],
    ] as const) {
      it(`says the runtime in words, accepts with a click and revokes with one at ${width}×${height}`, async () => {
        await web.page.setViewportSize({ width, height });
        await gotoChat(web.page, web.app.server.url);
        const section = await openSkill('doc-maker');
        await pw(section.getByTestId('script-runtime')).toHaveText(
          'Its scripts need lxml, which has compiled code: they run in the OS sandbox.',
        );
        await pw(section.getByRole('list', { name: 'Compiled code' }).getByRole('listitem')).toHaveText([
          'lxml',
        ]);
        const programs = section.getByRole('list', { name: 'Programs it starts' }).getByRole('listitem');
        await pw(programs).toHaveText([
          /^ls.*not allowed: the script gets an error naming it.*Allow$/,
          /^skilldesk-missing-tool\s*not installed on this computer$/,
        ]);
        // Nothing to allow for a program this computer does not have.
        await pw(programs.nth(1).getByRole('button')).toHaveCount(0);
        await pw(section.getByTestId('script-programs-missing')).toContainText(
          'Not installed on this computer: skilldesk-missing-tool, which scripts/convert.py starts.',
        );
        const grant = section.getByRole('group', { name: 'OS sandbox permission' });
        await pw(grant).toContainText('OS sandbox not accepted');
        await pw(grant).toContainText('Its scripts are refused until you accept.');
        // The CLI command is a secondary hint only.
        await pw(section.getByText('skilldesk skills native-runtime accept "doc-maker"')).toBeVisible();
        if (sandbox.ok) await pw(section.getByRole('note')).toHaveCount(0);
        else
          await pw(section.getByRole('note')).toContainText(
            'Scripts whose packages have compiled code are refused here',
          );

        const accept = grant.getByRole('button', { name: 'Accept for this skill' });
        await pw(accept).toHaveAccessibleDescription(/Its scripts are refused until you accept/);
        await accept.click();
        await pw(grant).toContainText('OS sandbox accepted on');
        await expect.poll(() => cliAccepted(web.app.home, 'doc-maker')).toBe(true);
        await section.scrollIntoViewIfNeeded();
        await shotSchemes(web.page, `skill-scripts-accepted-${width}`);

        // Revoke: one keyboard press on the focused button, which says what it means.
        const revoke = grant.getByRole('button', { name: 'Revoke' });
        await pw(revoke).toHaveAccessibleDescription('Revoking refuses its scripts until you accept again.');
        await revoke.focus();
        await web.page.keyboard.press('Enter');
        await pw(grant).toContainText('OS sandbox not accepted');
        await expect.poll(() => cliAccepted(web.app.home, 'doc-maker')).toBe(false);
        await pw(grant.getByRole('button', { name: 'Accept for this skill' })).toBeVisible();
        await shotSchemes(web.page, `skill-scripts-not-accepted-${width}`);
        expect(web.problems).toEqual([]);
      }, 120_000);
    }

    it('allows a program it starts with one click and takes it back with one', async () => {
      await web.page.setViewportSize({ width: 1024, height: 700 });
      await gotoChat(web.page, web.app.server.url);
      const section = await openSkill('doc-maker');
      const ls = section.getByRole('list', { name: 'Programs it starts' }).getByRole('listitem').first();
      await ls.getByRole('button', { name: 'Allow ls' }).click();
      await pw(ls).toContainText('allowed, inside the sandbox');
      await expect.poll(() => cliGranted(web.app.home, 'doc-maker')).toEqual(['ls']);
      await section.getByTestId('script-programs').scrollIntoViewIfNeeded();
      await shotSchemes(web.page, 'skill-scripts-program-allowed-1024');
      // Taking it back is one keyboard press on the focused button.
      await ls.getByRole('button', { name: 'Take back ls' }).focus();
      await web.page.keyboard.press('Enter');
      await pw(ls).toContainText('not allowed');
      await expect.poll(() => cliGranted(web.app.home, 'doc-maker')).toEqual([]);
      await pw(ls.getByRole('button', { name: 'Allow ls' })).toBeVisible();
      expect(web.problems).toEqual([]);
    }, 120_000);

    it('shows what a skill without requirements.txt imports and installs nothing until confirmed', async () => {
      await web.page.setViewportSize({ width: 1024, height: 700 });
      await gotoChat(web.page, web.app.server.url);
      const section = await openSkill('deck-helper');
      await pw(section.getByTestId('script-runtime')).toHaveText(
        "Its scripts run in Pyodide (Python compiled to WebAssembly) inside the app's sandbox.",
      );
      const imports = section.getByRole('list', { name: 'Its scripts import' }).getByRole('listitem');
      await pw(imports).toHaveText([
        'Pillow for import PIL · scripts/make.py',
        'python-pptx for import pptx · scripts/make.py',
      ]);
      // Its own module (helpers) and the standard library are not proposed; no permission is asked yet.
      await pw(section.getByRole('group', { name: 'OS sandbox permission' })).toHaveCount(0);
      await section.getByRole('button', { name: 'Install…' }).click();
      const confirm = section.getByRole('group', { name: 'Confirm the install' });
      // Focus moves to the confirmation, whose button names what it installs; Cancel brings it back.
      await pw(confirm.getByRole('button', { name: 'Install them' })).toBeFocused();
      await pw(confirm).toContainText('Install these 2 packages: Pillow, python-pptx?');
      await section.scrollIntoViewIfNeeded();
      await shotSchemes(web.page, 'skill-scripts-proposal-1024');
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await pw(confirm).toHaveCount(0);
      await pw(section.getByRole('button', { name: 'Install…' })).toBeFocused();
      const packages = await runCli(['--home', web.app.home, '--json', 'skills', 'native-runtime', 'list']);
      expect(
        (JSON.parse(packages.stdout) as { skills: Array<{ skill: string }> }).skills.map((s) => s.skill),
      ).toEqual(['doc-maker']);
      expect(web.problems).toEqual([]);
    }, 120_000);
  },
);
