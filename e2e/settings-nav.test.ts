// Settings' section list: every card's heading is listed, a section is reached by keyboard (its
// card scrolled into view and its heading focused), and the list stays usable at 1024 wide, in
// both themes (screenshots kept under test-artifacts/e2e).
import { expect, it } from 'vitest';
import { gotoChat } from './browser.js';
import { describeWeb, shot } from './web-suite.js';

describeWeb(
  "Settings' section navigation",
  { id: 'e2e/settings-nav', page: { timeoutMs: 8000 }, open: 'none', pagePerTest: true },
  (web) => {
    for (const [width, height] of [
      [1440, 900],
      [1024, 700],
    ] as const) {
      it(`lists the sections and reaches one by keyboard at ${width}×${height}`, async () => {
        await web.page.setViewportSize({ width, height });
        await gotoChat(web.page, web.app.server.url);
        await web.page.getByRole('button', { name: /^Settings/ }).click();
        const nav = web.page.getByRole('navigation', { name: 'Settings sections' });
        await nav.getByRole('button', { name: 'Appearance' }).waitFor();
        for (const name of ['Providers', 'Appearance']) {
          await expect.poll(() => nav.getByRole('button', { name }).count()).toBe(1);
        }
        await nav.getByRole('button', { name: 'Appearance' }).focus();
        await web.page.keyboard.press('Enter');
        await expect
          .poll(() => web.page.evaluate(() => document.activeElement?.textContent?.trim()))
          .toBe('Appearance');
        // Scrolled into the pane (smoothly: poll until it is there).
        await expect
          .poll(() =>
            web.page.getByRole('heading', { level: 2, name: 'Appearance' }).evaluate((h) => {
              const r = h.getBoundingClientRect();
              return r.top >= 0 && r.bottom <= window.innerHeight;
            }),
          )
          .toBe(true);
        await expect
          .poll(() => nav.getByRole('button', { name: 'Appearance' }).getAttribute('aria-current'))
          .toBe('true');
        await shot(web.page, `settings-nav-${width}-light`);
        await web.page.getByRole('radio', { name: /Dark/ }).click();
        await shot(web.page, `settings-nav-${width}-dark`);
        await web.page.getByRole('radio', { name: /System/ }).click();
        expect(web.problems).toEqual([]);
      });
    }
  },
);
