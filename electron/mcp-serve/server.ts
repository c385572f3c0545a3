/**
 * The skill catalog served over MCP (`skilldesk mcp serve`): another face of the same core. Every
 * request goes through the host's handler table via a client, as the CLI's do, so the catalog,
 * matching and the sandbox are exactly the app's.
 *
 * Tools: `list_skills`, `search_skills`, `read_skill`, `apply_skill` (a `code_template` runs in this
 * process's Python sandbox, not in the caller). Resources and methods follow the MCP Skills
 * extension (SEP-2640, `io.modelcontextprotocol/skills`): each skill is an Agent Skills folder whose
 * files are `skill://<name>/<path>` resources, enumerated by `skills/list` with SHA-256 digests and
 * looked up by `skills/get`.
 */
import { createHash } from 'node:crypto';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import YAML from 'yaml';
import { z } from 'zod';
import { BUILTIN_TOOLS, type BuiltinToolName } from '../contract/builtin-tools.js';
import type { SkillDetail } from '../contract/skills.js';
import { skillSlug, skillToAgentFiles } from '../skills/index.js';
import type { Skill } from '../store/index.js';
import type { CoreClient } from '../transport/index.js';

/** The extension identifier of SEP-2640. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** One file of a served skill. */
interface ServedFile {
  uri: string;
  path: string;
  bytes: Buffer;
  mimeType: string;
}

/** One skill as served: its SEP-2640 entry and its files. */
interface ServedSkill {
  name: string;
  slug: string;
  entry: {
    uri: string;
    frontmatter: Record<string, unknown>;
    resources: Array<{ uri: string; digest: string }>;
  };
  files: ServedFile[];
}

const MIME: Record<string, string> = {
  md: 'text/markdown',
  py: 'text/x-python',
  json: 'application/json',
  txt: 'text/plain',
  csv: 'text/csv',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  html: 'text/html',
  js: 'text/javascript',
  ts: 'text/plain',
};

function mimeOf(path: string): string {
  return MIME[path.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream';
}

const digest = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/**
 * A skill's Agent Skills files, with the frontmatter `name` set to the folder's slug (SEP-2640:
 * the last URI segment equals the frontmatter name, which the Agent Skills spec keeps to
 * lowercase letters, digits and hyphens); the display name stays in `metadata.display-name`.
 */
function serve(detail: SkillDetail): ServedSkill {
  const slug = skillSlug(detail.name);
  const asSkill = {
    ...detail,
    artifacts: detail.artifacts.map((a) => ({ ...a, state_blob: null })),
  } as unknown as Skill;
  const { files } = skillToAgentFiles(asSkill);
  const skillMd = files.get('SKILL.md')?.toString('utf8') ?? '';
  const m = /^---\n([\s\S]*?)\n---\n?([\s\S]*)$/.exec(skillMd);
  const frontmatter = (m ? YAML.parse(m[1]!) : {}) as Record<string, unknown>;
  if (frontmatter.name !== slug) {
    frontmatter.metadata = { ...((frontmatter.metadata as object) ?? {}), 'display-name': detail.name };
    frontmatter.name = slug;
  }
  files.set(
    'SKILL.md',
    Buffer.from(`---\n${YAML.stringify(frontmatter, { lineWidth: 0 })}---\n${m?.[2] ?? ''}`),
  );
  const served: ServedFile[] = [...files].map(([path, bytes]) => ({
    uri: `skill://${slug}/${path}`,
    path,
    bytes,
    mimeType: mimeOf(path),
  }));
  return {
    name: detail.name,
    slug,
    entry: {
      uri: `skill://${slug}/SKILL.md`,
      frontmatter,
      resources: served.map((f) => ({ uri: f.uri, digest: digest(f.bytes) })),
    },
    files: served,
  };
}

/** The skills served now (the merged catalog; an overridden account skill is not served). */
async function catalog(client: CoreClient): Promise<ServedSkill[]> {
  const { skills } = await client.invoke('skills/list', {});
  const out: ServedSkill[] = [];
  const seen = new Set<string>();
  for (const s of skills) {
    if (s.overridden) continue;
    const { skill } = await client.invoke('skills/get', { name: s.name, scope: s.scope });
    const served = serve(skill);
    // Two names that fold to the same slug: the second is served under a suffixed folder.
    let slug = served.slug;
    for (let i = 2; seen.has(slug); i++) slug = `${served.slug}-${i}`;
    seen.add(slug);
    out.push(slug === served.slug ? served : serve({ ...skill, name: slug }));
  }
  return out;
}

const text = (value: unknown) => ({
  content: [
    { type: 'text' as const, text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) },
  ],
});

const failure = (message: string) => ({ content: [{ type: 'text' as const, text: message }], isError: true });

/** Options of {@link createSkillsMcpServer}. */
export interface SkillsMcpServerOptions {
  version: string;
}

/** Build the MCP server over a core client (connect it to a transport to serve). */
export function createSkillsMcpServer(client: CoreClient, opts: SkillsMcpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'skilldesk', version: opts.version },
    {
      capabilities: { extensions: { [SKILLS_EXTENSION]: {} }, resources: {}, tools: {} },
      instructions:
        'SkillDesk skills: reusable instructions, prompt templates and sandboxed Python. Use search_skills to find one for the task, read_skill to see its instructions, apply_skill to run it. Every skill is also an Agent Skills folder under skill://<name>/SKILL.md.',
    },
  );

  // The chat's own tools: one name, schema and implementation each (electron/tools), run in the
  // core through `skills/call-tool`. The SDK checks arguments against the same strict schema, so an
  // unknown one comes back as an error naming the accepted ones.
  for (const name of Object.keys(BUILTIN_TOOLS) as BuiltinToolName[]) {
    const tool = BUILTIN_TOOLS[name];
    server.registerTool(
      name,
      {
        description: tool.description,
        inputSchema: tool.args,
        annotations: tool.read_only
          ? { readOnlyHint: true, openWorldHint: false }
          : { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      },
      async (args: Record<string, unknown>) => {
        const r = await client.call('skills/call-tool', { name, args });
        if (!r.ok) return failure(r.error.message);
        return { ...text(r.value.result), isError: !r.value.ok };
      },
    );
  }

  server.registerResource(
    'skill-file',
    new ResourceTemplate('skill://{skill}/{+path}', {
      list: async () => ({
        resources: (await catalog(client)).map((s) => ({
          uri: s.entry.uri,
          name: s.slug,
          description: String(s.entry.frontmatter.description ?? ''),
          mimeType: 'text/markdown',
        })),
      }),
    }),
    { description: 'A file of a skill served as an Agent Skills folder (SKILL.md and bundled files).' },
    async (uri) => {
      const file = (await catalog(client)).flatMap((s) => s.files).find((f) => f.uri === uri.href);
      if (!file) throw new McpError(ErrorCode.InvalidParams, `no such skill resource: ${uri.href}`);
      return {
        contents: [
          file.mimeType.startsWith('text/') ||
          file.mimeType.endsWith('json') ||
          file.mimeType.endsWith('yaml')
            ? { uri: file.uri, mimeType: file.mimeType, text: file.bytes.toString('utf8') }
            : { uri: file.uri, mimeType: file.mimeType, blob: file.bytes.toString('base64') },
        ],
      };
    },
  );

  // SEP-2640's methods, on the low-level server.
  server.server.setRequestHandler(
    z.object({
      method: z.literal('skills/list'),
      params: z.object({ cursor: z.string().optional() }).passthrough().optional(),
    }),
    async () => ({ skills: (await catalog(client)).map((s) => s.entry) }),
  );
  server.server.setRequestHandler(
    z.object({ method: z.literal('skills/get'), params: z.object({ uri: z.string() }).passthrough() }),
    async (req) => {
      const found = (await catalog(client)).find((s) => s.entry.uri === req.params.uri);
      if (!found) throw new McpError(ErrorCode.InvalidParams, `no skill at ${req.params.uri}`);
      return { skill: found.entry };
    },
  );
  return server;
}
