// @ts-check
// The gate on the interpreter's imports. WebAssembly code can run JavaScript only by calling the
// functions its module imports (Emscripten's syscalls and libraries, Pyodide's bridge to JS
// objects), so this is where "Python never reaches JavaScript" can be enforced exhaustively —
// whatever the route: `_pyodide_core`, `pyodide.ffi`, a private helper, or memory corruption that
// makes C call an import with chosen arguments.
//
// Each import is one of:
// - allow: the file system, clocks, entropy, signals, maths, heap growth and the trampolines CPython
//   calls through. Passed through untouched (some run millions of times per second). File system
//   changes are tracked by the worker, which ends a worker whose run changed anything.
// - stub: Pyodide's socket hooks consulted for every descriptor: answer "not a socket".
// - taint: timers and the runtime's keep-alive counter. Allowed during a run, but they leave
//   JavaScript state (a callback that fires later), so the worker ends after that run.
// - deny (everything else, including every import added by a later Pyodide): JS objects (JsProxy,
//   PyProxy, hiwire, conversions), sockets, the resolver and the protocol and service databases,
//   dlopen, inline JS (`emscripten_run_script`, EM_ASM), WebSockets, libffi, graphics. Once the gate
//   is closed, calling one throws out of the interpreter (C cannot catch a JS exception) and the
//   worker ends.
// The gate is open while Pyodide boots and the worker locks itself down (trusted code), and closed
// before the first user code runs; nothing opens it again.

const ALLOW = new Set(
  [
    'fd_close fd_fdstat_get fd_pread fd_pwrite fd_read fd_seek fd_sync fd_write',
    'clock_res_get clock_time_get random_get environ_get environ_sizes_get proc_exit exit',
    'emscripten_get_now emscripten_date_now emscripten_performance_now _emscripten_get_now_is_monotonic',
    'emscripten_get_now_res emscripten_resize_heap emscripten_get_heap_max emscripten_notify_memory_growth',
    'emscripten_random _tzset_js _localtime_js _gmtime_js _mktime_js _timegm_js strptime strptime_l',
    '__asctime_r _abort_js __assert_fail _PyEM_TrampolineCall_JS _Py_CheckEmscriptenSignals_Helper',
    '_Py_emscripten_runtime can_run_sync_js _mmap_js _munmap_js _msync_js __call_sighandler',
    'stackAlloc stackSave stackRestore emscripten_throw_number emscripten_throw_string',
    '_Unwind_Backtrace _Unwind_FindEnclosingFunction _Unwind_GetIPInfo emscripten_stack_snapshot',
    'emscripten_stack_unwind_buffer emscripten_return_address emscripten_print_double emscripten_debugger',
    'emscripten_out emscripten_outn emscripten_err emscripten_errn',
  ]
    .join(' ')
    .split(' '),
);

const TAINT = new Set(
  [
    '_setitimer_js emscripten_set_timeout emscripten_set_timeout_loop emscripten_clear_timeout',
    'emscripten_set_interval emscripten_clear_interval emscripten_set_immediate',
    'emscripten_set_immediate_loop emscripten_clear_immediate _emscripten_runtime_keepalive_clear',
    'emscripten_runtime_keepalive_push emscripten_runtime_keepalive_pop emscripten_runtime_keepalive_check',
  ]
    .join(' ')
    .split(' '),
);

/**
 * Pyodide's socket hooks that the file system consults for every descriptor (fcntl, shutdown,
 * poll): with the gate closed they answer "not a socket" without looking (no socket can exist).
 * @type {Map<string, unknown>}
 */
const NOT_A_SOCKET = new Map([
  ['_try_fcntl64', 0],
  ['_try_shutdown', 0],
  ['_maybe_poll_async', null],
]);

/** Syscalls of Emscripten's socket layer (SOCKFS and Node's socket FS): never after the gate closes. */
const SOCKET_SYSCALLS = new Set(
  [
    '__syscall_socket __syscall_bind __syscall_connect __syscall_listen __syscall_accept4',
    '__syscall_getsockname __syscall_getpeername __syscall_getsockopt __syscall_sendto',
    '__syscall_recvfrom __syscall_sendmsg __syscall_recvmsg',
  ]
    .join(' ')
    .split(' '),
);

/**
 * What the gate does with the import `name` once it is closed.
 * @param {string} name
 * @returns {'allow' | 'taint' | 'stub' | 'deny'}
 */
export function classifyImport(name) {
  if (ALLOW.has(name)) return 'allow';
  if (NOT_A_SOCKET.has(name)) return 'stub';
  if (name.startsWith('__syscall_')) return SOCKET_SYSCALLS.has(name) ? 'deny' : 'allow';
  if (TAINT.has(name)) return 'taint';
  return 'deny';
}

/** The error a denied import throws: it unwinds the interpreter and ends the worker. */
export class GateError extends Error {
  /** @param {string} name */
  constructor(name) {
    super(`the program tried to reach JavaScript through the interpreter's "${name}" import`);
    this.name = 'GateError';
    this.importName = name;
  }
}

/**
 * @typedef {{ closed: boolean, denied: string | null, tainted: string | null, calls: number }} GateState
 */

/** A fresh, open gate. @returns {GateState} */
export function createGate() {
  return { closed: false, denied: null, tainted: null, calls: 0 };
}

/**
 * The import object with every non-allowed function import behind the gate.
 * @param {Record<string, unknown>} env Emscripten's `wasmImports` (`env` and `wasi_snapshot_preview1`)
 * @param {GateState} gate
 * @returns {Record<string, unknown>}
 */
export function gateImports(env, gate) {
  /** @type {Record<string, unknown>} */
  const out = Object.create(null);
  for (const name of Object.keys(env)) {
    const f = env[name];
    if (typeof f !== 'function') {
      out[name] = f;
      continue;
    }
    const kind = classifyImport(name);
    if (kind === 'allow') {
      out[name] = f;
    } else if (kind === 'stub') {
      const answer = NOT_A_SOCKET.get(name);
      out[name] = function notASocket(/** @type {unknown[]} */ ...args) {
        return gate.closed ? answer : Reflect.apply(f, this, args);
      };
    } else if (kind === 'taint') {
      out[name] = function tainted(/** @type {unknown[]} */ ...args) {
        if (gate.closed) gate.tainted ??= name;
        return Reflect.apply(f, this, args);
      };
    } else {
      out[name] = function gated(/** @type {unknown[]} */ ...args) {
        if (gate.closed) {
          gate.denied ??= name;
          gate.calls++;
          throw new GateError(name);
        }
        return Reflect.apply(f, this, args);
      };
    }
  }
  return out;
}
