// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createStores, StoresProvider } from '../../stores.js';
import { inProcessClient } from '../../test-support.js';
import { ComponentBar } from './ComponentBar.js';
import type { DraftArtifact } from './draft.js';
import { toBase64 } from './files.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** A hand-written component: `run` exported, plus `extra` imports. */
async function component(extra = ''): Promise<Uint8Array> {
  const { parse } = await import('@bytecodealliance/jco');
  return parse(`(component ${extra}
    (core module $m (memory (export "memory") 1)
      (func (export "run") (param i32 i32) (result i32) unreachable)
      (func (export "realloc") (param i32 i32 i32 i32) (result i32) (i32.const 1024)))
    (core instance $i (instantiate $m))
    (func (export "run") (param "input" string) (result (result string (error string)))
      (canon lift (core func $i "run") (memory (core memory $i "memory")) (realloc (core func $i "realloc")))))`);
}

async function mount(bytes: Uint8Array) {
  const { client, host } = inProcessClient();
  cleanups.push(() => host.dispose());
  const stores = createStores(client);
  const a: DraftArtifact = {
    key: 'k1',
    kind: 'wasm_component',
    name: 'components/adder.wasm',
    content: toBase64(bytes),
    model_variant: '',
    metadata: '{"encoding": "base64"}',
    extra: {},
  };
  const el = document.createElement('div');
  document.body.append(el);
  const root = createRoot(el);
  await act(async () =>
    root.render(
      <StoresProvider stores={stores}>
        <ComponentBar a={a} />
      </StoresProvider>,
    ),
  );
  cleanups.push(() => {
    act(() => root.unmount());
    el.remove();
  });
  return el.querySelector('[data-testid="component-bar"]')!;
}

describe('the Composer’s component bar', () => {
  it('shows a component’s imports, exports, size and hash', async () => {
    const bytes = await component(
      '(import "skilldesk:skill/host@0.1.0" (instance (export "log" (func (param "message" string)))))',
    );
    const bar = await mount(bytes);
    await act(async () => new Promise((r) => setTimeout(r, 50)));
    const text = bar.textContent ?? '';
    expect(text).toContain('components/adder.wasm');
    expect(text).toMatch(/Imports: skilldesk:skill\/host@0\.1\.0/);
    expect(text).toMatch(/Exports: run/);
    expect(text).toMatch(/sha256 [0-9a-f]{16}…/);
    expect(text).not.toContain('Refused');
  });

  it('says which imports the skill world refuses', async () => {
    const bar = await mount(
      await component(
        '(import "wasi:sockets/tcp@0.2.0" (instance (export "connect" (func (param "port" u16)))))',
      ),
    );
    expect(bar.textContent).toMatch(/Refused: the component imports wasi:sockets\/tcp@0\.2\.0/);
  });
});
