// @ts-check
// Module resolution hooks of the sandbox process (registered by guard.mjs in every thread): only
// the Node built-ins the runtime needs resolve, and only `file:` URLs (which the permission model
// limits to this folder and Pyodide's). Everything else — `node:net`, `node:child_process`,
// `node:http`, `node:v8`, `data:` URLs, packages — is refused, even if JavaScript is reached.

/** Built-ins the sandbox runtime imports as ES modules (process.mjs, worker.mjs, Pyodide). */
const ALLOWED = new Set([
  'node:fs',
  'node:fs/promises',
  'node:path',
  'node:url',
  'node:vm',
  'node:module',
  'node:worker_threads',
  'node:crypto',
]);

/** @param {unknown} specifier */
function refusal(specifier) {
  const e = new Error(`the sandbox does not allow importing ${JSON.stringify(specifier).slice(0, 200)}`);
  Object.assign(e, { code: 'ERR_ACCESS_DENIED' });
  return e;
}

/**
 * What to resolve `specifier` to before the default resolver runs: a `node:` URL when it names an
 * allowed built-in, null to let the default resolver decide; throws when it is refused.
 * @param {unknown} specifier
 * @returns {string | null}
 */
export function checkSpecifier(specifier) {
  if (typeof specifier !== 'string') throw refusal(specifier);
  if (/^[a-z_]+(\/[a-z_]+)?$/.test(specifier) && ALLOWED.has(`node:${specifier}`)) return `node:${specifier}`;
  if (specifier.startsWith('node:')) {
    if (!ALLOWED.has(specifier)) throw refusal(specifier);
    return specifier;
  }
  return null;
}

/** Whether a resolved URL may load: allowed built-ins and `file:` URLs only. @param {string} specifier @param {unknown} url */
export function checkResolved(specifier, url) {
  if (typeof url !== 'string') throw refusal(specifier);
  if (url.startsWith('node:') ? !ALLOWED.has(url) : !url.startsWith('file:')) throw refusal(specifier);
}

/**
 * @param {string} specifier
 * @param {{ parentURL?: string }} context
 * @param {(s: string, c: object) => Promise<{ url: string }>} next
 */
export async function resolve(specifier, context, next) {
  const builtin = checkSpecifier(specifier);
  const resolved = await next(builtin ?? specifier, context);
  checkResolved(specifier, resolved?.url);
  return resolved;
}
