/**
 * "Skills considered" under a user's message: phase 1's candidates with their scores
 * and matched fields, and why a named skill was not chosen — driven by the keyboard in Chromium
 * against web mode, with screenshots at 1440×900 and 1024×700, light and dark.
 */
import { expect, it } from 'vitest';
import { describeWeb, shot } from './web-suite.js';

describeWeb('skills considered for a turn, in Chromium', { id: 'e2e/turn-candidates' }, (web) => {
  it('lists the candidates of a turn and says why a named skill was not chosen', async () => {
    const composer = web.page.getByRole('textbox', { name: 'Message' });
    await composer.fill('are there any contradictions in my meeting notes?');
    await composer.press('Enter');
    const mine = web.page.locator('.msg--user').last();
    const summary = mine.getByText('Skills considered');
    await summary.waitFor();
    await summary.focus();
    await web.page.keyboard.press('Enter');
    // A small catalog fits the listing budget: the turn says the model saw all of it.
    await expect
      .poll(() => mine.locator('.p1__listing').textContent())
      .toMatch(/^Every enabled skill fit the listing budget/);
    const rows = mine.getByRole('list', { name: 'Phase-1 candidates' }).locator('.p1__row');
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    await expect.poll(() => rows.first().locator('.p1__name').textContent()).toBe('Consistency Checker');
    await expect
      .poll(() => rows.first().locator('.p1__why').textContent())
      .toMatch(/trigger phrase “are there any contradictions”/);

    const ask = mine.getByLabel('Why not…');
    await ask.fill('CSV Statistics');
    await ask.press('Enter');
    const verdict = mine.getByRole('status');
    await expect.poll(() => verdict.textContent()).toMatch(/^CSV Statistics shares no word \(nor synonym\)/);

    await shot(web.page, 'turn-candidates-1440-light');
    await web.page.emulateMedia({ colorScheme: 'dark' });
    await shot(web.page, 'turn-candidates-1440-dark');
    await web.page.setViewportSize({ width: 1024, height: 700 });
    await mine.scrollIntoViewIfNeeded();
    await shot(web.page, 'turn-candidates-1024-dark');
    await web.page.emulateMedia({ colorScheme: 'light' });
    await shot(web.page, 'turn-candidates-1024-light');
    expect(web.problems).toEqual([]);
  });
});
