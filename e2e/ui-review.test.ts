/**
 * A demanding new user's tour of the whole UI in Chromium against web mode (fresh home, the
 * loopback provider): every stop screenshotted at 1440×900 and 1024×700, light and dark, into
 * test-artifacts/review/, with checks for the rough edges the review found and fixed.
 */
import { expect as pw } from '@playwright/test';
import type { Locator } from 'playwright-core';
import { expect, it } from 'vitest';
import { connectProvider } from './browser.js';
import { describeWeb, shotSizes } from './web-suite.js';

const LONG_REPLY = [
  '## Plan\n\nHere is a **plan** with `inline code`, a [link](https://example.com) and a list:\n\n',
  '1. Read the file\n2. Parse it\n3. Report\n\n',
  '```typescript\nexport function parse(text: string): string[] {\n  return text.split(/\\n/).filter((line) => line.trim().length > 0).map((line) => line.replace(/\\s+/g, " ").trim());\n}\n```\n\n',
  '> A quote that says something wise about parsing.\n\n',
  '| Step | Cost | Notes |\n|---|---|---|\n| read | 1 ms | from disk |\n| parse | 3 ms | one pass |\n\n',
  '```bash\nnpm run build && npm test\n```\n',
];

const SCRIPT = [
  { text: 'Hello! I can help with that. What would you like to start with?' },
  {
    tool_calls: [
      {
        name: 'apply_skill',
        arguments: {
          name: 'Summarize',
          ctx: { text: 'The team agreed to ship on Friday after the security review.' },
        },
      },
    ],
  },
  // The Summarize prompt template, rendered and sent to the model.
  { text: 'Ships Friday, after the security review.' },
  { text: 'In short: the team ships on Friday, after the security review.' },
  {
    tool_calls: [
      {
        name: 'apply_skill',
        arguments: { name: 'CSV Statistics', ctx: { csv_text: 'a,b\n1,x\n2,y\n3,x\n' } },
      },
    ],
  },
  { text: 'Column **a** averages 2; column **b** has 2 distinct values.' },
  { text: LONG_REPLY },
  { text: 'Sure — the parser above skips blank lines.' },
  { text: LONG_REPLY },
];

describeWeb(
  'UI review tour in Chromium',
  { id: 'e2e/ui-review', script: { turns: SCRIPT, api_key: 'sk-review' }, page: { timeoutMs: 15_000 } },
  (web) => {
    /** Screenshot the page at 1440×900 and 1024×700, light and dark; leave it at 1440 light. */
    const shoot = (name: string) =>
      shotSizes(web.page, name, { dir: 'review', label: 'width', animations: 'disabled' });

    /** WCAG contrast of an element's text against the first opaque background behind it. */
    function contrastOf(target: string | Locator): Promise<number> {
      return (typeof target === 'string' ? web.page.locator(target) : target).first().evaluate((el) => {
        const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
        const lum = ([r, g, b]: number[]) => {
          const f = (v: number) => {
            const x = v / 255;
            return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
          };
          return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
        };
        let bg: number[] = [255, 255, 255];
        for (let n: Element | null = el; n; n = n.parentElement) {
          const c = rgb(getComputedStyle(n).backgroundColor);
          if (c.length === 3 || (c.length === 4 && c[3] === 1)) {
            bg = c.slice(0, 3);
            break;
          }
        }
        const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(bg)].sort((x, y) => y - x);
        return (a! + 0.05) / (b! + 0.05);
      });
    }

    /** Whether an element's computed colours are those of CSS values (custom properties resolved). */
    function looksLike(target: Locator, want: { background: string; color: string }): Promise<boolean> {
      return target.evaluate((el, w) => {
        const probe = document.createElement('div');
        probe.style.background = w.background;
        probe.style.color = w.color;
        document.body.append(probe);
        const p = getComputedStyle(probe);
        const [bg, color] = [p.backgroundColor, p.color];
        probe.remove();
        const got = getComputedStyle(el);
        return got.backgroundColor === bg && got.color === color;
      }, want);
    }

    /** A disabled button has the one disabled look in both schemes, its label still legible. */
    async function expectDisabledLook(button: Locator) {
      await pw(button).toBeDisabled();
      for (const scheme of ['light', 'dark'] as const) {
        await web.page.emulateMedia({ colorScheme: scheme });
        await expect
          .poll(() => looksLike(button, { background: 'var(--surface-3)', color: 'var(--text-3)' }))
          .toBe(true);
        expect(await contrastOf(button)).toBeGreaterThanOrEqual(4);
      }
      await web.page.emulateMedia({ colorScheme: 'light' });
    }

    const composer = () => web.page.getByRole('textbox', { name: 'Message' });
    const replies = () => web.page.locator('.msg--assistant');
    const send = async (text: string) => {
      await composer().fill(text);
      await composer().press('Enter');
    };

    it('first launch: the empty states', async () => {
      // Muted text (the sidebar's empty chats note, the composer's key hints) is readable in both schemes.
      for (const scheme of ['light', 'dark'] as const) {
        await web.page.emulateMedia({ colorScheme: scheme });
        expect(await contrastOf('.sessions__empty')).toBeGreaterThanOrEqual(4.5);
        expect(await contrastOf('.composer__hint')).toBeGreaterThanOrEqual(4.5);
      }
      await web.page.emulateMedia({ colorScheme: 'light' });
      // Each suggestion brings what its skill needs (no workspace notes), so it works as picked: a
      // built-in skill activates first. The CSV one carries its data.
      const hint = web.page.getByRole('region', { name: 'Skills that would activate' });
      for (const [title, skill] of [
        ['Summarize', 'Summarize'],
        ['Translate', 'Translate'],
        ['Action items', 'Meeting Action Items'],
        ['Crunch a CSV', 'CSV Statistics'],
      ] as const) {
        await web.page.getByRole('button', { name: new RegExp(`^${title}`) }).click();
        await pw(hint.locator('.hint__skill').first()).toContainText(skill);
      }
      await expect.poll(() => composer().inputValue()).toContain('Oslo,4');
      await composer().fill('');
      await shoot('01-first-launch');
      await web.page.keyboard.press('Control+2');
      await web.page.getByRole('listbox', { name: 'Skills' }).getByRole('option').first().waitFor();
      await shoot('02-skills-empty-detail');
      await web.page.keyboard.press('Control+3');
      // With nothing open, the editor's empty state has the test column's room too (no blank column).
      const blank = web.page.getByRole('main', { name: 'Editor' });
      await pw(blank.getByText('Open a skill to edit it')).toBeVisible();
      await pw(web.page.getByRole('complementary', { name: 'Test' })).toHaveCount(0);
      const mainBox = (await blank.boundingBox())!;
      const ctas = (await blank.getByRole('button', { name: 'Import a folder' }).boundingBox())!;
      expect(ctas.x + ctas.width).toBeLessThan(mainBox.x + mainBox.width - 40);
      await shoot('03-composer-first');
      await web.page.keyboard.press('Control+5');
      // Nothing to export yet: the button looks disabled in both schemes.
      await expectDisabledLook(web.page.getByRole('button', { name: 'Export JSONL' }));
      await shoot('04-traces-empty');
      await web.page.keyboard.press('Control+4');
      // With no model yet, Settings says the steps to get one, and that a local model needs no account.
      const start = web.page.locator('.providers__start');
      await pw(start).toContainText('No model yet.');
      await pw(start).toContainText('OpenAI-compatible');
      // An info callout has the accent's colours, not a warning's.
      for (const scheme of ['light', 'dark'] as const) {
        await web.page.emulateMedia({ colorScheme: scheme });
        await expect
          .poll(() => looksLike(start, { background: 'var(--accent-soft)', color: 'var(--text)' }))
          .toBe(true);
      }
      await web.page.emulateMedia({ colorScheme: 'light' });
      await shoot('05-settings-first');
      await web.page.keyboard.press('Control+1');
    }, 120_000);

    it('keeps the sidebar search label whole at 1024 px', async () => {
      await web.page.setViewportSize({ width: 1024, height: 700 });
      const label = web.page.locator('.sidebar__search span').first();
      await pw(label).toHaveText('Search skills');
      await expect.poll(() => label.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      await web.page.setViewportSize({ width: 1440, height: 900 });
    });

    it('lists the keyboard shortcuts from the keyboard and from the sidebar', async () => {
      const dialog = web.page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await web.page.keyboard.press('Control+/');
      await pw(dialog).toBeVisible();
      await pw(dialog.getByRole('region', { name: 'Anywhere' })).toContainText('Search skills');
      // In a browser Ctrl N opens a window (the page never sees it): the list says what to use instead.
      await pw(dialog).toContainText('New chat, in the desktop app (here: the + beside Chats)');
      await shoot('06a-shortcuts');
      await web.page.keyboard.press('Escape');
      await pw(dialog).toBeHidden();
      // `?` is text in the message box, and opens the list anywhere else.
      await composer().focus();
      await web.page.keyboard.press('?');
      await expect.poll(() => composer().inputValue()).toBe('?');
      await pw(dialog).toBeHidden();
      await composer().fill('');
      await web.page.getByRole('heading', { name: 'Welcome to SkillDesk' }).click();
      await web.page.keyboard.press('?');
      await pw(dialog).toBeVisible();
      await dialog.getByRole('button', { name: 'Close' }).click();
      await pw(dialog).toBeHidden();
      await web.page.getByRole('button', { name: /Shortcuts/ }).click();
      await pw(dialog).toBeVisible();
      await web.page.keyboard.press('Escape');
      await pw(dialog).toBeHidden();
    });

    it('starts the next Tab inside a view opened from the keyboard', async () => {
      await composer().focus();
      await web.page.keyboard.press('Control+4');
      await web.page.getByRole('heading', { level: 2, name: 'Providers' }).waitFor();
      await web.page.keyboard.press('Tab');
      const inMain = () => web.page.evaluate(() => Boolean(document.activeElement?.closest('.main__view')));
      await expect.poll(inMain).toBe(true);
      await web.page.keyboard.press('Control+5');
      await web.page.getByRole('heading', { level: 1, name: 'Traces' }).waitFor();
      await web.page.keyboard.press('Tab');
      await expect.poll(inMain).toBe(true);
      await web.page.keyboard.press('Control+1');
      await composer().waitFor();
    });

    it('connects the loopback provider and has a first chat', async () => {
      await connectProvider(web.page, web.provider.url, 'sk-review');
      await pw(web.page.locator('.providers__start')).toHaveCount(0);
      await shoot('06-settings-connected');
      await web.page.keyboard.press('Control+1');
      await shoot('07-chat-ready');
      await send('Hi there');
      await replies().last().getByText('What would you like to start with?').waitFor();
      await shoot('08-first-chat');
      await web.page.locator('.chat__model-menu button').first().click();
      // Only providers a chat can reach: no OpenAI-compatible group when no server URL is set.
      const models = web.page.getByRole('menu', { name: 'Model for this chat' });
      await pw(models.getByRole('menuitemradio', { name: 'loopback-gpt' })).toBeVisible();
      await pw(models).not.toContainText('OpenAI-compatible');
      await shoot('08b-model-picker');
      await web.page.keyboard.press('Escape');
    }, 120_000);

    it('a chat using a prompt skill and a Python skill', async () => {
      await web.page.getByRole('button', { name: 'New chat' }).click();
      await send('Summarize this: the team agreed to ship on Friday after the security review.');
      await replies()
        .last()
        .getByText(/ships on Friday/)
        .waitFor();
      // Under a question, its hover-only actions share one line with "Skills considered": no extra air.
      const asked = web.page.locator('.msg--user').last();
      await pw(asked.getByText('Skills considered')).toBeVisible();
      const col = (await asked.locator('.msg__user-col').boundingBox())!;
      const bubble = (await asked.locator('.msg__bubble').boundingBox())!;
      expect(col.height - bubble.height).toBeLessThanOrEqual(30);
      await shoot('09-chat-prompt-skill');
      // Still keyboard-reachable: focused, the hidden actions show, on that same line.
      const edit = asked.getByRole('button', { name: 'Edit message' });
      await edit.focus();
      await expect.poll(() => edit.evaluate((el) => getComputedStyle(el).opacity)).toBe('1');
      expect((await asked.locator('.msg__user-col').boundingBox())!.height).toBe(col.height);
      await asked.locator('.msg__bubble').hover();
      await shoot('09a-question-actions');
      await web.page.mouse.move(0, 0);
      await send('Compute statistics for the columns of this CSV: a,b 1,x 2,y 3,x');
      await replies()
        .last()
        .getByText(/averages 2/)
        .waitFor({ timeout: 60_000 });
      // The sandbox's start shows in the progress area, which must not cover the Send button.
      const progress = web.page.getByRole('region', { name: 'Background work' });
      await pw(progress).toContainText('Starting the Python sandbox');
      for (const [w, h] of [
        [1440, 900],
        [1024, 700],
      ] as const) {
        await web.page.setViewportSize({ width: w, height: h });
        const a = (await progress.boundingBox())!;
        const b = (await web.page.getByRole('button', { name: 'Send' }).boundingBox())!;
        const overlap =
          a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
        expect(overlap).toBe(false);
        // Nor anything else in the view (bubbles, a trace's facts): it sits in the sidebar.
        const main = (await web.page.locator('main.main').boundingBox())!;
        expect(a.x + a.width).toBeLessThanOrEqual(main.x);
      }
      await web.page.setViewportSize({ width: 1440, height: 900 });
      await shoot('10-chat-python-skill');
      await replies()
        .last()
        .getByRole('region', { name: 'Skill activity' })
        .getByRole('button')
        .first()
        .click();
      await shoot('10b-skill-activity-open');
      await replies().last().locator('.trace-link').first().click();
      await web.page.getByRole('dialog', { name: 'Trace' }).waitFor();
      await shoot('10b2-trace-drawer');
      await web.page.keyboard.press('Escape');
      await web.page.getByText('Skills considered').last().click();
      await shoot('10c-skills-considered');
      await web.page.keyboard.press('Control+5');
      await web.page.locator('.traces__list').first().waitFor();
      await shoot('10d-traces');
      await web.page.keyboard.press('Control+1');
    }, 120_000);

    it('a long conversation with code and Markdown', async () => {
      await web.page.getByRole('button', { name: 'New chat' }).click();
      await send('Write me a parser plan with code');
      await replies().last().locator('table').waitFor();
      await send('Does it skip blank lines?');
      await replies()
        .last()
        .getByText(/skips blank lines/)
        .waitFor();
      await send('Show the plan again');
      await replies().nth(2).locator('table').waitFor();
      const first = replies().first();
      const quote = (await first.locator('blockquote').boundingBox())!;
      const para = (await first.locator('.md > p').first().boundingBox())!;
      expect(Math.abs(quote.x - para.x)).toBeLessThan(1);
      // An older reply's usage line starts where its text does (the hover-only icons come after it).
      const usage = (await first.locator('.msg__usage').boundingBox())!;
      expect(Math.abs(usage.x - para.x)).toBeLessThan(1);
      await shoot('11-long-chat-bottom');
      await web.page.locator('.msg').first().scrollIntoViewIfNeeded();
      await shoot('12-long-chat-top');
    }, 120_000);

    it('skills list, search and keyboard', async () => {
      await web.page.keyboard.press('Control+K');
      await web.page.getByRole('combobox', { name: 'Search skills' }).fill('csv');
      // At 1024 px the kind filter ends where the search box ends, inside the list pane.
      await web.page.setViewportSize({ width: 1024, height: 700 });
      const search = (await web.page.locator('.list-pane .search').boundingBox())!;
      const kind = (await web.page.getByLabel('Artifact kind').boundingBox())!;
      expect(kind.x + kind.width).toBeLessThanOrEqual(search.x + search.width + 0.5);
      await web.page.setViewportSize({ width: 1440, height: 900 });
      await shoot('13-skills-search');
      await web.page.keyboard.press('Enter');
      await web.page.getByRole('heading', { level: 2, name: 'CSV Statistics' }).waitFor();
      await shoot('14-skill-detail');
      await web.page.getByRole('combobox', { name: 'Search skills' }).fill('zzzzqqq');
      await shoot('15-skills-search-empty');
      // A search that finds nothing leads on: write the skill in the Composer.
      await web.page.getByRole('button', { name: 'Write one in the Composer' }).click();
      const chooser = web.page.getByRole('dialog', { name: 'New skill' });
      await pw(chooser).toBeVisible();
      await chooser.getByRole('button', { name: 'Cancel' }).click();
      await web.page.keyboard.press('Control+2');
      await web.page.getByRole('combobox', { name: 'Search skills' }).fill('');
      // The detail is no dead end: one click opens the skill in the Composer.
      await web.page
        .getByRole('listbox', { name: 'Skills' })
        .getByRole('option', { name: /CSV Statistics/ })
        .click();
      await web.page.getByRole('button', { name: 'Open in Composer' }).click();
      await pw(web.page.getByRole('heading', { level: 1, name: 'Composer' })).toBeVisible();
      await pw(
        web.page
          .getByRole('main', { name: 'Editor' })
          .getByRole('heading', { level: 2, name: 'CSV Statistics' }),
      ).toBeVisible();
    }, 120_000);

    it('the Skill Composer: create, edit, test, errors', async () => {
      await web.page.keyboard.press('Control+3');
      await web.page.getByRole('button', { name: 'New', exact: true }).click();
      await shoot('16-composer-new');
      await web.page.getByRole('button', { name: /Prompt skill/ }).click();
      const editor = web.page.getByRole('textbox', { name: 'Content of Prompt' });
      await editor.click();
      await web.page.keyboard.press('Control+A');
      await web.page.keyboard.press('Delete');
      await editor.pressSequentially('Dear {{ name }},\n{% if topic %}Write about {{ topic }}.');
      await pw(web.page.locator('.sc-code .cm-lint-marker-error')).toHaveCount(1);
      await shoot('17-composer-error');
      await web.page.keyboard.press('Control+End');
      await editor.pressSequentially('{% endif %}');
      await web.page.getByRole('button', { name: 'Save', exact: true }).click();
      await pw(web.page.getByText(/^Saved My prompt skill/)).toBeVisible();
      await web.page.getByRole('button', { name: 'Render only' }).click();
      // The template now reads "name", which the context lacks: said before and after the run fails.
      const missing = web.page.locator('.sc-test__missing');
      await pw(missing).toContainText('“name”');
      await shoot('18-composer-test');
      await missing.getByRole('button', { name: 'Add it' }).click();
      await pw(missing).toHaveCount(0);
      await pw(web.page.getByRole('textbox', { name: 'Test context' })).toContainText('"name"');
      // Saved and unchanged: Save is disabled, and looks it in both schemes.
      await expectDisabledLook(web.page.getByRole('button', { name: 'Save', exact: true }));
      // A second version, then a restore of the first: the restore is saved, and the header says so.
      await editor.click();
      await web.page.keyboard.press('Control+End');
      await editor.pressSequentially(' Thanks.');
      await pw(web.page.getByText('Unsaved changes')).toBeVisible();
      await web.page.getByRole('button', { name: 'Save', exact: true }).click();
      await pw(web.page.getByText(/^Saved · /)).toBeVisible();
      await web.page.getByRole('tab', { name: 'History' }).click();
      await web.page.getByRole('button', { name: 'Restore' }).last().click();
      await web.page.getByRole('alertdialog').getByRole('button', { name: 'Restore' }).click();
      await pw(web.page.getByText(/^Restored My prompt skill/)).toBeVisible();
      await pw(web.page.getByText(/^Saved · /)).toBeVisible();
      await pw(web.page.getByText('Unsaved changes')).toHaveCount(0);
      await shoot('18c-composer-restored');
    }, 120_000);

    it('workspaces and settings', async () => {
      await web.page.getByRole('searchbox', { name: 'Search chats' }).fill('friday');
      await shoot('18b-chat-search');
      await web.page.getByRole('searchbox', { name: 'Search chats' }).fill('');
      await web.page.keyboard.press('Control+O');
      await web.page.getByRole('dialog').first().waitFor();
      await shoot('19-workspace-dialog');
      await web.page.keyboard.press('Escape');
      await web.page.keyboard.press('Control+4');
      await shoot('20-settings');
    }, 120_000);

    it('an unreachable provider', async () => {
      await web.page.getByLabel('Base URL').fill('http://127.0.0.1:9/v1');
      await web.page.getByRole('button', { name: 'Use this provider' }).click();
      await web.page.getByText('Provider saved.').waitFor();
      await web.page.keyboard.press('Control+1');
      await web.page.getByRole('button', { name: 'New chat' }).click();
      await send('Anyone there?');
      await replies()
        .last()
        .getByText(/Couldn’t reach/)
        .waitFor({ timeout: 60_000 });
      const failed = replies().last();
      await pw(failed.getByRole('button', { name: 'Retry' })).toBeVisible();
      await pw(failed.getByRole('button', { name: 'Regenerate reply' })).toHaveCount(0);
      await shoot('21-provider-unreachable');
      expect(web.problems.filter((p) => !/ERR_CONNECTION|Failed to load/.test(p))).toEqual([]);
    }, 120_000);
  },
);
