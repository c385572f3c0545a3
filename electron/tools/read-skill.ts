import { EXECUTABLE_KINDS } from '../dispatch/index.js';
import { scriptUsage } from '../scripts/index.js';
import { skillSlug } from '../skills/index.js';
import { describeMismatch, pinMismatch } from '../sources/index.js';
import type { SkillStore, SkillSummary } from '../store/index.js';
import { switchedOff, unknownSkill } from './search-skills.js';
import { type BundledTool, clip, type ToolContext, type ToolModule, type ToolOutcome } from './types.js';

/**
 * `read_skill`: a skill's instructions and the list of its artifacts, or one artifact's content
 * (loaded alone: only the requested rows). In a chat turn, reading a whole skill offers the tools
 * it bundles and the external tools it declares for the rest of the turn.
 */
export const readSkill: ToolModule<'read_skill'> = {
  name: 'read_skill',
  async run({ name, artifact }, ctx) {
    const store = ctx.catalog.stores().find((s) => s.repo.getSummaryByName(name));
    const summary = store?.repo.getSummaryByName(name);
    if (!store || !summary) return unknownSkill(ctx.catalog, name);
    const off = switchedOff(ctx.catalog, summary.name);
    if (off) return off;
    // A skill from a source whose stored files no longer match what the user accepted is
    // unreviewed text: the model reads it only once the user says so (as apply_skill and
    // run_script ask); where nobody can be asked, not at all.
    const mismatch = pinMismatch(store, summary.name);
    if (mismatch) {
      const refused = describeMismatch(summary.name, mismatch);
      const approve = ctx.turn?.external?.approveSkill;
      if (!approve)
        return {
          ok: false,
          skill: summary.name,
          result: { error: refused, changed_since_accepted: true },
        };
      const verdict = await approve.call(
        ctx.turn!.external,
        {
          skill: `${summary.name} (changed since accepted)`,
          args: { name, ...(artifact ? { artifact } : {}) },
          effects: { effects: [], reasons: [] },
          description: refused,
        },
        { call_id: ctx.call_id },
      );
      if (!verdict.allowed)
        return { ok: false, skill: summary.name, result: { error: verdict.error, denied: true } };
    }
    const out = read(ctx, store, summary, artifact);
    const reveal = ctx.turn?.external?.reveal;
    if (!out.ok || artifact || !reveal || !out.skill) return out;
    if (!summary.allowed_tools && !summary.metadata) return out;
    const revealed = await reveal.call(ctx.turn!.external, {
      name: summary.name,
      allowed_tools: summary.allowed_tools,
      metadata: summary.metadata,
    });
    if (revealed.length === 0) return out;
    const result = out.result as { tools?: string[] };
    return { ...out, result: { ...result, tools: [...(result.tools ?? []), ...revealed] } };
  },
};

function read(ctx: ToolContext, store: SkillStore, summary: SkillSummary, artifact?: string): ToolOutcome {
  if (artifact) {
    const rows = store.repo.getArtifactsByName(summary.id, artifact);
    if (rows.length === 0) {
      const names = store.repo.listArtifactHeaders(summary.id).map((h) => h.name);
      return {
        ok: false,
        skill: summary.name,
        result: {
          error: `skill "${summary.name}" has no artifact "${artifact}"; it has: ${names.join(', ')}`,
        },
      };
    }
    const a = rows[0]!;
    return {
      ok: true,
      skill: summary.name,
      artifacts: [a.name],
      result: {
        skill: summary.name,
        artifact: a.name,
        kind: a.kind,
        variants: rows.map((r) => r.model_variant ?? 'default'),
        content: clip(a.content),
      },
    };
  }
  const headers = store.repo.listArtifactHeaders(summary.id);
  const texts = store.repo.getArtifacts(summary.id, ['description', 'approach']);
  const bundled: BundledTool[] = [];
  for (const h of headers) {
    const tool = h.metadata?.tool as
      | { name?: string; description?: string; parameters?: Record<string, unknown> }
      | undefined;
    if (!tool || !EXECUTABLE_KINDS.includes(h.kind)) continue;
    const slug = (s: string) => skillSlug(s).replace(/-/g, '_');
    bundled.push({
      skill: summary.name,
      artifact: h.name,
      spec: {
        name: `${slug(summary.name)}__${slug(tool.name ?? h.name)}`.slice(0, 64),
        description: tool.description ?? `${summary.name}: run ${h.name}`,
        parameters: tool.parameters ?? { type: 'object', additionalProperties: true },
      },
    });
  }
  if (bundled.length) ctx.turn?.offer(bundled);
  return {
    ok: true,
    skill: summary.name,
    artifacts: texts.map((t) => t.name),
    result: {
      name: summary.name,
      description: summary.description,
      when: summary.when ?? undefined,
      instructions: clip(texts.map((t) => t.content).join('\n\n')),
      artifacts: headers.map((h) => ({
        name: h.name,
        kind: h.kind,
        model_variant: h.model_variant ?? undefined,
        executable: EXECUTABLE_KINDS.includes(h.kind),
      })),
      tools: ctx.turn ? bundled.map((b) => b.spec.name) : [],
      ...scriptsView(summary.name, headers),
    },
  };
}

/**
 * The skill's bundled Python scripts and how to run them: files the instructions may tell the
 * model to run, never run by applying the skill.
 */
function scriptsView(
  skill: string,
  headers: Array<{ kind: string; metadata: Record<string, unknown> | null }>,
) {
  const scripts = headers
    .map((h) => (h.kind === 'resource' && h.metadata?.encoding !== 'base64' ? h.metadata?.path : null))
    .filter((p): p is string => typeof p === 'string' && p.endsWith('.py') && !/(^|\/)__init__\.py$/.test(p))
    .sort();
  if (scripts.length === 0) return {};
  return {
    scripts,
    run_script: scriptUsage(
      skill,
      scripts.map((path) => ({ path })),
    ),
  };
}
