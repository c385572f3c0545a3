/**
 * HTTP catalogs: an index of JSON packages, fetched with `If-None-Match` so an unchanged catalog
 * costs one 304. The index:
 *
 * ```json
 * { "marketplace_id": "acme", "skills": [ { "name": "csv-tools", "url": "packages/csv-tools.json",
 *   "sha256": "…" } ] }
 * ```
 * `url` is resolved against the index's URL (http or https only); `sha256`, when given, must match
 * the package's bytes. The packages are written into a cache folder and read back by the same
 * importer as `skills import`.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import { SourceUnreachable } from './git.js';

const IndexSchema = z.object({
  marketplace_id: z.string().min(1).max(200).optional(),
  skills: z
    .array(
      z.object({
        name: z.string().min(1).max(200),
        url: z.string().min(1).max(2000),
        sha256: z
          .string()
          .regex(/^[0-9a-f]{64}$/i, 'must be 64 hex digits')
          .optional(),
      }),
    )
    .max(5000),
});

/** What a catalog fetch produced. */
export type CatalogFetch =
  | { status: 'not-modified' }
  | { status: 'fetched'; dir: string; etag: string | null; revision: string; marketplace_id: string | null };

/** Why a catalog URL is refused, or null. */
export function catalogUrlProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'not a URL (a catalog is an http:// or https:// address of an index .json)';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return 'a catalog must be an http:// or https:// URL';
  if (u.username || u.password) return 'credentials in the URL are refused';
  return null;
}

async function get(url: string, headers: Record<string, string>, timeoutMs: number, maxBytes: number) {
  let res: Response;
  try {
    res = await fetch(url, { headers, redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    throw new SourceUnreachable(
      `${url}: ${(e as Error).cause ? String((e as Error & { cause: unknown }).cause) : (e as Error).message}`,
    );
  }
  if (res.status === 304) return { res, bytes: Buffer.alloc(0) };
  if (!res.ok) {
    // A server error or a missing index is the source's problem, not the user's input.
    throw new SourceUnreachable(`${url}: HTTP ${res.status} ${res.statusText}`);
  }
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > maxBytes)
    throw new AppError('TOO_LARGE', `${url}: ${declared} bytes is over the ${maxBytes}-byte limit`);
  // The body is read piece by piece and dropped past the limit: a server that sends no length, or
  // a false one, cannot make the app hold more than the limit in memory.
  const chunks: Buffer[] = [];
  let got = 0;
  try {
    const reader = res.body?.getReader();
    for (let r = await reader?.read(); reader && r && !r.done; r = await reader.read()) {
      got += r.value.byteLength;
      if (got > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new AppError(
          'TOO_LARGE',
          `${url}: more than ${maxBytes} bytes, over the limit (the server sent more than it said)`,
        );
      }
      chunks.push(Buffer.from(r.value));
    }
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw new SourceUnreachable(
      `${url}: the download broke off (${(e as Error & { cause?: unknown }).cause ?? (e as Error).message}); the server may have sent a length that does not match its body`,
    );
  }
  const bytes = Buffer.concat(chunks);
  return { res, bytes };
}

/**
 * Fetch the index at `url` (with `If-None-Match: etag` when one is known) and, when it changed,
 * every package it lists, into `dir` (replaced only when all arrived).
 */
export async function fetchCatalog(
  url: string,
  etag: string | null,
  dir: string,
  maxBytes: number,
  timeoutMs = 60_000,
): Promise<CatalogFetch> {
  const problem = catalogUrlProblem(url);
  if (problem) throw new AppError('INVALID_INPUT', `${url}: ${problem}`);
  const headers: Record<string, string> = { accept: 'application/json' };
  // Without the cached packages a 304 would leave nothing to compare: ask for the whole index.
  if (etag && existsSync(dir)) headers['if-none-match'] = etag;
  const index = await get(url, headers, timeoutMs, maxBytes);
  if (index.res.status === 304) return { status: 'not-modified' };
  let parsed: z.infer<typeof IndexSchema>;
  try {
    const r = IndexSchema.safeParse(JSON.parse(index.bytes.toString('utf8')));
    if (!r.success) {
      const i = r.error.issues[0]!;
      throw new Error(`${i.path.join('.') || 'index'}: ${i.message}`);
    }
    parsed = r.data;
  } catch (e) {
    throw new AppError('INVALID_INPUT', `${url}: not a skill catalog index (${(e as Error).message})`);
  }
  mkdirSync(dirname(dir), { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(tmp, { recursive: true });
  try {
    const used = new Set<string>();
    // Each package is bounded by the import limit and all of them together by a multiple of it:
    // a catalog of 5,000 entries cannot fill the disk.
    const maxTotal = maxBytes * 8;
    let total = index.bytes.length;
    for (const entry of parsed.skills) {
      const target = new URL(entry.url, url);
      if (target.protocol !== 'http:' && target.protocol !== 'https:')
        throw new AppError('INVALID_INPUT', `${url}: skill "${entry.name}" has a non-http URL ${entry.url}`);
      const { bytes } = await get(target.href, { accept: 'application/json' }, timeoutMs, maxBytes);
      total += bytes.length;
      if (total > maxTotal)
        throw new AppError(
          'TOO_LARGE',
          `${url}: the catalog's packages add up to more than ${maxTotal} bytes (8 times the import limit); nothing was changed`,
        );
      const digest = createHash('sha256').update(bytes).digest('hex');
      if (entry.sha256 && entry.sha256.toLowerCase() !== digest)
        throw new AppError(
          'INVALID_INPUT',
          `${target.href}: its SHA-256 is ${digest}, the catalog says ${entry.sha256}; the catalog or the package was changed`,
        );
      // File names from the catalog are never used as paths: each package gets a safe, unique one.
      let base =
        entry.name
          .toLowerCase()
          .replace(/[^a-z0-9_-]+/g, '-')
          .replace(/^-+|-+$/g, '') || 'skill';
      while (used.has(base)) base += '-';
      used.add(base);
      writeFileSync(join(tmp, `${base}.json`), bytes);
    }
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  } finally {
    if (existsSync(tmp)) rmSync(tmp, { recursive: true, force: true });
  }
  const newEtag = index.res.headers.get('etag');
  return {
    status: 'fetched',
    dir,
    etag: newEtag,
    revision: newEtag ?? `sha256:${createHash('sha256').update(index.bytes).digest('hex').slice(0, 16)}`,
    marketplace_id: parsed.marketplace_id ?? null,
  };
}
