/**
 * The skill catalog served over MCP (`skilldesk mcp serve`): another face of the same core. Every
 * request goes through the host's handler table via a client, as the CLI's do, so the catalog,
 * matching and the sandbox are exactly the app's.
 *
 * Tools: `list_skills`, `search_skills`, `read_skill`, `apply_skill` (a `code_template` runs in this
 * process's Python sandbox, not in the caller). Resources and methods follow the MCP Skills
 * extension (SEP-2640, `io.modelcontextprotocol/skills`): each skill is an Agent Skills folder whose
 * files are `skill://<name>/<path>` resources, enumerated by `skills/list` with SHA-256 digests and
 * sizes, looked up by `skills/get`, their folders read by `resources/directory/read`. The catalog
 * is cached (see `catalog.ts`) and a change to it is announced as `resources/list_changed`.
 * Requests of the 2026-07-28 revision (stateless, `server/discover`) are answered beside the
 * handshake-era ones (see `modern.ts`).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { z } from 'zod';
import {
  BUILTIN_TOOLS,
  type BuiltinToolName,
  SCRIPT_OUTPUT_URI,
  SkillName,
  toolOutputs,
} from '../contract/builtin-tools.js';
import type { GrantedFolder } from '../contract/chat-files.js';
import type { CoreClient } from '../transport/index.js';
import { ServedCatalog, type ServedView, sentAsText } from './catalog.js';
import {
  CACHE_HINTS,
  MODERN_PROTOCOL_VERSION,
  modernTransport,
  SERVER_INFO_META,
  SUBSCRIPTION_ID_META,
} from './modern.js';

/** The extension identifier of SEP-2640. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/**
 * `skill://<name>/_manifest`: the skill's files with sizes and hashes as one JSON resource, the
 * convention of resource-only skill clients (fastmcp, SkillsDotNet) that do not call `skills/get`.
 * It is not a file of the skill, so no entry or directory lists it.
 */
export const MANIFEST_FILE = '_manifest';

/** Entries per page of `skills/list` (an entry is never split across pages). */
export const SKILLS_PAGE_SIZE = 100;
/** Resources per page of `resources/list` and `resources/directory/read`. */
export const RESOURCES_PAGE_SIZE = 250;

const text = (value: unknown) => ({
  content: [
    { type: 'text' as const, text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) },
  ],
});

/** `resource_link` items for the files a tool's result names as kept outputs (its `outputs` fact). */
function outputLinks(name: BuiltinToolName, result: unknown) {
  return toolOutputs(name, result).map((f) => ({
    type: 'resource_link' as const,
    uri: f.uri,
    name: f.path,
    mimeType: f.media_type,
    size: f.size,
  }));
}

/** `skilldesk://script-output/<run_id>/<path>` → its parts; null for any other URI. */
function parseScriptOutputUri(uri: string): { run_id: string; path: string } | null {
  if (!uri.startsWith(SCRIPT_OUTPUT_URI)) return null;
  const [runId, ...rest] = uri.slice(SCRIPT_OUTPUT_URI.length).split('/');
  if (!runId || rest.length === 0) throw invalid(`${uri} names no file of a script run`);
  try {
    return { run_id: runId, path: rest.map(decodeURIComponent).join('/') };
  } catch {
    throw invalid(`${uri} is not a valid script output URI`);
  }
}

const failure = (message: string) => ({ content: [{ type: 'text' as const, text: message }], isError: true });

const invalid = (message: string) => new McpError(ErrorCode.InvalidParams, message);

/** A page of `items` from an opaque cursor (the offset, as the pagination utility allows). */
function page<T>(
  items: { readonly length: number; slice(start: number, end: number): T[] },
  cursor: unknown,
  size: number,
): { items: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    const n = typeof cursor === 'string' ? Number(Buffer.from(cursor, 'base64url').toString('utf8')) : NaN;
    if (!Number.isInteger(n) || n < 0 || n > items.length) throw invalid(`invalid cursor: ${String(cursor)}`);
    start = n;
  }
  const end = start + size;
  return {
    items: items.slice(start, end),
    ...(end < items.length ? { nextCursor: Buffer.from(String(end)).toString('base64url') } : {}),
  };
}

/** The `uri` parameter of a request, or -32602 naming what is wrong. */
function uriParam(method: string, params: unknown): string {
  const uri = (params as { uri?: unknown } | undefined)?.uri;
  if (params === undefined || params === null || typeof params !== 'object')
    throw invalid(`${method} needs params with a "uri" (the URI of a skill's SKILL.md)`);
  if (typeof uri !== 'string' || !uri) throw invalid(`${method} needs a "uri" string parameter`);
  return uri;
}

/** Options of {@link createSkillsMcpServer}. */
export interface SkillsMcpServerOptions {
  version: string;
  /**
   * The served catalog to share (the HTTP face shares one across its per-request servers). Without
   * it the server keeps its own and watches the change log every `pollMs` (default 1000), sending
   * `notifications/resources/list_changed` to an initialized client when the catalog changed.
   */
  catalog?: ServedCatalog;
  pollMs?: number;
  /**
   * Warm the search index in the background when the server is built (default: when it owns its
   * catalog; the HTTP face warms once for all its servers).
   */
  warmSearch?: boolean;
  /**
   * Folders of this machine granted to the tools (`mcp serve --folder`): script and Python runs
   * see each read-only at `inputs/<name>/`, and a call may name files inside them.
   */
  folders?: GrantedFolder[];
}

// The SDK builds an Ajv instance per server (a fifth of a request's time over stateless HTTP, where
// each request gets its own server); its compiled validators are pure, so one serves them all.
let sharedValidator: AjvJsonSchemaValidator | null = null;

// The request schemas of the methods the SDK does not know, built once: building zod schemas per
// server was another share of a stateless HTTP request.
const looseSchemas = new Map<
  string,
  z.ZodObject<{ method: z.ZodLiteral<string>; params: z.ZodOptional<z.ZodUnknown> }>
>();
function loose(method: string) {
  let schema = looseSchemas.get(method);
  if (!schema) {
    schema = z.object({ method: z.literal(method), params: z.unknown().optional() });
    looseSchemas.set(method, schema);
  }
  return schema;
}

/** What a request handler is given that this server uses: its `_meta` and a way to notify. */
interface HandlerExtra {
  _meta?: { progressToken?: string | number };
  sendNotification: (n: never) => Promise<void>;
}

/** Build the MCP server over a core client (connect it to a transport to serve). */
export function createSkillsMcpServer(client: CoreClient, opts: SkillsMcpServerOptions): McpServer {
  const capabilities = {
    extensions: { [SKILLS_EXTENSION]: { directoryRead: true } },
    resources: { listChanged: true },
    tools: {},
  };
  const instructions =
    'SkillDesk skills: reusable instructions, prompt templates and sandboxed Python. Use search_skills to find one for the task, read_skill to see its instructions, apply_skill to run it. Every skill is also an Agent Skills folder under skill://<name>/SKILL.md (skills/list enumerates them).';
  sharedValidator ??= new AjvJsonSchemaValidator();
  const server = new McpServer(
    { name: 'skilldesk', version: opts.version },
    { capabilities, instructions, jsonSchemaValidator: sharedValidator },
  );

  const catalog = opts.catalog ?? new ServedCatalog(client);
  // Built while the client connects, then followed: a change made by anyone (the app, another
  // CLI) is announced to a handshake-era client at once, to a modern one on its listen stream.
  const unwatch = opts.catalog ? null : catalog.watch(opts.pollMs ?? 1000);
  const ends = new Set<() => void>();
  ends.add(
    catalog.subscribe(() => {
      if (server.isConnected() && server.server.getClientVersion()) server.sendResourceListChanged();
    }),
  );
  const prev = server.server.onclose;
  server.server.onclose = () => {
    closed = true;
    unwatch?.();
    // A catalog this server made is its own to stop (one passed in is shared by other sessions).
    if (!opts.catalog) catalog.close();
    for (const end of [...ends]) end();
    prev?.();
  };
  void catalog.current().catch(() => {});
  // The first search_skills would otherwise load or build the search index (a tenth of a second
  // from the store's saved copy at 10,000 skills, seconds without one) and run the matcher
  // through the interpreter. The warm-up starts once the client has had its first answers (to
  // `initialize` or a modern client's first request, which has no handshake, and the tools/list
  // that follows), in slices, so neither is held up and a client's first search costs what its
  // later ones do.
  let closed = false;
  let warmed = !(opts.warmSearch ?? !opts.catalog);
  const warm = () => {
    if (warmed || closed) return;
    warmed = true;
    setImmediate(() => {
      if (!closed) void client.call('skills/warm-match', {}).catch(() => {});
    });
  };

  /**
   * The served catalog for a request that needs it. While the first build runs the request waits,
   * told how far it got when it asked for progress (`_meta.progressToken`).
   */
  const viewFor = async (extra?: HandlerExtra): Promise<ServedView> => {
    const token = extra?._meta?.progressToken;
    if (catalog.ready || token === undefined || !extra) return catalog.current();
    let last = -1;
    const send = (p: { done: number; total: number }) => {
      if (p.done <= last || p.total === 0) return;
      last = p.done;
      void extra
        .sendNotification({
          method: 'notifications/progress',
          params: {
            progressToken: token,
            progress: p.done,
            total: p.total,
            message: `Preparing the skill catalog (${Math.floor((100 * p.done) / p.total)}%)`,
          },
        } as never)
        .catch(() => {});
    };
    const off = catalog.onProgress(send);
    send(catalog.progress);
    try {
      return await catalog.current();
    } finally {
      off();
    }
  };

  /**
   * The stored name of a skill a client named by its served name (or its stored one). Before the
   * catalog is built a stored name is taken as it is; only a name the store does not know waits.
   */
  const storedName = async (name: string, extra?: HandlerExtra): Promise<string> => {
    if (!catalog.ready && (await client.call('skills/get', { name })).ok) return name;
    return (await viewFor(extra)).storedName(name) ?? name;
  };

  // Modern requests are recognised on the transport; every caller connects through it.
  const connect = server.connect.bind(server);
  server.connect = (transport: Transport) => {
    const t = modernTransport(transport);
    let answered = 0;
    const send = t.send.bind(t);
    t.send = (message, options) => {
      const sent = send(message, options);
      // After the second answer (a client's tools/list follows its handshake at once), or a
      // moment after the first for a client that asks nothing more yet.
      if (!warmed && 'result' in message) {
        answered++;
        if (answered >= 2) warm();
        else setTimeout(warm, 150).unref();
      }
      return sent;
    };
    return connect(t);
  };

  // The chat's own tools: one name, schema and implementation each (electron/tools), run in the
  // core through `skills/call-tool`. The SDK checks arguments against the same strict schema, so an
  // unknown one comes back as an error naming the accepted ones.
  for (const name of Object.keys(BUILTIN_TOOLS) as BuiltinToolName[]) {
    const tool = BUILTIN_TOOLS[name];
    // The argument that names a skill, which a client may give as the name the skill is served under.
    const skillArgs = Object.entries(tool.args.shape as Record<string, unknown>)
      .filter(([, schema]) => schema === SkillName)
      .map(([key]) => key);
    server.registerTool(
      name,
      {
        description: tool.description,
        inputSchema: tool.args,
        annotations: tool.read_only
          ? { readOnlyHint: true, openWorldHint: false }
          : { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      },
      async (given: Record<string, unknown>, extra: HandlerExtra) => {
        const args = { ...given };
        for (const key of skillArgs) {
          if (typeof args[key] === 'string') args[key] = await storedName(args[key], extra);
        }
        const r = await client.call('skills/call-tool', {
          name,
          args,
          ...(opts.folders?.length ? { folders: opts.folders } : {}),
        });
        if (!r.ok) return failure(r.error.message);
        const out = text(r.value.result);
        // A script's output files travel as links to resources the client reads when it wants them.
        const links = outputLinks(name, r.value.result);
        return { content: [...out.content, ...links], isError: !r.value.ok };
      },
    );
  }

  const low = server.server;

  low.setRequestHandler(ListResourcesRequestSchema, async (req, extra) => {
    const view = await viewFor(extra);
    const { items, nextCursor } = page(view, req.params?.cursor, RESOURCES_PAGE_SIZE);
    return {
      resources: items.map((s) => ({
        uri: s.entry.uri,
        name: s.slug,
        description: s.description,
        mimeType: 'text/markdown',
        size: s.files[0]!.size,
      })),
      ...(nextCursor ? { nextCursor } : {}),
    };
  });
  low.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: 'skill://{skill}/{+path}',
        name: 'skill-file',
        description:
          'A file of a skill served as an Agent Skills folder (SKILL.md and bundled files); skill://{skill}/_manifest lists its files with sizes and SHA-256 hashes.',
      },
    ],
  }));
  low.setRequestHandler(ReadResourceRequestSchema, async (req, extra) => {
    const asked = req.params.uri;
    const output = parseScriptOutputUri(asked);
    if (output) {
      const r = await client.call('scripts/read-output', output);
      if (!r.ok) throw invalid(r.error.message);
      return { contents: [{ uri: asked, mimeType: r.value.media_type, blob: r.value.data_base64 }] };
    }
    const view = await viewFor(extra);
    const uri = view.servedUri(asked);
    const file = view.fileAt(uri);
    const manifestOf =
      !file && uri.endsWith(`/${MANIFEST_FILE}`)
        ? view.skillAt(uri.replace(/_manifest$/, 'SKILL.md'))
        : undefined;
    if (manifestOf) {
      return {
        contents: [
          {
            uri,
            mimeType: 'application/json',
            text: JSON.stringify(
              {
                skill: manifestOf.slug,
                files: manifestOf.files.map((f) => ({ path: f.path, size: f.size, hash: f.digest })),
              },
              null,
              2,
            ),
          },
        ],
      };
    }
    if (!file) {
      throw invalid(
        view.dirAt(uri)
          ? `${uri} is a directory resource: read it with resources/directory/read`
          : `No skill resource is served at ${uri}`,
      );
    }
    return {
      contents: [
        sentAsText(file)
          ? { uri: file.uri, mimeType: file.mimeType, text: file.bytes.toString('utf8') }
          : { uri: file.uri, mimeType: file.mimeType, blob: file.bytes.toString('base64') },
      ],
    };
  });

  // SEP-2640's methods, on the low-level server. Params are checked here, not by the schema, so
  // a missing or malformed one is -32602 with a sentence, not an internal error.
  const skillsResult = (method: 'skills/list' | 'skills/get', body: Record<string, unknown>) => ({
    resultType: 'complete',
    ...body,
    ...CACHE_HINTS[method],
  });
  low.setRequestHandler(loose('skills/list'), async (req, extra) => {
    const params = req.params as { cursor?: unknown } | undefined;
    const view = await viewFor(extra);
    const { items, nextCursor } = page(view, params?.cursor, SKILLS_PAGE_SIZE);
    return skillsResult('skills/list', {
      skills: items.map((s) => s.entry),
      ...(nextCursor ? { nextCursor } : {}),
    });
  });
  low.setRequestHandler(loose('skills/get'), async (req, extra) => {
    const asked = uriParam('skills/get', req.params);
    const view = await viewFor(extra);
    const uri = view.servedUri(asked);
    const found = view.skillAt(uri);
    if (!found) throw invalid(`No skill is served at ${uri}`);
    return skillsResult('skills/get', { skill: found.entry });
  });
  low.setRequestHandler(loose('resources/directory/read'), async (req, extra) => {
    const asked = uriParam('resources/directory/read', req.params);
    const view = await viewFor(extra);
    const uri = view.servedUri(asked);
    const children = view.dirAt(uri);
    if (!children) {
      throw invalid(
        view.fileAt(uri) ? `${uri} is not a directory resource` : `No directory resource is served at ${uri}`,
      );
    }
    const { items, nextCursor } = page(
      children,
      (req.params as { cursor?: unknown }).cursor,
      RESOURCES_PAGE_SIZE,
    );
    return { resultType: 'complete', resources: items, ...(nextCursor ? { nextCursor } : {}) };
  });

  // 2026-07-28 change notifications: a `subscriptions/listen` request stays open, acknowledged
  // with what is honored (the resource list; the tools never change), each catalog change sent on
  // it, until the client cancels it or the server closes.
  low.setRequestHandler(
    loose('subscriptions/listen'),
    (req, extra) =>
      new Promise((resolve) => {
        const asked = (req.params as { notifications?: Record<string, unknown> } | undefined)?.notifications;
        const honored = asked?.resourcesListChanged === true ? { resourcesListChanged: true } : {};
        const _meta = { [SUBSCRIPTION_ID_META]: extra.requestId };
        const send = (method: string, params: Record<string, unknown>) =>
          void extra.sendNotification({ method, params: { ...params, _meta } } as never).catch(() => {});
        send('notifications/subscriptions/acknowledged', { notifications: honored });
        const off = honored.resourcesListChanged
          ? catalog.subscribe(() => send('notifications/resources/list_changed', {}))
          : () => {};
        const end = () => {
          off();
          ends.delete(end);
          resolve({ _meta: { [SERVER_INFO_META]: { name: 'skilldesk', version: opts.version } } });
        };
        ends.add(end);
        extra.signal.addEventListener('abort', end, { once: true });
      }),
  );

  // 2026-07-28 discovery: what `initialize` told, asked for without a handshake.
  low.setRequestHandler(loose('server/discover'), async () => ({
    supportedVersions: [MODERN_PROTOCOL_VERSION],
    capabilities,
    instructions,
    _meta: { [SERVER_INFO_META]: { name: 'skilldesk', version: opts.version } },
  }));
  return server;
}
