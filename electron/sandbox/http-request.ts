/**
 * `http_request`: the only way a sandboxed tool reaches the network, made by the main process for
 * it. A request goes only to a host the user granted the skill; the name is resolved once, every
 * address checked, and the connection pinned to the checked address (so a second answer of the
 * DNS cannot switch it); redirects are followed here, each hop checked again; sizes and time are
 * bounded. Private, loopback, link-local, multicast and unspecified addresses (IPv4, IPv6, and
 * IPv4-mapped IPv6) are refused unless the user granted that address itself (or `localhost`).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../contract/errors.js';

/** One request as Python's `urllib` (through the prelude) asks for it. */
export interface HttpRequestInput {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Request body, base64. */
  body: string | null;
}

/** The answer handed back to Python. */
export interface HttpResponseOutput {
  status: number;
  reason: string;
  /** The final URL (after redirects). */
  url: string;
  headers: Array<[string, string]>;
  /** Response body, base64. */
  body: string;
}

/** What one request did, for the trace and the chat's activity. */
export interface HttpLogEntry {
  method: string;
  url: string;
  status: number | null;
  bytes: number;
  error?: string;
  /**
   * Set when the request was refused only because its host is not granted (shown as granted:
   * `host` or `host:port`), so the user can be asked to allow it.
   */
  refused_host?: string;
}

/** Resolves a host name to its addresses (the system resolver by default). */
export type Resolve = (host: string) => Promise<Array<{ address: string; family: number }>>;

/** The limits and grants of one skill's requests. */
export interface HttpGateOptions {
  /** Skill name, for the error messages. */
  skill: string;
  /**
   * Who is refused, and how the user grants a host, for the error messages (default: the skill,
   * and `skilldesk skills grant`). Python shows these to the model, which tells the user.
   */
  refusal?: { who: string; grant: (host: string) => string };
  /**
   * Only https URLs, except to a loopback address granted by address (or `localhost`): a service
   * on this machine is often plain http, and its traffic never leaves the machine.
   */
  httpsOnly?: boolean;
  /** Granted hosts: `name`, `name:port`, an IP literal (IPv6 in brackets) with an optional port. */
  granted: readonly string[];
  /** Largest response body (default 5 MiB). */
  maxResponseBytes?: number;
  /** Largest request body (default 1 MiB). */
  maxRequestBytes?: number;
  /** Whole request, redirects included (default 15 s). */
  timeoutMs?: number;
  maxRedirects?: number;
  signal?: AbortSignal;
  resolve?: Resolve;
  /** Told of every request (allowed or refused). */
  log?: (entry: HttpLogEntry) => void;
}

const systemResolve: Resolve = (host) => dnsLookup(host, { all: true, verbatim: true });

const DROPPED_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'upgrade',
  'proxy-authorization',
  'proxy-connection',
  'keep-alive',
  'te',
  'trailer',
  'expect',
]);

/** `host[:port]` of a grant, lower-case, IPv6 without brackets. */
function parseGrant(grant: string): { host: string; port: number | null } {
  const g = grant.trim().toLowerCase();
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(g);
  if (v6) return { host: v6[1]!, port: v6[2] ? Number(v6[2]) : null };
  const m = /^([^:]+)(?::(\d+))?$/.exec(g);
  if (!m) return { host: g, port: null };
  return { host: m[1]!, port: m[2] ? Number(m[2]) : null };
}

/** Why an address may not be reached without the user granting it by address, or null. */
export function specialAddress(address: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
    return specialAddress((ip as ipaddr.IPv6).toIPv4Address().toString());
  }
  const range = ip.range();
  return range === 'unicast' ? null : range;
}

/**
 * Make one request for a sandboxed tool. Throws an AppError (FORBIDDEN for a host or address that
 * is not allowed, TOO_LARGE, LLM-free timeouts as SANDBOX_TIMEOUT) that reaches Python as
 * `skilldesk.SkillDeskError` (urllib's `URLError` in the prelude).
 */
export async function httpRequest(input: HttpRequestInput, o: HttpGateOptions): Promise<HttpResponseOutput> {
  const maxRedirects = o.maxRedirects ?? 5;
  const deadline = Date.now() + (o.timeoutMs ?? 15_000);
  const maxRequest = o.maxRequestBytes ?? 1024 * 1024;
  let body = input.body ? Buffer.from(input.body, 'base64') : null;
  if (body && body.length > maxRequest)
    throw new AppError('TOO_LARGE', `the request body is ${body.length} bytes; at most ${maxRequest}`);
  let method = input.method.toUpperCase();
  if (!/^[A-Z]{1,16}$/.test(method))
    throw new AppError('INVALID_INPUT', `"${input.method}" is not an HTTP method`);
  let url = input.url;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.headers ?? {})) {
    if (!DROPPED_HEADERS.has(k.toLowerCase()) && !/[\r\n]/.test(k + v)) headers[k] = v;
  }
  for (let hop = 0; ; hop++) {
    const entry: HttpLogEntry = { method, url, status: null, bytes: 0 };
    const target = await gateTarget(url, method, o);
    let res: {
      status: number;
      reason: string;
      headers: Array<[string, string]>;
      body: Buffer;
      location?: string;
    };
    try {
      res = await send(target, method, headers, body, deadline, o);
    } catch (e) {
      entry.error = e instanceof Error ? e.message : String(e);
      o.log?.(entry);
      throw e;
    }
    entry.status = res.status;
    entry.bytes = res.body.length;
    o.log?.(entry);
    if (res.location && [301, 302, 303, 307, 308].includes(res.status)) {
      if (hop >= maxRedirects)
        throw new AppError('FORBIDDEN', `more than ${maxRedirects} redirects from ${input.url}`);
      url = new URL(res.location, url).toString();
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = null;
      }
      // The next hop is checked as a new request: its host must be granted too.
      continue;
    }
    return {
      status: res.status,
      reason: res.reason,
      url,
      headers: res.headers,
      body: res.body.toString('base64'),
    };
  }
}

/**
 * The gate's check of one destination, for every path out of a sandbox (`http_request`, and the
 * native sandbox's proxy for CONNECT tunnels and proxied requests): the host must be granted, its
 * name is resolved once here and every address checked. A refusal is logged (with `refused_host`
 * when only the grant is missing, so the user can be asked) and thrown as an AppError.
 */
export async function gateTarget(url: string, method: string, o: HttpGateOptions): Promise<GateTarget> {
  try {
    return await checkTarget(url, o);
  } catch (e) {
    // A refused hop is part of what the tool did: the trace shows it.
    const d = e instanceof AppError ? e.details : undefined;
    // Never offered for an internal address (a redirect to the metadata service, the router):
    // a grant of one stays something the user types, not a button a skill can lure them to.
    const ungranted =
      d?.setting === 'network grants' && typeof d.host === 'string' && !internalLiteral(d.host)
        ? d.host
        : null;
    o.log?.({
      method,
      url,
      status: null,
      bytes: 0,
      error: e instanceof Error ? e.message : String(e),
      ...(ungranted ? { refused_host: ungranted } : {}),
    });
    throw e;
  }
}

/** A checked destination: the URL, and the one address a connection to it must use. */
export interface GateTarget {
  url: URL;
  host: string;
  port: number;
  address: string;
  family: number;
}

/** An IP literal (`host` or `host:port`, IPv6 in brackets) in a loopback, private or other special range. */
function internalLiteral(shown: string): boolean {
  const host = shown.startsWith('[') ? shown.slice(1, shown.indexOf(']')) : shown.replace(/:\d+$/, '');
  return isIP(host) !== 0 && specialAddress(host) !== null;
}

/** The URL's host must be granted; its addresses are resolved once and checked. */
async function checkTarget(raw: string, o: HttpGateOptions): Promise<GateTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('INVALID_INPUT', `"${raw.slice(0, 200)}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AppError('FORBIDDEN', `${url.protocol} URLs cannot be requested; only http and https`);
  if (url.username || url.password)
    throw new AppError('FORBIDDEN', 'URLs with a user name or password are refused');
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const grant = o.granted
    .map(parseGrant)
    .find((g) => g.host === host && (g.port === null || g.port === port));
  const shown = url.port ? `${host}:${port}` : host;
  const refusal = o.refusal ?? {
    who: `skill "${o.skill}"`,
    grant: (h: string) =>
      `Grant it with: skilldesk skills grant ${JSON.stringify(o.skill)} ${h} (or turn it on under the skill's Network access)`,
  };
  if (!grant) {
    throw new AppError(
      'FORBIDDEN',
      `${refusal.who} may not reach ${shown}: it is not granted. ${refusal.grant(shown)}`,
      {
        host: shown,
        setting: 'network grants',
      },
    );
  }
  const literal = isIP(host) !== 0;
  if (
    o.httpsOnly &&
    url.protocol === 'http:' &&
    !(host === 'localhost' || (literal && specialAddress(host) === 'loopback'))
  ) {
    throw new AppError(
      'FORBIDDEN',
      `${refusal.who} may reach ${shown} over https only: use https://${shown}${url.pathname}${url.search}`,
      { host: shown },
    );
  }
  const addresses = literal ? [{ address: host, family: isIP(host) }] : await resolveOnce(host, o);
  if (addresses.length === 0) throw new AppError('NOT_FOUND', `${host} has no address`);
  // A name the user granted may still resolve to an internal address (DNS rebinding, or a skill
  // pointing its own name at the user's router): only a grant of the address itself, or of
  // localhost, lets a request reach one.
  const byAddress = literal || host === 'localhost';
  for (const a of addresses) {
    const why = specialAddress(a.address);
    if (why && !byAddress) {
      throw new AppError(
        'FORBIDDEN',
        `${refusal.who} may not reach ${shown}: it resolves to ${a.address}, a ${why} address. Only a grant of that address itself allows it. ${refusal.grant(`${a.address.includes(':') ? `[${a.address}]` : a.address}${url.port ? `:${port}` : ''}`)}`,
        { host: shown, address: a.address, range: why },
      );
    }
  }
  const first = addresses[0]!;
  return { url, host, port, address: first.address, family: first.family };
}

async function resolveOnce(host: string, o: HttpGateOptions) {
  try {
    return await (o.resolve ?? systemResolve)(host);
  } catch (e) {
    throw new AppError('NOT_FOUND', `${host} could not be resolved (${(e as Error).message})`, { host });
  }
}

function send(
  t: GateTarget,
  method: string,
  headers: Record<string, string>,
  body: Buffer | null,
  deadline: number,
  o: HttpGateOptions,
): Promise<{
  status: number;
  reason: string;
  headers: Array<[string, string]>;
  body: Buffer;
  location?: string;
}> {
  const maxBytes = o.maxResponseBytes ?? 5 * 1024 * 1024;
  const left = deadline - Date.now();
  if (left <= 0)
    return Promise.reject(new AppError('SANDBOX_TIMEOUT', `${t.url.host} did not answer in time`));
  // Pinned: whatever the name resolves to now, the socket connects to the address checked above.
  const pinned: LookupFunction = (_h, opts, cb) => {
    if ((opts as { all?: boolean }).all)
      (cb as unknown as (e: null, a: unknown[]) => void)(null, [{ address: t.address, family: t.family }]);
    else cb(null, t.address, t.family);
  };
  const mod = t.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      {
        protocol: t.url.protocol,
        hostname: t.host,
        port: t.port,
        path: `${t.url.pathname}${t.url.search}`,
        method,
        headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        lookup: pinned,
        agent: false,
        timeout: left,
        signal: o.signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let over = false;
        res.on('data', (c: Buffer) => {
          if (over) return;
          size += c.length;
          if (size > maxBytes) {
            over = true;
            reject(new AppError('TOO_LARGE', `${t.url.host} sent more than ${maxBytes} bytes`));
            req.destroy();
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => {
          if (over) return;
          const hs: Array<[string, string]> = [];
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
            hs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
          resolve({
            status: res.statusCode ?? 0,
            reason: res.statusMessage ?? '',
            headers: hs,
            body: Buffer.concat(chunks),
            location: typeof res.headers.location === 'string' ? res.headers.location : undefined,
          });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(
      () => req.destroy(new AppError('SANDBOX_TIMEOUT', `${t.url.host} did not answer in time`)),
      left,
    );
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () =>
      req.destroy(new AppError('SANDBOX_TIMEOUT', `${t.url.host} did not answer in time`)),
    );
    req.on('error', (e) =>
      reject(e instanceof AppError ? e : new AppError('NOT_FOUND', `${t.url.host}: ${(e as Error).message}`)),
    );
    req.end(body ?? undefined);
  });
}
