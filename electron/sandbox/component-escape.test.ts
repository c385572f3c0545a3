// A WebAssembly component that tries to import beyond the skill world without saying so at the
// top: through a nested component's imports, a nested instance, an imported core module, or the
// host interface with a function the world does not have. Built from WAT with jco, as the kind's
// own fixtures are. Every way to reach the host goes through the top-level imports, which are read
// and checked before the component is transpiled.
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/index.js';
import { inspectComponentBytes, prepareComponent } from './components.js';

const CORE = `(core module $m
    (memory (export "memory") 1)
    (func (export "ok") (param i32 i32) (result i32) (i32.const 32))
    (func (export "realloc") (param i32 i32 i32 i32) (result i32) (i32.const 1024)))
  (core instance $i (instantiate $m))`;
const RUN = `(func (export "run") (param "input" string) (result (result string (error string)))
    (canon lift (core func $i "ok") (memory (core memory $i "memory")) (realloc (core func $i "realloc")) string-encoding=utf8))`;
const SOCKETS = '(instance (export "connect" (func (param "port" u16) (result u32))))';

async function component(body: string): Promise<Uint8Array> {
  const { parse } = await import('@bytecodealliance/jco');
  return parse(`(component ${body} ${CORE} ${RUN})`);
}

describe('a component importing beyond its world', () => {
  it('cannot reach sockets through a nested component: the outer one must import them, and is refused', async () => {
    const bytes = await component(`
      (import "wasi:sockets/tcp@0.2.0" (instance $tcp (export "connect" (func (param "port" u16) (result u32)))))
      (component $inner (import "wasi:sockets/tcp@0.2.0" ${SOCKETS}))
      (instance (instantiate $inner (with "wasi:sockets/tcp@0.2.0" (instance $tcp))))`);
    const { problems } = inspectComponentBytes(bytes);
    expect(problems.map((p) => p.item)).toContain('wasi:sockets/tcp@0.2.0');
    await expect(prepareComponent(bytes, tempDir())).rejects.toThrow(/wasi:sockets\/tcp@0\.2\.0/);
  });

  it('a nested component whose import is left unsatisfied (nothing at the top to check) is refused as invalid', async () => {
    // The text assembler accepts it; the component is not valid, and jco refuses to read it.
    const bytes = await component(
      `(component $inner (import "wasi:sockets/tcp@0.2.0" ${SOCKETS})) (instance (instantiate $inner))`,
    );
    expect(inspectComponentBytes(bytes).surface?.imports).toEqual([]);
    const dir = tempDir();
    const err = await prepareComponent(bytes, dir).catch((e: Error & { code?: string }) => e);
    expect((err as { code?: string }).code).toBe('INVALID_INPUT');
    expect((err as Error).message).toMatch(/jco cannot read the component/);
  }, 120_000);

  it('a core module imported from the host, or a nested instance re-exported under a granted name, is refused', async () => {
    const coreImport = await component(
      '(import "wasi:io/streams@0.2.0" (core module (import "env" "spawn" (func)) (export "run" (func))))',
    );
    expect(inspectComponentBytes(coreImport).problems.map((p) => p.item)).toContain('wasi:io/streams@0.2.0');
    const disguised = await component(`(import "wasi:clocks/wall-clock@0.2.0/../../sockets/tcp" ${SOCKETS})`);
    expect(inspectComponentBytes(disguised).problems.some((p) => p.refused)).toBe(true);
  });

  it('the host interface with a function the world does not have is refused when prepared', async () => {
    const bytes = await component(
      '(import "skilldesk:skill/host@0.1.0" (instance (export "log" (func (param "message" string))) (export "spawn" (func (param "cmd" string)))))',
    );
    expect(inspectComponentBytes(bytes).problems).toEqual([]);
    await expect(prepareComponent(bytes, tempDir())).rejects.toThrow(
      /host\.spawn, which the world does not have/,
    );
  }, 120_000);
});
