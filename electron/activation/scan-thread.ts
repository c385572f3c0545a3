import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import type { AboveArgs, SharedScan } from './vector-scan.js';

/**
 * The scan thread: a worker_threads worker that scans a large catalog's vectors (the semantic
 * stage of phase 1) on the machine's other core while the main thread scores the message
 * lexically; at 100,000 skills the two halves cost about the same, and ran one after the other.
 *
 * Nothing is copied: each scanner's WebAssembly memory is shared and the worker instantiates the
 * same kernel over it. A scan is cut into chunks that either thread claims with one atomic
 * compare-and-swap: the worker starts on them at once (woken by `Atomics.notify`), and the main
 * thread, its lexical half done, claims what is left, then waits (`Atomics.wait`, allowed on
 * Node's main thread, and Electron's main process is Node) for the chunks the worker is in the
 * middle of, about as long as one takes, and scans any still unfinished itself. So a worker that
 * does not get a core (a busy machine) costs a match next to nothing, and a match never hangs;
 * a worker that holds a chunk past {@link ThreadedScanOptions.timeoutMs} is stopped, and
 * replaced only once its thread is gone (nothing of a job is reused before its worker let go).
 *
 * The worker starts lazily, once a process has asked for it more than
 * {@link ThreadedScanOptions.startAfter} times (a one-shot CLI match pays no thread start), is
 * unref'd (it never keeps the process alive), lets a memory go once its store's index is
 * collected, and is stopped with the host ({@link stopScanThread}). Its source is a string
 * (`eval`): the main process is bundled into one file, with no worker file to point at.
 */

/** When and how the semantic scan runs on the scan thread. */
export interface ThreadedScanOptions {
  /** false: every scan runs on the calling thread. */
  enabled: boolean;
  /** A store with at least this many slots is scanned on both threads (smaller: no gain). */
  from: number;
  /**
   * How many of such a store's vectors the calling thread scans first: their k-th best score
   * (hidden skills skipped) is the bar the rest is kept at, as in the one-thread two-step scan.
   */
  sample: number;
  /** Vectors per chunk (at least; more when a scan would need more than 64 chunks). */
  chunk: number;
  /**
   * How long the scan thread may hold a chunk a match stopped waiting for (it scanned it itself)
   * before the thread counts as stuck and is stopped.
   */
  timeoutMs: number;
  /** Requests over a large store a process makes before the thread is started (0: at the first). */
  startAfter: number;
}

const DEFAULTS: ThreadedScanOptions = {
  enabled: true,
  from: 32_768,
  sample: 2048,
  chunk: 4096,
  timeoutMs: 100,
  startAfter: 1,
};

let options: ThreadedScanOptions = { ...DEFAULTS };

/** The threaded scan's options; `set` changes some (tests, the benchmark). Returns the previous ones. */
export function threadedScanOptions(set?: Partial<ThreadedScanOptions>): ThreadedScanOptions {
  const before = options;
  if (set) options = { ...options, ...set };
  return before;
}

/**
 * How the scan thread has fared in this process (tests and the benchmark read it): jobs handed
 * over, chunks the worker scanned, and failures (timeouts, errors; after three it is not started
 * again).
 */
export const scanThreadStats = {
  starts: 0,
  jobs: 0,
  workerChunks: 0,
  /** Chunks the worker could not scan (the caller scanned them). */
  chunkFailures: 0,
  /** Chunks the caller scanned again rather than wait for the worker to finish them. */
  chunksLeft: 0,
  timeouts: 0,
  failures: 0,
};

/** One store's share of a scan: its vectors `from`..`to`, kept where `(dot − offset) · weight ≥ least`. */
export interface ScanPart {
  scan: SharedScan;
  from: number;
  to: number;
  query: Int16Array;
  offset: number;
  least: number;
}

/** A chunk's outcome: its rows kept (views into the shared memory), or null (scan it here). */
export interface ChunkResult {
  part: number;
  from: number;
  to: number;
  kept: { rows: Int32Array; dots: Int32Array } | null;
}

// The control block, int32 words: the job's number (a wake-up), the chunk claims (the job's
// number << 16 | the next chunk), chunks finished, the worker's state, a test hold, the chunk
// count; then per chunk its part, kernel id, `above` arguments and result; then per part its two
// f64 arguments.
const REQ = 0;
const NEXT = 1;
const FINISHED = 2;
const READY = 3;
/** Tests: while 1 the worker holds the chunk it claimed (a stuck thread); it then sets HELD. */
const HOLD = 4;
const HELD = 5;
const CHUNKS = 6;
const CHUNK = 8;
const CHUNK_INTS = 10;
const MAX_CHUNKS = 64;
const MAX_PARTS = 4;
const FLOATS = Math.ceil((CHUNK + MAX_CHUNKS * CHUNK_INTS) / 2);
const CONTROL_BYTES = (FLOATS + 2 * MAX_PARTS) * 8;
/** A chunk's result before anyone scanned it. */
const UNSCANNED = -2;

// A chunk's words: [part, kernel id, v, n, q, w, rows, dots, first, kept count].
// The worker: registers memories as they arrive (a message per memory, read synchronously before
// each job), claims chunks while the job's number is its own, and waits with a timeout so a
// termination request never waits on it.
// (A dynamic import: the source runs as CommonJS, or as a module where a loader hook is registered.)
const WORKER_SOURCE = `
import('node:worker_threads').then(({ workerData, receiveMessageOnPort }) => {
const { control, port } = workerData;
const c = new Int32Array(control);
const f = new Float64Array(control);
const kernels = new Map();
const drain = () => {
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
    const x = m.message;
    if (x.forget !== undefined) kernels.delete(x.forget);
    else {
      try {
        kernels.set(x.id, new WebAssembly.Instance(x.module, { env: { mem: x.memory } }).exports.above);
      } catch {}
    }
  }
};
Atomics.store(c, ${READY}, 1);
let last = 0;
for (;;) {
  const r = Atomics.load(c, ${REQ});
  if (r === last) {
    Atomics.wait(c, ${REQ}, last, 1000);
    drain();
    continue;
  }
  last = r;
  drain();
  for (;;) {
    const w = Atomics.load(c, ${NEXT});
    const i = w & 0xffff;
    if (w >>> 16 !== r || i >= c[${CHUNKS}]) break;
    if (Atomics.compareExchange(c, ${NEXT}, w, w + 1) !== w) continue;
    if (Atomics.load(c, ${HOLD}) === 1) {
      Atomics.store(c, ${HELD}, 1);
      while (Atomics.load(c, ${HOLD}) === 1) Atomics.wait(c, ${HOLD}, 1, 1000);
    }
    const b = ${CHUNK} + i * ${CHUNK_INTS};
    const above = kernels.get(c[b + 1]);
    const p = c[b];
    let n = -1;
    try {
      if (above) n = above(c[b + 2], c[b + 3], c[b + 4], c[b + 5], f[${FLOATS} + 2 * p], f[${FLOATS + 1} + 2 * p], c[b + 6], c[b + 7], c[b + 8]);
    } catch {
      n = -1;
    }
    Atomics.store(c, b + 9, n);
    Atomics.add(c, ${FINISHED}, 1);
    Atomics.notify(c, ${FINISHED});
  }
}
});
`;

/** Ids for shared memories (the worker knows them by id). */
const memoryIds = new WeakMap<WebAssembly.Memory, number>();
let nextId = 1;
// A store closed (its index and memory collected): the worker lets its copy of the memory go too.
const forgotten = new FinalizationRegistry<number>((id) => thread?.forget(id));
const idOf = (m: WebAssembly.Memory) => {
  let id = memoryIds.get(m);
  if (id === undefined) {
    id = nextId++;
    memoryIds.set(m, id);
    forgotten.register(m, id);
  }
  return id;
};

let loggedTrouble = false;
const logOnce = (message: string) => {
  if (loggedTrouble) return;
  loggedTrouble = true;
  console.error(`[skilldesk] ${message}`);
};

/** Failures (a timeout, an error) after which a process no longer starts the thread. */
const MAX_FAILURES = 3;

/** What a search holds between handing a scan over and collecting it. */
interface Job {
  parts: ScanPart[];
  chunks: Array<{ part: number; args: AboveArgs }>;
  /** When its caller stopped waiting with chunks still on the worker (they are scanned again). */
  leftAt: number | null;
}

class ScanThread {
  private readonly control = new SharedArrayBuffer(CONTROL_BYTES);
  private readonly c = new Int32Array(this.control);
  private readonly f = new Float64Array(this.control);
  private readonly port: MessagePort;
  private readonly worker: Worker;
  private readonly known = new Set<number>();
  private seq = 0;
  private job: Job | null = null;
  /** Stopped: takes no more jobs. */
  dead = false;
  /** Its thread is gone (until then a stopped worker may still be writing into its last chunk). */
  exited = false;

  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { control: this.control, port: port2 },
      transferList: [port2],
    });
    this.worker.unref();
    this.worker.on('error', (e) => {
      scanThreadStats.failures++;
      logOnce(`the scan thread failed (${e.message}); phase 1 scans on the main thread`);
      this.stop();
    });
    this.worker.on('exit', () => {
      this.exited = true;
      this.stop();
      if (thread === this) thread = null;
    });
    scanThreadStats.starts++;
  }

  get ready(): boolean {
    return !this.dead && Atomics.load(this.c, READY) === 1;
  }

  /** Hand a scan over (its chunks claimable at once); false when it cannot be (scan here). */
  submit(parts: ScanPart[]): boolean {
    if (!this.ready || parts.length === 0 || parts.length > MAX_PARTS || !this.idle()) return false;
    const total = parts.reduce((a, p) => a + (p.to - p.from), 0);
    const size = Math.max(options.chunk, Math.ceil(total / MAX_CHUNKS));
    const { c, f } = this;
    const chunks: Job['chunks'] = [];
    for (const [pi, p] of parts.entries()) {
      const id = idOf(p.scan.memory);
      if (!this.known.has(id)) {
        this.port.postMessage({ id, memory: p.scan.memory, module: p.scan.module });
        this.known.add(id);
      }
      p.scan.setQuery(p.query);
      f[FLOATS + 2 * pi] = p.offset;
      f[FLOATS + 2 * pi + 1] = p.least;
      for (let from = p.from; from < p.to; from += size) {
        const args = p.scan.chunk(from, Math.min(p.to, from + size));
        const b = CHUNK + chunks.length * CHUNK_INTS;
        c[b] = pi;
        c[b + 1] = id;
        c[b + 2] = args.v;
        c[b + 3] = args.n;
        c[b + 4] = args.q;
        c[b + 5] = args.w;
        c[b + 6] = args.rows;
        c[b + 7] = args.dots;
        c[b + 8] = args.first;
        c[b + 9] = UNSCANNED;
        chunks.push({ part: pi, args });
      }
    }
    c[CHUNKS] = chunks.length;
    this.seq = (this.seq % 0xffff) + 1;
    Atomics.store(c, FINISHED, 0);
    // The claims carry the job's number: a worker still finishing the last job claims nothing here.
    Atomics.store(c, NEXT, this.seq << 16);
    Atomics.store(c, REQ, this.seq);
    Atomics.notify(c, REQ);
    this.job = { parts, chunks, leftAt: null };
    scanThreadStats.jobs++;
    return true;
  }

  /**
   * Whether the last job is over, so its areas can be used again: collected, and every chunk the
   * worker took finished. A chunk the worker still holds {@link ThreadedScanOptions.timeoutMs}
   * after its caller stopped waiting means a stuck thread: it is stopped.
   */
  private idle(): boolean {
    const job = this.job;
    if (!job) return true;
    if (job.leftAt === null) this.collect(); // a search abandoned half-way
    if (Atomics.load(this.c, FINISHED) >= job.chunks.length) {
      this.job = null;
      return true;
    }
    if (performance.now() - job.leftAt! > options.timeoutMs) {
      scanThreadStats.timeouts++;
      scanThreadStats.failures++;
      logOnce(
        `the scan thread held a chunk over ${options.timeoutMs} ms; phase 1 scans on the main thread (the thread is restarted later)`,
      );
      this.stop();
    }
    return false;
  }

  /**
   * Scan the chunks the worker has not claimed, wait briefly for the ones it is scanning (about
   * as long as scanning one here takes: a worker that lost its core is not waited for), and give
   * every chunk's outcome: a chunk left null is for the caller to scan.
   */
  collect(): ChunkResult[] {
    const job = this.job;
    if (!job || job.leftAt !== null) return [];
    const { c } = this;
    const n = job.chunks.length;
    const tag = this.seq << 16;
    let here = 0;
    const t0 = performance.now();
    for (;;) {
      const w = Atomics.load(c, NEXT);
      const i = w - tag;
      if (i >= n) break;
      if (Atomics.compareExchange(c, NEXT, w, w + 1) !== w) continue;
      const ch = job.chunks[i]!;
      const p = job.parts[ch.part]!;
      Atomics.store(c, CHUNK + i * CHUNK_INTS + 9, p.scan.above(ch.args, p.offset, p.least));
      Atomics.add(c, FINISHED, 1);
      here++;
    }
    // What a chunk costs here, or a fair guess when the worker took them all.
    const perChunk = here > 0 ? (performance.now() - t0) / here : 0.2;
    const end = performance.now() + Math.max(0.05, 2 * perChunk);
    for (let done = Atomics.load(c, FINISHED); done < n; done = Atomics.load(c, FINISHED)) {
      const left = end - performance.now();
      if (left <= 0) break;
      Atomics.wait(c, FINISHED, done, left);
    }
    const finished = Atomics.load(c, FINISHED);
    scanThreadStats.workerChunks += Math.max(0, finished - here);
    if (finished >= n) this.job = null;
    else {
      scanThreadStats.chunksLeft += n - finished;
      job.leftAt = performance.now();
    }
    const out: ChunkResult[] = [];
    for (let i = 0; i < n; i++) {
      const ch = job.chunks[i]!;
      // A count is written after its rows; one the chunk cannot hold (or -1, a failure, or none
      // yet) has that chunk scanned again.
      let count = Atomics.load(c, CHUNK + i * CHUNK_INTS + 9);
      if (count === -1) scanThreadStats.chunkFailures++;
      if (count > ch.args.n) count = -1;
      const { memory } = job.parts[ch.part]!.scan;
      out.push({
        part: ch.part,
        from: ch.args.first,
        to: ch.args.first + ch.args.n,
        kept:
          count >= 0
            ? {
                rows: new Int32Array(memory.buffer, ch.args.rows, count),
                dots: new Int32Array(memory.buffer, ch.args.dots, count),
              }
            : null,
      });
    }
    return out;
  }

  forget(id: number): void {
    if (this.known.delete(id) && !this.dead) this.port.postMessage({ forget: id });
  }

  /** Tests: make the worker hold (or release) the next chunk it claims, as a stuck thread would. */
  hold(on: boolean): void {
    if (on) Atomics.store(this.c, HELD, 0);
    Atomics.store(this.c, HOLD, on ? 1 : 0);
    Atomics.notify(this.c, HOLD);
  }

  /** Tests: wait (at most `timeoutMs`) until the worker has let go of the last job's chunks. */
  drain(timeoutMs: number): boolean {
    const job = this.job;
    if (!job) return true;
    const end = performance.now() + timeoutMs;
    for (
      let done = Atomics.load(this.c, FINISHED);
      done < job.chunks.length;
      done = Atomics.load(this.c, FINISHED)
    ) {
      const left = end - performance.now();
      if (left <= 0) return false;
      Atomics.wait(this.c, FINISHED, done, left);
    }
    return this.idle();
  }

  /** Tests: how many chunks of the job under way are scanned. */
  get finished(): number {
    return Atomics.load(this.c, FINISHED);
  }

  /** Tests: whether the worker is holding a chunk. */
  get held(): boolean {
    return Atomics.load(this.c, HELD) === 1 && Atomics.load(this.c, HOLD) === 1;
  }

  /** Tests: end the worker behind this object's back, as a crash would. */
  kill(): Promise<number> {
    return this.worker.terminate();
  }

  /** Take no more jobs and end the worker (it is replaced only once its thread is gone). */
  stop(): void {
    if (this.dead) return;
    this.dead = true;
    this.port.close();
    void this.worker.terminate();
  }
}

let thread: ScanThread | null = null;
let requests = 0;

/**
 * The scan thread if it is up (null: scan on this thread). Each call counts as a request over a
 * large store: the thread is started (in the background) once there were more than
 * {@link ThreadedScanOptions.startAfter}, so the request that starts it scans here. A stopped
 * thread is replaced only once it is gone.
 */
export function scanThread(): ScanThread | null {
  if (!options.enabled) return null;
  if (thread) return thread.ready ? thread : null;
  requests++;
  if (requests <= options.startAfter || scanThreadStats.failures >= MAX_FAILURES) return null;
  requests = 0;
  start();
  return null;
}

function start(): void {
  try {
    thread = new ScanThread();
  } catch (e) {
    scanThreadStats.failures++;
    logOnce(`the scan thread did not start (${(e as Error).message}); phase 1 scans on the main thread`);
  }
}

/** Start the scan thread now if it is not running; resolves once it takes jobs (false: it cannot). */
export async function scanThreadReady(timeoutMs = 5000): Promise<boolean> {
  if (!options.enabled) return false;
  const end = Date.now() + timeoutMs;
  const tick = () => new Promise((r) => setTimeout(r, 5));
  // A stopped thread first goes.
  while (thread?.dead && !thread.exited && Date.now() < end) await tick();
  if (thread?.exited) thread = null;
  if (!thread && scanThreadStats.failures < MAX_FAILURES) start();
  while (thread && !thread.ready && !thread.dead && Date.now() < end) await tick();
  return thread?.ready ?? false;
}

/** Stop the scan thread (the host's dispose); a later large match starts a new one once it is gone. */
export function stopScanThread(): void {
  thread?.stop();
  requests = 0;
}

/** Tests: the scan thread, to stall or end it. */
export function currentScanThread(): Pick<
  ScanThread,
  'hold' | 'held' | 'drain' | 'finished' | 'kill' | 'dead' | 'exited'
> | null {
  return thread;
}
