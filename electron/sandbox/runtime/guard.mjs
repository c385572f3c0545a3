// @ts-check
// The in-process guard of the sandbox process, loaded first in every thread (`--import`, and the
// first import of process.mjs and worker.mjs). It assumes Python will one day reach JavaScript —
// Pyodide is no security boundary — and takes away what JavaScript could do with that:
// - module resolution refuses every Node built-in the runtime does not need (ES hooks.mjs for
//   `import`, a wrapped `Module._load` for `require`, no `process.getBuiltinModule`);
// - the process object loses `kill`, `dlopen`, `binding`, `_linkedBinding` and friends, so a run
//   cannot signal the app or load native code;
// - in worker threads (where Python runs) no new workers can start and `fs` can only read files
//   by path until the worker is sealed (`sealThread()`, called once Pyodide has loaded), after
//   which `fs`, `vm` and `createRequire` throw: no fd of the process (the app's pipes included)
//   can be written or read from a worker;
// - `Error.prepareStackTrace` is pinned, so call sites cannot be harvested.
// In the main thread it first checks the operating system's network isolation (see `selfCheck`),
// before `node:net` becomes unloadable.
import fs from 'node:fs';
import nodeModule from 'node:module';
import vm from 'node:vm';
import workerThreads from 'node:worker_threads';
import { checkResolved, checkSpecifier } from './hooks.mjs';

const { isMainThread } = workerThreads;
const Module = /** @type {any} */ (nodeModule);
const syncBuiltinESMExports = nodeModule.syncBuiltinESMExports;
const register = nodeModule.register;

/** @param {string} what */
function denied(what) {
  const e = new Error(`${what} is not allowed in the sandbox`);
  Object.assign(e, { code: 'ERR_ACCESS_DENIED' });
  return e;
}

/** Replace a property for good (non-writable, non-configurable). @param {object} o @param {string} k @param {unknown} v */
function pin(o, k, v) {
  try {
    Object.defineProperty(o, k, { value: v, writable: false, configurable: false, enumerable: false });
  } catch {
    try {
      /** @type {any} */ (o)[k] = v;
    } catch {
      // neither: the property stays as Node made it
    }
  }
}

/**
 * Replace every function of a module's exports with one that throws, except `keep`.
 * @param {any} exports @param {string} name @param {Set<string>} keep
 */
function neuter(exports, name, keep) {
  for (const key of Object.getOwnPropertyNames(exports)) {
    if (keep.has(key)) continue;
    const d = Object.getOwnPropertyDescriptor(exports, key);
    if (!d || typeof d.value !== 'function') continue;
    const stub = () => {
      throw denied(`${name}.${key}`);
    };
    try {
      Object.defineProperty(exports, key, { value: stub, writable: false, configurable: false });
    } catch {
      // non-configurable export: leave it (none of the ones that matter are)
    }
  }
}

// --- the operating system's isolation, checked before node:net becomes unloadable -------------------

/**
 * Whether a connection from this process reached the app's probe listeners:
 * `blocked` (the OS or the namespace refused it), `connected`, or `skipped`.
 * @typedef {{ tcp: string, unix: string }} SelfCheck
 */

/** @type {SelfCheck} */
let selfCheck = { tcp: 'skipped', unix: 'skipped' };
if (isMainThread) {
  const arg = (/** @type {string} */ k) =>
    process.argv.find((a) => a.startsWith(`--${k}=`))?.slice(k.length + 3) ?? '';
  const port = Number(arg('probe-tcp'));
  const path = arg('probe-unix');
  if (port || path) {
    const net = await import('node:net');
    /** @param {object} target */
    const tryConnect = (target) =>
      new Promise((resolve) => {
        const s = net.connect(/** @type {any} */ (target));
        const done = (/** @type {string} */ r) => {
          clearTimeout(timer);
          s.destroy();
          resolve(r);
        };
        const timer = setTimeout(() => done('blocked'), 1500);
        s.once('connect', () => done('connected'));
        s.once('error', () => done('blocked'));
      });
    selfCheck = {
      tcp: port ? String(await tryConnect({ port, host: '127.0.0.1' })) : 'skipped',
      unix: path ? String(await tryConnect({ path })) : 'skipped',
    };
  }
}
/** The outcome of the network self-check (main thread only; the app checks its listeners too). */
export const networkSelfCheck = Object.freeze({ ...selfCheck });

// --- module resolution -----------------------------------------------------------------------------

// Node ≥ 22.15 (Electron) has in-thread synchronous hooks that cover `import` and `require`;
// Node 20 runs `register`ed hooks on a loader thread of each worker's own (workers do not inherit
// the main thread's).
const registerHooks = /** @type {any} */ (nodeModule).registerHooks;
let hooksInstalled = false;

/** Install the resolution hooks in this thread (once; later calls do nothing). */
export function installModuleHooks() {
  if (hooksInstalled) return;
  hooksInstalled = true;
  if (typeof registerHooks === 'function') {
    registerHooks({
      resolve(/** @type {string} */ specifier, /** @type {object} */ context, /** @type {Function} */ next) {
        const builtin = checkSpecifier(specifier);
        const resolved = next(builtin ?? specifier, context);
        checkResolved(specifier, resolved?.url);
        return resolved;
      },
    });
  } else {
    register(new URL('./hooks.mjs', import.meta.url));
  }
}

// The sandbox process's main thread (started with `--pyodide-url=`) installs them itself once it has
// started its first worker, so the two threads' start-ups overlap; it checks they are
// active (node:net refused) before it reads a byte from the app. Every other thread: now.
if (!(isMainThread && process.argv.some((a) => a.startsWith('--pyodide-url=')))) installModuleHooks();

const CJS_ALLOWED = new Set(['fs', 'path', 'url', 'crypto']);
// Emscripten asks node:tty whether stdio is a terminal; it never is here.
const TTY_STUB = Object.freeze({ isatty: () => false });
const realLoad = Module._load;
pin(Module, '_load', function load(/** @type {unknown} */ request, /** @type {unknown[]} */ ...rest) {
  if (typeof request !== 'string') throw denied('require');
  const bare = request.startsWith('node:') ? request.slice(5) : request;
  if (bare === 'tty') return TTY_STUB;
  if (Module.isBuiltin?.(request) || nodeModule.builtinModules.includes(bare)) {
    if (!CJS_ALLOWED.has(bare)) throw denied(`require(${JSON.stringify(request).slice(0, 100)})`);
  }
  return realLoad.call(this, request, ...rest);
});

// --- the process object ----------------------------------------------------------------------------

const proc = /** @type {any} */ (process);
for (const k of [
  'getBuiltinModule',
  'dlopen',
  '_linkedBinding',
  'kill',
  'abort',
  'chdir',
  'setuid',
  'setgid',
  'seteuid',
  'setegid',
  'setgroups',
  'initgroups',
  '_debugProcess',
  '_debugEnd',
  '_startProfilerIdleNotifier',
  '_stopProfilerIdleNotifier',
  'openStdin',
  'loadEnvFile',
]) {
  if (k in proc) {
    pin(proc, k, () => {
      throw denied(`process.${k}`);
    });
  }
}
// Emscripten reads fs constants through process.binding('constants'); nothing else is given.
pin(proc, 'binding', (/** @type {unknown} */ name) => {
  if (name === 'constants') return { fs: fs.constants, os: {} };
  throw denied('process.binding');
});
pin(Error, 'prepareStackTrace', undefined);

// --- worker threads: where Python runs --------------------------------------------------------------

const FS_READS = new Set([
  'readFile',
  'readFileSync',
  'existsSync',
  'stat',
  'statSync',
  'lstat',
  'lstatSync',
  'access',
  'accessSync',
  'realpathSync',
  'readdirSync',
]);

// The network as web APIs (undici's fetch, WebSocket, EventSource) is reached through internal
// modules, not the loader. Node may define these globals after preloads run, so worker.mjs calls
// this again first thing, and sealThread() once more.
const NETWORK_GLOBALS = [
  'fetch',
  'Request',
  'Response',
  'Headers',
  'FormData',
  'WebSocket',
  'EventSource',
  'navigator',
];

/** Take the web network APIs away from this worker thread (a no-op on the main thread). */
export function dropNetworkGlobals() {
  if (isMainThread) return;
  for (const k of NETWORK_GLOBALS) {
    if (!(k in globalThis)) continue;
    try {
      delete (/** @type {any} */ (globalThis)[k]);
    } catch {
      pin(globalThis, k, undefined);
    }
  }
}
dropNetworkGlobals();

if (!isMainThread) {
  neuter(
    workerThreads,
    'worker_threads',
    new Set(['markAsUntransferable', 'isMarkedAsUntransferable', 'receiveMessageOnPort']),
  );
  neuter(fs, 'fs', FS_READS);
  neuter(fs.promises, 'fs.promises', new Set(['readFile', 'stat', 'lstat', 'access', 'readdir', 'realpath']));
  syncBuiltinESMExports();
}

let sealed = false;

/**
 * Take the rest away from this worker thread once Pyodide has loaded: every `fs` and `vm` function,
 * `createRequire` and `register` throw from now on. Idempotent; a no-op on the main thread.
 */
export function sealThread() {
  if (isMainThread || sealed) return;
  sealed = true;
  dropNetworkGlobals();
  neuter(fs, 'fs', new Set());
  neuter(fs.promises, 'fs.promises', new Set());
  neuter(vm, 'vm', new Set());
  for (const k of [
    'createRequire',
    'register',
    'syncBuiltinESMExports',
    'enableCompileCache',
    'runMain',
    'wrap',
  ]) {
    if (typeof Module[k] === 'function') {
      pin(Module, k, () => {
        throw denied(`module.${k}`);
      });
    }
  }
  syncBuiltinESMExports();
}
