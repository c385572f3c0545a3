// @vitest-environment jsdom
// A running skill step waiting on a cold Python sandbox says so, with the last cold start as the
// estimate, and stops saying it once the sandbox is ready.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import type { ProgressTask } from '../../../electron/contract/progress.js';
import { createStores, StoresProvider } from '../../stores.js';
import { inProcessClient } from '../../test-support.js';
import { ActivityStep, sandboxStartText } from './SkillActivity.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('the cold start inside a running tool card', () => {
  it('says how long against the last cold start, and when it is taking longer', () => {
    expect(sandboxStartText(2, 4)).toBe(
      'Starting the Python sandbox… 2 s of about 4 s (the last cold start)',
    );
    expect(sandboxStartText(12, 4)).toBe(
      'Starting the Python sandbox… 12 s, longer than the last cold start (about 4 s): the machine is busier. Stop cancels it.',
    );
    expect(sandboxStartText(3, null)).toMatch(/its first start here: it depends on how busy the machine is/);
  });

  it('shows what the sandbox is doing and the estimate, then goes', async () => {
    const { client } = inProcessClient();
    const stores = createStores(client);
    const task: ProgressTask = {
      id: 't1',
      kind: 'sandbox',
      label: 'Starting the Python sandbox',
      state: 'running',
      detail: 'Loading Pyodide (about 4 s last time)',
      fraction: null,
      cancellable: true,
      started_at: new Date(Date.now() - 2000).toISOString(),
      estimate_ms: 4200,
    };
    const el = document.createElement('div');
    document.body.append(el);
    const root = createRoot(el);
    const call = {
      id: 'c1',
      name: 'apply_skill',
      args: { name: 'CSV Statistics' },
      status: 'running',
    } as never;
    await act(async () => {
      stores.workspace.setState({ tasks: [task] });
      root.render(
        <StoresProvider stores={stores}>
          <ActivityStep call={call} onTrace={() => {}} />
        </StoresProvider>,
      );
    });
    const line = () => el.querySelector('.step__progress')?.textContent ?? null;
    expect(line()).toMatch(/^Starting the Python sandbox… [23] s of about 4 s \(the last cold start\)$/);
    await act(async () => {
      stores.workspace.setState({ tasks: [{ ...task, state: 'done', detail: 'Ready' }] });
    });
    expect(line()).toBeNull();
    // A tool that cannot run Python never shows it.
    await act(async () => {
      stores.workspace.setState({ tasks: [task] });
      root.render(
        <StoresProvider stores={stores}>
          <ActivityStep call={{ ...(call as object), name: 'list_skills' } as never} onTrace={() => {}} />
        </StoresProvider>,
      );
    });
    expect(line()).toBeNull();
    root.unmount();
  });
});
