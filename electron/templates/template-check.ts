/**
 * Checking a template (its syntax and the variables it reads) without holding the main thread: a
 * large template is parsed on a worker thread, so web mode's server keeps answering everyone else
 * (parsing a 100,000-line template takes about a second). Small ones, the Composer's usual edits,
 * are checked in place: a thread start would cost more than the check.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { AppError } from '../contract/errors.js';
import { type PromptEngine, type TemplateCheck, templateError } from './prompt-engine.js';
import { templateVariables } from './template-variables.js';

/** Templates of at least this many characters are checked on a worker thread. */
export const OFF_THREAD_FROM_CHARS = 128 * 1024;

/** A check that takes longer than this is stopped (a parse is linear; this is a safety net). */
const CHECK_TIMEOUT_MS = 60_000;

/** A template's check: its syntax, and the variables it reads when the syntax is valid. */
export type TemplateCheckResult = ({ ok: true } | Extract<TemplateCheck, { ok: false }>) & {
  variables?: string[];
};

const require = createRequire(import.meta.url);

// The worker's source is a string (the main process is bundled into one file, with no worker
// file to point at); the variable finder is self-contained, so its own source runs there as is.
// `__name` is what a bundler's keep-names mode may call inside it.
const workerSource = () => `
const { parentPort, workerData } = require('node:worker_threads');
const __name = (f) => f;
const templateVariables = ${templateVariables.toString()};
const { Environment } = require(workerData.minijinja);
const env = new Environment();
env.debug = true;
try {
  env.addTemplate(workerData.name, workerData.source);
  parentPort.postMessage({ ok: true, variables: templateVariables(workerData.source) });
} catch (e) {
  parentPort.postMessage({ ok: false, message: String(e && e.message ? e.message : e) });
}
`;

function offThread(
  source: string,
  name: string,
): Promise<{ ok: true; variables: string[] } | { ok: false; message: string }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerSource(), {
      eval: true,
      workerData: { source, name, minijinja: require.resolve('minijinja-js') },
    });
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      void worker.terminate();
      reject(
        new AppError(
          'TOO_LARGE',
          `Checking ${name} took longer than ${CHECK_TIMEOUT_MS / 1000} s; split the template.`,
        ),
      );
    }, CHECK_TIMEOUT_MS);
    worker.once('message', (m) => {
      settled = true;
      clearTimeout(timer);
      resolve(m);
      // The thread and the WebAssembly memory it parsed in go away together.
      void worker.terminate();
    });
    worker.once('error', (e) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(e);
    });
    worker.once('exit', (code) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`the template check thread exited (${code})`));
    });
  });
}

/**
 * Check `source`'s syntax and find its variables: in place when it is small, on a worker thread
 * from {@link OFF_THREAD_FROM_CHARS} characters.
 */
export async function checkTemplate(
  engine: PromptEngine,
  source: string,
  name = 'template',
): Promise<TemplateCheckResult> {
  if (source.length < OFF_THREAD_FROM_CHARS) {
    const r = engine.validate(source, name);
    return r.ok ? { ok: true, variables: engine.variables(source) } : r;
  }
  const r = await offThread(source, name);
  if (r.ok) return { ok: true, variables: r.variables };
  const err = templateError('TEMPLATE_SYNTAX', new Error(r.message), name);
  return {
    ok: false,
    message: err.message,
    detail: r.message,
    line: (err.details?.line as number | null) ?? null,
    column: (err.details?.column as number | null) ?? null,
  };
}
