import type { DispatchResult } from '../dispatch/index.js';
import { EXECUTABLE_KINDS } from '../dispatch/index.js';
import { describeEffects, skillEffects } from '../kinds/index.js';
import { listSkillScripts, scriptUsage } from '../scripts/index.js';
// Directly the pin module, not the sources index (which reads this registry's effects).
import { describeMismatch, pinMismatch } from '../sources/index.js';
import { switchedOff, unknownSkill } from './search-skills.js';
import { clip, type ToolContext, type ToolModule, type ToolOutcome } from './types.js';

/** `apply_skill`: run a skill's executable artifacts (or one artifact) with the variables in `ctx`. */
export const applySkill: ToolModule<'apply_skill'> = {
  name: 'apply_skill',
  run: (args, ctx) => runSkillTool(ctx, args.name, args.ctx ?? {}, args.artifact, args),
};

/**
 * Run a skill as a tool call: `apply_skill`, and a skill's own bundled tools (whose arguments are
 * its variables). A skill that may write or reach the network runs only once the user approves it.
 */
export async function runSkillTool(
  ctx: ToolContext,
  name: string,
  variables: Record<string, unknown>,
  artifact: string | undefined,
  args: Record<string, unknown>,
): Promise<ToolOutcome> {
  const found = ctx.catalog.resolve(name);
  if (!found) return unknownSkill(ctx.catalog, name);
  const off = switchedOff(ctx.catalog, found.skill.name);
  if (off) return off;
  const { skill, scope } = found;
  if (artifact && !skill.artifacts.some((a) => a.name === artifact)) {
    return {
      ok: false,
      skill: skill.name,
      result: {
        error: `skill "${skill.name}" has no artifact "${artifact}"; it has: ${[...new Set(skill.artifacts.map((a) => a.name))].join(', ')}`,
      },
    };
  }
  const executable = skill.artifacts.filter((a) => EXECUTABLE_KINDS.includes(a.kind));
  if (!artifact && executable.length === 0) {
    // Bundled scripts are files the model runs when the instructions say so, with arguments.
    const scripts = listSkillScripts(skill);
    return {
      ok: true,
      skill: skill.name,
      result: {
        skill: skill.name,
        note: 'this skill has no executable artifacts; follow its instructions (read_skill) instead',
        ...(scripts.length
          ? { scripts: scripts.map((s) => s.path), run_script: scriptUsage(skill.name, scripts) }
          : {}),
      },
    };
  }
  const effects = skillEffects(skill, artifact);
  const approve = ctx.turn?.external?.approveSkill;
  // A skill from a source whose stored files no longer match what was accepted asks again, under
  // its own name so an earlier "always allow" does not cover content nobody accepted; where nobody
  // can be asked (an MCP call), it does not run.
  const mismatch = pinMismatch(ctx.catalog.store(scope), skill);
  if (mismatch && !approve)
    return {
      ok: false,
      skill: skill.name,
      result: { error: describeMismatch(skill.name, mismatch), changed_since_accepted: true },
    };
  if ((effects.effects.length > 0 || mismatch) && approve) {
    const verdict = await approve.call(
      ctx.turn!.external,
      {
        skill: mismatch ? `${skill.name} (changed since accepted)` : skill.name,
        args,
        effects,
        description: [
          mismatch ? describeMismatch(skill.name, mismatch) : '',
          effects.effects.length ? describeEffects(effects) : '',
        ]
          .filter(Boolean)
          .join(' '),
      },
      { call_id: ctx.call_id },
    );
    if (!verdict.allowed)
      return { ok: false, skill: skill.name, result: { error: verdict.error, denied: true } };
  }
  // A chat's activity shows what the skill does inside while it runs (an LLM skill's steps).
  const progress = ctx.turn?.external?.progress;
  const callId = ctx.call_id;
  let step = 0;
  const runScope =
    progress && callId
      ? Object.freeze({
          ...ctx.scope,
          progress: (m: string) => progress.call(ctx.turn!.external, callId, ++step, m),
        })
      : ctx.scope;
  const results = await ctx.dispatcher.runSkill(runScope, {
    skill: { id: skill.id, name: skill.name, scope, version: skill.version },
    // Only executable artifacts run here: instructions come through read_skill. An LLM skill's
    // model reads its tool scripts, which are files of the skill, so it gets them all.
    artifacts: artifact || executable.some((a) => a.kind === 'llm_agent') ? skill.artifacts : executable,
    variables,
    artifact,
  });
  return {
    ok: results.every((r) => r.ok),
    skill: skill.name,
    artifacts: results.map((r) => r.artifact.name),
    trace_ids: results.map((r) => r.trace_id),
    result: { skill: skill.name, outputs: results.map(toolView) },
  };
}

function toolView(r: DispatchResult) {
  const failed = r.assertions.filter((a) => !a.passed && !a.skipped);
  return {
    artifact: r.artifact.name,
    kind: r.artifact.kind,
    ok: r.ok,
    ...(r.output?.text != null ? { text: clip(r.output.text) } : {}),
    ...(r.output?.data !== undefined ? { data: r.output.data } : {}),
    ...(r.output?.fallback ? { fallback: r.output.fallback } : {}),
    ...(r.error ? { error: r.error.message } : {}),
    ...(failed.length
      ? { failed_assertions: failed.map((a) => `${a.description}: ${a.explanation ?? ''}`) }
      : {}),
  };
}
