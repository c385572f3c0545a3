// @vitest-environment jsdom
// The `/` menu shows a skill's argument hint (Claude Code's `argument-hint`) next to its name, as
// skills/list reports it for a SKILL.md that sets one.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { loadPackages, packageForChannel } from '../../../electron/skills/import.js';
import { DEFAULT_LIMITS } from '../../../electron/skills/limits.js';
import { tempDir, testHost } from '../../../electron/test-support/index.js';
import { SlashMenu, slashItems } from './ComposerExtras.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('the / menu and argument-hint', () => {
  it('shows the hint after the name, and nothing for a skill without one', async () => {
    const root = tempDir();
    for (const [slug, extra] of [
      ['convert-file', 'argument-hint: "[file] [format]"\n'],
      ['convert-notes', ''],
    ] as const) {
      mkdirSync(join(root, slug));
      writeFileSync(
        join(root, slug, 'SKILL.md'),
        `---\nname: ${slug}\ndescription: Convert things.\n${extra}---\nBody.\n`,
      );
    }
    const host = testHost();
    const ctx = { transport: 'in-process' as const };
    const loaded = await loadPackages(root, DEFAULT_LIMITS);
    await host.handlers['skills/import-packages'](
      { packages: loaded.map((l) => ({ file_name: l.file, package: packageForChannel(l) })) },
      ctx,
    );
    const { skills } = await host.handlers['skills/list']({}, ctx);
    const el = document.createElement('div');
    document.body.append(el);
    const r = createRoot(el);
    await act(async () =>
      r.render(<SlashMenu items={slashItems(skills, [], 'convert')} cursor={0} onPick={() => {}} />),
    );
    const names = [...el.querySelectorAll('.slash__name')].map((n) => n.textContent);
    expect(names).toEqual(['convert-file [file] [format]', 'convert-notes']);
    expect(el.querySelector('.slash__hint')?.textContent?.trim()).toBe('[file] [format]');
    act(() => r.unmount());
  });
});
