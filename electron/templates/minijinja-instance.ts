/**
 * The MiniJinja WebAssembly instance prompt templates render in, with a ceiling on its memory and
 * a way to replace it. WebAssembly memory only grows: one huge render would keep the app at its
 * peak for good, so after a render that grew the instance past {@link RECYCLE_AFTER_BYTES} the
 * instance is dropped (its memory goes with it) and the next render gets a fresh one. The memory
 * is capped at {@link MAX_MEMORY_BYTES}: a template that produces more stops there instead of
 * taking the machine's memory.
 *
 * minijinja-js's Node build instantiates its module once, when first required; loading its glue
 * code again with a wasm whose memory declares a maximum gives an independent, capped instance.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { compileFunction } from 'node:vm';
import type * as Minijinja from 'minijinja-js';

/** The most linear memory one instance may have (contexts, the template and its output). */
export const MAX_MEMORY_BYTES = 256 * 1024 * 1024;

/** An instance whose memory grew past this is replaced after the render. */
export const RECYCLE_AFTER_BYTES = 32 * 1024 * 1024;

const WASM_PAGE = 64 * 1024;

type MinijinjaModule = typeof Minijinja & { __wasm: { memory: WebAssembly.Memory } };

const require = createRequire(import.meta.url);

let loader: { compiled: WebAssembly.Module; glue: ReturnType<typeof compileFunction>; file: string } | null =
  null;

function readLeb(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  let p = at;
  for (;;) {
    const b = bytes[p++]!;
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if ((b & 0x80) === 0) return { value, next: p };
  }
}

function leb(value: number): number[] {
  const out: number[] = [];
  let v = value;
  do {
    let b = v & 0x7f;
    v = Math.floor(v / 128);
    if (v > 0) b |= 0x80;
    out.push(b);
  } while (v > 0);
  return out;
}

/**
 * `bytes` with its one defined memory given a maximum of `maxPages` (the module as shipped has
 * none). Returned unchanged when the layout is not the expected one: then only recycling bounds it.
 */
export function withMemoryMaximum(bytes: Uint8Array, maxPages: number): Uint8Array {
  let p = 8;
  while (p < bytes.length) {
    const id = bytes[p]!;
    const size = readLeb(bytes, p + 1);
    const start = size.next;
    if (id === 5) {
      const count = readLeb(bytes, start);
      const flags = bytes[count.next];
      if (count.value !== 1 || flags !== 0) return bytes;
      const min = readLeb(bytes, count.next + 1);
      if (min.value > maxPages) return bytes;
      const body = [...leb(1), 1, ...leb(min.value), ...leb(maxPages)];
      const out = new Uint8Array(
        p + 1 + leb(body.length).length + body.length + (bytes.length - start - size.value),
      );
      out.set(bytes.subarray(0, p + 1), 0);
      let o = p + 1;
      for (const b of [...leb(body.length), ...body]) out[o++] = b;
      out.set(bytes.subarray(start + size.value), o);
      return out;
    }
    p = start + size.value;
  }
  return bytes;
}

function load(): NonNullable<typeof loader> {
  if (loader) return loader;
  const file = require.resolve('minijinja-js');
  const source = readFileSync(file, 'utf8');
  const wasmFile = join(dirname(file), 'minijinja_js_bg.wasm');
  const bytes = withMemoryMaximum(readFileSync(wasmFile), MAX_MEMORY_BYTES / WASM_PAGE);
  const compiled = new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
  const glue = compileFunction(
    source,
    ['exports', 'require', 'module', '__filename', '__dirname', 'WebAssembly'],
    {
      filename: file,
    },
  );
  loader = { compiled, glue, file };
  return loader;
}

function compiledModule(compiled: WebAssembly.Module): typeof WebAssembly.Module {
  return new Proxy(WebAssembly.Module, { construct: () => compiled });
}

/** A fresh, independent minijinja-js module whose memory is capped at {@link MAX_MEMORY_BYTES}. */
function instantiate(): MinijinjaModule {
  const { compiled, glue, file } = load();
  const module = { exports: {} as Record<string, unknown> };
  // The glue compiles its module from the file it reads; hand it the compiled, capped one.
  const wasmApi = {
    // `new WebAssembly.Module(bytes)` in the glue yields the module compiled once, capped.
    Module: compiledModule(compiled),
    Instance: WebAssembly.Instance,
  };
  glue(module.exports, require, module, file, dirname(file), wasmApi);
  return module.exports as unknown as MinijinjaModule;
}

let current: MinijinjaModule | null = null;

/** The instance renders use now. */
export function minijinja(): typeof Minijinja {
  current ??= instantiate();
  return current;
}

/** Bytes of linear memory the current instance holds (0 when none is loaded). */
export function minijinjaMemoryBytes(): number {
  return current ? current.__wasm.memory.buffer.byteLength : 0;
}

/**
 * Drop the current instance when it grew past {@link RECYCLE_AFTER_BYTES}, or always with
 * `force` (after a trap, an instance may be left inconsistent). Returns whether it was dropped.
 */
export function recycleMinijinja(force = false): boolean {
  if (!current) return false;
  if (!force && minijinjaMemoryBytes() <= RECYCLE_AFTER_BYTES) return false;
  current = null;
  return true;
}
