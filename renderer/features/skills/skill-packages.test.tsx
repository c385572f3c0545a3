// @vitest-environment jsdom
// A skill whose scripts need packages (its requirements.txt) shows them in its detail pane with an
// Install button that fetches them for real (pip, pure-Python wheels, PyPI), then says they are in
// place; a package that cannot run in the sandbox is refused in words.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { createStores, StoresProvider } from '../../stores.js';
import { inProcessClient } from '../../test-support.js';
import { requirementLines, SkillDetailPane } from './SkillDetailPane.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const file = (path: string, text: string) => ({ path, data_base64: Buffer.from(text).toString('base64') });

async function openWith(requirements: string) {
  const { client, host } = inProcessClient();
  await client.invoke('skills/import-files', {
    files: [
      file(
        'six-user/SKILL.md',
        '---\nname: six-user\ndescription: Uses six in a script.\n---\nRun the script.\n',
      ),
      file('six-user/scripts/check.py', 'import six\nprint(six.__version__)\n'),
      file('six-user/scripts/requirements.txt', requirements),
    ],
    scope: 'account',
  });
  const stores = createStores(client);
  await stores.skills.getState().openSkill('account:six-user');
  const el = document.createElement('div');
  document.body.append(el);
  const root = createRoot(el);
  await act(async () => {
    root.render(
      <StoresProvider stores={stores}>
        <SkillDetailPane />
      </StoresProvider>,
    );
  });
  const button = () => el.querySelector<HTMLButtonElement>('.packages button')!;
  return { el, root, host, button };
}

describe("a skill's Python packages in its detail pane", () => {
  it('lists them and installs them on request; a second install finds them in place', async () => {
    const { el, root, host, button } = await openWith('# what the script imports\nsix==1.16.0\n');
    try {
      expect(el.querySelector('.packages .section-title')?.textContent).toMatch(/Python packages\s*1/);
      expect([...el.querySelectorAll('.packages .phrase')].map((p) => p.textContent)).toEqual([
        'six==1.16.0',
      ]);
      await act(async () => button().click());
      await expect
        .poll(() => el.querySelector('.packages [role="status"]')?.textContent, { timeout: 90_000 })
        .toBe('Installed: six 1.16.0');
      await act(async () => button().click());
      await expect
        .poll(() => el.querySelector('.packages [role="status"]')?.textContent, { timeout: 30_000 })
        .toBe('Already installed: six 1.16.0');
    } finally {
      root.unmount();
      await host.dispose();
    }
  }, 120_000);

  it('says why a package with compiled code cannot be installed', async () => {
    const { el, root, host, button } = await openWith('numpy\n');
    try {
      await act(async () => button().click());
      await expect
        .poll(() => el.querySelector('.packages [role="alert"]')?.textContent ?? '', { timeout: 90_000 })
        .toMatch(/Packages not installed: .*"numpy" has compiled \(C\/Rust\) code/);
    } finally {
      root.unmount();
      await host.dispose();
    }
  }, 120_000);

  it('reads only requirements files, without comments or blank lines', () => {
    const a = (path: string, content: string) =>
      ({ id: path, kind: 'resource', name: path, content, metadata: { path } }) as never;
    expect(
      requirementLines({
        artifacts: [
          a('scripts/requirements.txt', 'pypdf>=4  # pdfs\n\n# none\nopenpyxl\n'),
          a('notes.txt', 'x\n'),
        ],
      } as never),
    ).toEqual(['pypdf>=4', 'openpyxl']);
  });
});
