// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { createStores, StoresProvider } from '../../stores.js';
import { inProcessClient, samplePackage } from '../../test-support.js';
import { describeVerdict, fieldsLine, listingLine, plainWhy, TurnCandidates } from './TurnCandidates.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/**
 * Wait for the DOM to show something, up to 15 s of wall clock: a budget of 200 ticks (~2 s) was
 * too tight for a first ranking on a loaded machine (two cores, several suites at once).
 */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (check()) return;
    await act(() => new Promise((r) => setTimeout(r, 10)));
  }
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('TurnCandidates (skills considered under a message)', () => {
  it('says in words why a named skill was or was not chosen', () => {
    const v = { name: 'pptx', scope: 'account' as const, rank: 7, score: 0.4, above: 6 };
    expect(describeVerdict({ ...v, reason: 'lower_score' })).toMatch(
      /^pptx ranked 7: 6 skills scored higher/,
    );
    expect(describeVerdict({ ...v, rank: 2, above: 1, reason: 'matched' })).toBe(
      'pptx was chosen: rank 2 of the top 5.',
    );
    expect(describeVerdict({ ...v, reason: 'no_term_overlap' })).toMatch(/shares no word/);
    expect(describeVerdict({ ...v, scope: null, reason: 'not_found' })).toMatch(/No skill is named “pptx”/);
    expect(fieldsLine({ name: ['haiku'], description: ['haiku', 'topic'], tags: [] })).toBe(
      'name: haiku · description: haiku topic',
    );
  });

  it('says what the model saw of the catalog: all of it, or how many skills were left out', () => {
    expect(listingLine({ whole: true, unlisted: 0 })).toMatch(/saw the whole catalog/);
    expect(listingLine({ whole: false, unlisted: 1 })).toMatch(/1 other skill was left out/);
    expect(listingLine({ whole: false, unlisted: 1007 })).toMatch(
      /1,007 other skills were left out of its prompt/,
    );
    const { client } = inProcessClient();
    const stores = createStores(client);
    const host = document.createElement('div');
    const root = createRoot(host);
    act(() =>
      root.render(
        <StoresProvider stores={stores}>
          <TurnCandidates message="hello" listing={{ whole: false, unlisted: 1007 }} />
        </StoresProvider>,
      ),
    );
    expect(host.querySelector('.p1__summary')?.textContent?.trim()).toBe(
      'Skills considered· 1,007 not listed',
    );
    expect(host.querySelector('.p1__listing')?.textContent).toMatch(/1,007 other skills/);
    act(() => root.unmount());
  });

  it('says why a skill was considered in the words of the message, not stems', async () => {
    const { client } = inProcessClient();
    const message = 'Compute the statistics of this CSV column';
    const r = await client.call('skills/match', { message, limit: 5, explain: true });
    if (!r.ok || !r.value.explain) throw new Error('no explanation');
    const { candidates, query_terms } = r.value.explain;
    const csv = candidates.find((c) => c.name === 'CSV Statistics')!;
    const why = plainWhy(csv, query_terms, message);
    expect(why).toMatch(/^matched on /);
    expect(why).toContain('“CSV”');
    expect(why).toContain('“statistics”');
    expect(why).not.toMatch(/comput\b|statist\b|instructions:/);
    // Considered for its meaning alone: said so.
    expect(plainWhy({ ...csv, fields: {}, exact_trigger: null }, query_terms, message)).toBe(
      'close in meaning',
    );
  });

  it('never says a skill matched on a word it does not contain: a synonym-only match is close in meaning', () => {
    const message = 'write me a haiku about the sea';
    const terms = [
      { term: 'haiku', source: 'message' as const, from: 'haiku', weight: 1, df: 0 },
      { term: 'poem', source: 'synonym' as const, from: 'haiku', weight: 0.5, df: 3 },
      { term: 'sea', source: 'message' as const, from: 'sea', weight: 1, df: 1 },
    ];
    const candidate = {
      name: 'brand-guidelines',
      scope: 'account' as const,
      score: 0.5,
      bm25: 1,
      semantic: null,
      fields: { description: ['poem'] },
      exact_trigger: null,
    } as unknown as Parameters<typeof plainWhy>[0];
    const why = plainWhy(candidate, terms, message);
    expect(why).not.toContain('haiku');
    expect(why).toBe('close in meaning (it has “poem”, related to your words)');
    expect(plainWhy({ ...candidate, fields: { description: ['poem', 'sea'] } }, terms, message)).toBe(
      'matched on “sea”',
    );
  });

  it("lists the turn's candidates with scores and matched fields, and explains a skill that was not chosen", async () => {
    const { client } = inProcessClient();
    const imported = await client.call('skills/import-package', {
      package: samplePackage(),
      scope: 'account',
    });
    expect(imported.ok).toBe(true);
    const stores = createStores(client);
    const el = document.createElement('div');
    document.body.append(el);
    const root = createRoot(el);
    await act(async () => {
      root.render(
        <StoresProvider stores={stores}>
          <TurnCandidates message="write a haiku about the sea" />
        </StoresProvider>,
      );
    });
    const details = el.querySelector('details')!;
    expect(el.querySelector('summary')!.textContent).toContain('Skills considered');
    await act(async () => {
      details.open = true;
      details.dispatchEvent(new Event('toggle'));
    });
    await until(() => el.querySelectorAll('.p1__row').length > 0, 'the candidates');
    const first = el.querySelector('.p1__row')!;
    expect(first.querySelector('.p1__name')!.textContent).toBe('Haiku Helper');
    expect(first.querySelector('.p1__why')!.textContent).toMatch(
      /^trigger phrase “write a haiku” · matched on .*“haiku”/,
    );
    // The stems stay one hover away.
    expect(first.querySelector('.p1__why')!.getAttribute('title')).toMatch(/name: haiku/);
    expect(Number(first.querySelector('.p1__score')!.textContent)).toBeGreaterThanOrEqual(1);

    const input = el.querySelector('input')!;
    await act(async () => {
      const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
      set.call(input, 'Consistency Checker');
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => {
      el.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await until(() => el.querySelector('.p1__verdict') !== null, 'the verdict');
    expect(el.querySelector('.p1__verdict')!.textContent).toMatch(
      /^Consistency Checker shares no word \(nor synonym\) with this message/,
    );
    await act(async () => root.unmount());
    el.remove();
  });

  it('says, when nothing matched by words or meaning, what to do in the Composer', async () => {
    const { client } = inProcessClient();
    expect(
      (await client.call('skills/import-package', { package: samplePackage(), scope: 'account' })).ok,
    ).toBe(true);
    const el = document.createElement('div');
    document.body.append(el);
    const root = createRoot(el);
    await act(async () => {
      root.render(
        <StoresProvider stores={createStores(client)}>
          <TurnCandidates message="zxqv plork" />
        </StoresProvider>,
      );
    });
    await act(async () => {
      const details = el.querySelector('details')!;
      details.open = true;
      details.dispatchEvent(new Event('toggle'));
    });
    await until(() => el.querySelector('.p1__empty') !== null, 'the empty state');
    expect(el.querySelectorAll('.p1__row')).toHaveLength(0);
    expect(el.querySelector('.p1__empty')!.textContent).toMatch(
      /none shares a word.*close enough to it in\s+meaning.*trigger phrases\s+or intent patterns in the Composer \(Ctrl 3\)/s,
    );
    await act(async () => root.unmount());
    el.remove();
  });
});
