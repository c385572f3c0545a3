// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStores, StoresProvider } from '../../stores.js';
import { inProcessClient } from '../../test-support.js';
import { ImportReport } from './ComposerView.js';
import type { ImportReportRow } from './composer-state.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
  vi.useRealTimers();
});

const row = (over: Partial<ImportReportRow> = {}): ImportReportRow => ({
  file: 'one.json',
  name: 'One',
  outcome: 'created',
  detail: '1.0.0 in the account store',
  issues: [],
  ...over,
});

function mount() {
  const { client, host } = inProcessClient();
  cleanups.push(() => host.dispose());
  const stores = createStores(client);
  const el = document.createElement('div');
  document.body.append(el);
  const root = createRoot(el);
  act(() =>
    root.render(
      <StoresProvider stores={stores}>
        <ImportReport />
      </StoresProvider>,
    ),
  );
  cleanups.push(() => {
    act(() => root.unmount());
    el.remove();
  });
  const report = () => el.querySelector('[aria-label="Import report"]');
  const finish = (rows: ImportReportRow[]) =>
    act(() => stores.composer.getState().dispatch({ type: 'import/finished', rows }));
  return { stores, report, finish };
}

describe('the import report', () => {
  it('goes by itself after a while when everything was imported, but not while the pointer is on it', () => {
    vi.useFakeTimers();
    const { report, finish } = mount();
    finish([row()]);
    expect(report()?.textContent).toContain('Import finished');
    act(() => report()!.dispatchEvent(new MouseEvent('mouseover', { bubbles: true })));
    act(() => vi.advanceTimersByTime(30_000));
    expect(report()).not.toBeNull();
    act(() => report()!.dispatchEvent(new MouseEvent('mouseout', { bubbles: true })));
    act(() => vi.advanceTimersByTime(10_000));
    expect(report()).toBeNull();
  });

  it('keeps a refusal until dismissed, and leaves when another skill is opened', () => {
    vi.useFakeTimers();
    const { stores, report, finish } = mount();
    finish([row({ outcome: 'refused', name: null, detail: 'not JSON' })]);
    act(() => vi.advanceTimersByTime(60_000));
    expect(report()?.textContent).toContain('Nothing was imported');
    act(() => stores.composer.setState({ open: 'account:Summarize' }));
    expect(report()).toBeNull();
  });
});
