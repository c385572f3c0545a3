// @vitest-environment jsdom
// A run_script step in the skill activity: the files the script wrote are chips that download
// their bytes from the main process (a real host, a real script run in the sandbox).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../electron/test-support/index.js';
import { createStores, StoresProvider } from '../../stores.js';
import { inProcessClient } from '../../test-support.js';
import { scriptFilesOf } from './ScriptFiles.js';
import { ActivityStep, describeStep } from './SkillActivity.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const FIXTURE = join(PROJECT_ROOT, 'electron', 'tools', 'fixtures', 'skill-creator');

function folderFiles(dir: string) {
  const out: Array<{ path: string; data_base64: string }> = [];
  const walk = (abs: string) => {
    for (const name of readdirSync(abs)) {
      const p = join(abs, name);
      if (statSync(p).isDirectory()) walk(p);
      else
        out.push({
          path: `skill-creator/${relative(dir, p)}`,
          data_base64: readFileSync(p).toString('base64'),
        });
    }
  };
  walk(dir);
  return out;
}

describe('script output files in the skill activity', () => {
  it('lists nothing for results that are not a script run', () => {
    expect(scriptFilesOf({ error: 'x' })).toBeNull();
    expect(scriptFilesOf({ run_id: 'r', files: [{ path: 1 }] })).toBeNull();
    expect(scriptFilesOf('text')).toBeNull();
  });

  it('shows a chip per written file and downloads its bytes', async () => {
    const { client, host } = inProcessClient();
    const click = HTMLAnchorElement.prototype.click;
    try {
      await client.invoke('skills/import-files', { files: folderFiles(FIXTURE), scope: 'account' });
      const args = {
        name: 'skill-creator',
        script: 'scripts/aggregate_benchmark.py',
        args: ['scripts', '--skill-name', 'ui-demo', '-o', 'out/benchmark.json'],
      };
      const result = await client.invoke('scripts/run', args);
      const call = {
        id: 'c1',
        name: 'run_script',
        args,
        status: 'ok' as const,
        skill: 'skill-creator',
        result,
      };
      expect(describeStep(call, null, [])).toBe(
        'Ran skill-creator · scripts/aggregate_benchmark.py — exit 0 · 2 files',
      );
      const saved: Blob[] = [];
      const names: string[] = [];
      URL.createObjectURL = (b: Blob) => {
        saved.push(b);
        return 'blob:test';
      };
      URL.revokeObjectURL = () => {};
      HTMLAnchorElement.prototype.click = function click(this: HTMLAnchorElement) {
        names.push(this.download);
      };
      const el = document.createElement('div');
      document.body.append(el);
      const root = createRoot(el);
      await act(async () => {
        root.render(
          <StoresProvider stores={createStores(client)}>
            <ActivityStep call={call} onTrace={() => {}} />
          </StoresProvider>,
        );
      });
      const chips = [...el.querySelectorAll<HTMLButtonElement>('.script-file')];
      expect(chips.map((c) => c.textContent)).toEqual([
        expect.stringMatching(/out\/benchmark\.json .*B/),
        expect.stringMatching(/out\/benchmark\.md .*B/),
      ]);
      await act(async () => chips[0]!.click());
      await expect.poll(() => saved.length).toBe(1);
      expect(names).toEqual(['benchmark.json']);
      expect(saved[0]!.type).toBe('application/json');
      expect(JSON.parse(await saved[0]!.text()).metadata.skill_name).toBe('ui-demo');
      // Save to…: the engine's save dialog (the desktop's own) gets the name and the bytes.
      const written: Blob[] = [];
      const suggested: string[] = [];
      (window as unknown as { showSaveFilePicker: unknown }).showSaveFilePicker = async (o: {
        suggestedName: string;
      }) => {
        suggested.push(o.suggestedName);
        return {
          createWritable: async () => ({
            write: async (b: Blob) => {
              written.push(b);
            },
            close: async () => {},
          }),
        };
      };
      const saveTo = el.querySelector<HTMLButtonElement>('button[aria-label="Save out/benchmark.md to…"]');
      expect(saveTo).not.toBeNull();
      await act(async () => saveTo!.click());
      await expect.poll(() => written.length).toBe(1);
      expect(suggested).toEqual(['benchmark.md']);
      expect(await written[0]!.text()).toMatch(/ui-demo/);
      delete (window as unknown as { showSaveFilePicker?: unknown }).showSaveFilePicker;
      root.unmount();
    } finally {
      HTMLAnchorElement.prototype.click = click;
      await host.dispose();
    }
  }, 120_000);
});
