// Components for the tests and the bench, made here and now: JavaScript ones built offline with
// componentize-js (about a minute each on a loaded machine, so kept in the OS temp folder by the
// hash of their source and the world), and small hand-written ones assembled from WAT with jco.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildComponentFromJs, SKILL_WIT } from '../../sandbox/index.js';

const CACHE = join(tmpdir(), 'skilldesk-test-components');

/** A component built from `source` (a JavaScript module) against the skill world. */
export async function jsComponent(
  source: string,
  opts: { wasiFeatures?: boolean } = {},
): Promise<Uint8Array> {
  const key = createHash('sha256')
    .update(SKILL_WIT)
    .update(opts.wasiFeatures ? '\0wasi\0' : '\0')
    .update(source)
    .digest('hex')
    .slice(0, 24);
  const file = join(CACHE, `${key}.wasm`);
  if (existsSync(file)) return new Uint8Array(readFileSync(file));
  mkdirSync(CACHE, { recursive: true });
  const src = join(CACHE, `${key}.${process.pid}.js`);
  writeFileSync(src, source);
  const built = await buildComponentFromJs(src, opts).finally(() => rmSync(src, { force: true }));
  writeFileSync(`${file}.${process.pid}.tmp`, built.bytes);
  renameSync(`${file}.${process.pid}.tmp`, file);
  return built.bytes;
}

/**
 * Everything one JavaScript component does, picked by the input's `do`: a pure computation, the
 * host (a page and the model), and the hostile runs (an endless loop, a memory bomb, a huge result,
 * a huge log, a thrown error).
 */
export const KITCHEN_JS = `
import { getPage, llmQuery, log } from 'skilldesk:skill/host@0.1.0';
export function run(input) {
  const v = JSON.parse(input);
  switch (v.do) {
    case 'sum': return JSON.stringify({ sum: v.a + v.b });
    case 'text': return 'plain text, not JSON';
    case 'page': {
      const page = getPage(v.slug);
      const answer = llmQuery('Summarise: ' + (page ?? 'nothing'));
      log('asked the model');
      return JSON.stringify({ page: page ?? null, answer });
    }
    case 'missing': return JSON.stringify({ page: getPage('no-such-page') ?? null });
    case 'loop': for (;;) {}
    case 'bomb': { const keep = []; for (;;) keep.push(new Array(1 << 20).fill(v.n ?? 1)); }
    case 'huge': return 'x'.repeat(v.n);
    case 'chatty': { for (let i = 0; i < v.n; i++) log('line ' + i); return 'done'; }
    case 'cpu': { let x = 0; for (let i = 0; i < v.n; i++) x = (x * 31 + i) % 1000003; return String(x); }
    default: throw 'unknown action ' + v.do;
  }
}
`;

/** The run export of a hand-written component: `core` names the core function it lifts. */
function runExport(core: string): string {
  return `(func (export "run") (param "input" string) (result (result string (error string)))
    (canon lift (core func $i "${core}") (memory (core memory $i "memory")) (realloc (core func $i "realloc")) string-encoding=utf8))`;
}

const CORE = `(core module $m
    (memory (export "memory") 1)
    (data (i32.const 16) "42")
    (func (export "ok") (param i32 i32) (result i32)
      (i32.store8 (i32.const 32) (i32.const 0))
      (i32.store (i32.const 36) (i32.const 16))
      (i32.store (i32.const 40) (i32.const 2))
      (i32.const 32))
    (func (export "count") (param i32 i32) (result i32)
      (i32.store8 (i32.const 16) (i32.add (i32.load8_u (i32.const 16)) (i32.const 1)))
      (call 0 (local.get 0) (local.get 1)))
    (func (export "trap") (param i32 i32) (result i32) unreachable)
    (func (export "grow") (param i32 i32) (result i32)
      (loop $l (br_if $l (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
      unreachable)
    (func (export "realloc") (param i32 i32 i32 i32) (result i32) (i32.const 1024)))
  (core instance $i (instantiate $m))`;

/**
 * A tiny hand-written component: `ok` answers "42", `count` adds one to the first digit in its
 * memory and answers the digits ("52" from a fresh instance), `trap` traps, `grow` grows its memory
 * until refused.
 */
export async function watComponent(
  run: 'ok' | 'count' | 'trap' | 'grow',
  extraImport = '',
): Promise<Uint8Array> {
  const { parse } = await import('@bytecodealliance/jco');
  return parse(`(component ${extraImport} ${CORE} ${runExport(run)})`);
}

/** An import of `wasi:sockets/tcp` (what a component reaching for the network declares). */
export const SOCKETS_IMPORT =
  '(import "wasi:sockets/tcp@0.2.0" (instance (export "connect" (func (param "port" u16) (result u32)))))';
