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

/**
 * @param {string} specifier
 * @param {{ parentURL?: string }} context
 * @param {(s: string, c: object) => Promise<{ url: string }>} next
 */
export async function resolve(specifier, context, next) {
  const refuse = () => {
    const e = new Error(`the sandbox does not allow importing ${JSON.stringify(specifier).slice(0, 200)}`);
    Object.assign(e, { code: 'ERR_ACCESS_DENIED' });
    throw e;
  };
  if (typeof specifier !== 'string') refuse();
  if (/^[a-z_]+(\/[a-z_]+)?$/.test(specifier) && ALLOWED.has(`node:${specifier}`)) {
    return next(`node:${specifier}`, context);
  }
  if (specifier.startsWith('node:')) {
    if (!ALLOWED.has(specifier)) refuse();
    return next(specifier, context);
  }
  const resolved = await next(specifier, context);
  if (typeof resolved?.url !== 'string') refuse();
  if (resolved.url.startsWith('node:')) {
    if (!ALLOWED.has(resolved.url)) refuse();
    return resolved;
  }
  if (!resolved.url.startsWith('file:')) refuse();
  return resolved;
}
