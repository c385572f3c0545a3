import { AppError } from '../contract/errors.js';
import { listSkillScripts } from '../dispatch/index.js';
import { describeMismatch, pinMismatch } from '../sources/index.js';
import { switchedOff, unknownSkill } from './search-skills.js';
import { clip, type ToolModule } from './types.js';

/**
 * `run_script`: run one of a skill's bundled Python scripts in the sandbox with arguments and
 * stdin. The script sees the skill's files read-only and no host functions, so it can neither
 * reach the network nor change anything outside its sandbox: like a `code_template` that calls no
 * host function, it runs without asking. Its exit code, stdout and stderr are the result, whatever
 * the exit code; the files it wrote are kept for download and listed in the result.
 */
export const runScript: ToolModule<'run_script'> = {
  name: 'run_script',
  async run(args, ctx) {
    const found = ctx.catalog.resolve(args.name);
    if (!found) return unknownSkill(ctx.catalog, args.name);
    const off = switchedOff(ctx.catalog, found.skill.name);
    if (off) return off;
    const { skill, scope } = found;
    // A skill from a source whose stored files no longer match what the user accepted runs its
    // scripts only once asked again (as apply_skill does); where nobody can be asked, not at all.
    const mismatch = pinMismatch(ctx.catalog.store(scope), skill);
    if (mismatch) {
      const approve = ctx.turn?.external?.approveSkill;
      const refused = describeMismatch(skill.name, mismatch);
      if (!approve)
        return { ok: false, skill: skill.name, result: { error: refused, changed_since_accepted: true } };
      const verdict = await approve.call(
        ctx.turn!.external,
        {
          skill: `${skill.name} (changed since accepted)`,
          args,
          effects: { effects: [], reasons: [] },
          description: refused,
        },
        { call_id: ctx.call_id },
      );
      if (!verdict.allowed)
        return { ok: false, skill: skill.name, result: { error: verdict.error, denied: true } };
    }
    const runner = ctx.dispatcher.scripts;
    if (!runner) {
      return {
        ok: false,
        skill: skill.name,
        result: { error: 'the Python sandbox is turned off; scripts cannot run' },
      };
    }
    const scripts = listSkillScripts(skill).map((s) => s.path);
    try {
      const r = await runner.run(skill, {
        script: args.script,
        argv: args.args ?? [],
        stdin: args.stdin,
        signal: ctx.scope.signal,
        queue: ctx.scope.session_id,
        inputs: attachmentsOf(ctx.scope.harness),
      });
      return {
        ok: !r.sandbox_error,
        skill: skill.name,
        artifacts: [r.script],
        result: {
          skill: r.skill,
          script: r.script,
          exit_code: r.exit_code,
          stdout: clip(r.stdout),
          stderr: clip(r.stderr),
          files: r.files,
          run_id: r.run_id,
          duration_ms: r.duration_ms,
          ...(r.truncated ? { truncated: r.truncated } : {}),
          ...(r.sandbox_error ? { error: r.sandbox_error.message, error_code: r.sandbox_error.code } : {}),
          ...(r.hint ? { hint: r.hint } : {}),
        },
      };
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      return {
        ok: false,
        skill: skill.name,
        result: {
          error: e.message,
          ...(e.code === 'NOT_FOUND' || e.code === 'INVALID_INPUT' ? { scripts } : {}),
        },
      };
    }
  },
};

/**
 * The chat message's text attachments (the harness key skills receive), as the script's input
 * files: the model names them `inputs/<file name>` in the script's arguments.
 */
function attachmentsOf(
  harness: Readonly<Record<string, unknown>>,
): Array<{ name: string; bytes: Uint8Array }> {
  const list = harness.attachments;
  if (!Array.isArray(list)) return [];
  return list.flatMap((a: { name?: unknown; text?: unknown }) =>
    typeof a?.name === 'string' && typeof a.text === 'string'
      ? [{ name: a.name, bytes: new TextEncoder().encode(a.text) }]
      : [],
  );
}
