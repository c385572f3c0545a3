import { basename } from 'node:path';
import type { BuiltinToolArgs } from '../contract/builtin-tools.js';
import type { GrantedFolder } from '../contract/chat-files.js';
import { AppError } from '../contract/errors.js';
import { type ScriptInput, scriptInputName } from '../sandbox/index.js';
import {
  fileInGrantedFolder,
  inputNames,
  listSkillScripts,
  type SkillScriptRunner,
} from '../scripts/index.js';
import { describeMismatch, pinMismatch } from '../sources/index.js';
import { isFileHash } from '../store/index.js';
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
    const runner = ctx.runners.scripts;
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
        inputs: [
          ...attachmentsOf(ctx.scope.harness, runner),
          ...givenFiles(args.files ?? [], runner, ctx.scope.folders ?? []),
          // Granted folders as `--folder` gives them: bound read-only at inputs/<name>/.
          ...(ctx.scope.folders ?? []).map((f) => ({ name: f.name, path: f.path, folder: true })),
        ],
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
 * The chat message's attachments (the harness key skills receive) as the script's input files, each
 * the file itself: the bytes kept when it was attached (`file`, any type), else its text or image
 * kept now. The model names them `inputs/<file name>` in the script's arguments.
 */
function attachmentsOf(harness: Readonly<Record<string, unknown>>, runner: SkillScriptRunner): ScriptInput[] {
  const list = harness.attachments;
  if (!Array.isArray(list)) return [];
  const found = list.flatMap((a: { name?: unknown; text?: unknown; data?: unknown; file?: unknown }) => {
    if (typeof a?.name !== 'string') return [];
    const kept = isFileHash(a.file) ? runner.files.pathOf(a.file) : null;
    if (kept) return [{ name: a.name, path: kept }];
    const bytes =
      typeof a.data === 'string'
        ? Buffer.from(a.data, 'base64')
        : typeof a.text === 'string'
          ? Buffer.from(a.text, 'utf8')
          : null;
    if (!bytes) return [];
    const { sha256 } = runner.files.put(bytes);
    return [{ name: a.name, path: runner.files.pathOf(sha256)! }];
  });
  const names = inputNames(found.map((f) => f.name));
  return found.map((f, i) => ({ name: names[i]!, path: f.path }));
}

/**
 * The files the call names (`files`): a URI of a file the app holds, or the bytes, which are kept in
 * the file store first so either runtime takes them by path. A name that is not a plain file name,
 * or a URI the app does not serve, is the caller's error (INVALID_INPUT / NOT_FOUND).
 */
function givenFiles(
  files: NonNullable<BuiltinToolArgs<'run_script'>['files']>,
  runner: SkillScriptRunner,
  granted: readonly GrantedFolder[],
): ScriptInput[] {
  return files.map((f) => {
    if ('path' in f) {
      // A path of this machine is taken only inside a folder the user granted, links resolved.
      const real = fileInGrantedFolder(f.path, granted);
      return { name: scriptInputName(f.name ?? basename(real)), path: real };
    }
    const name = scriptInputName(f.name);
    if ('data_base64' in f) {
      const { sha256 } = runner.files.put(Buffer.from(f.data_base64, 'base64'));
      return { name, path: runner.files.pathOf(sha256)! };
    }
    const stored = /^skilldesk:\/\/file\/([0-9a-f]{64})$/.exec(f.uri);
    if (stored) {
      const path = runner.files.pathOf(stored[1]!);
      if (!path) throw new AppError('NOT_FOUND', `no stored file ${f.uri}`);
      return { name, path };
    }
    const output = /^skilldesk:\/\/script-output\/([^/]+)\/(.+)$/.exec(f.uri);
    if (output) {
      let rel: string;
      try {
        rel = output[2]!.split('/').map(decodeURIComponent).join('/');
      } catch {
        throw new AppError('INVALID_INPUT', `${f.uri} is not a valid script output URI`);
      }
      const { bytes } = runner.readOutput(output[1]!, rel);
      const { sha256 } = runner.files.put(bytes);
      return { name, path: runner.files.pathOf(sha256)! };
    }
    throw new AppError(
      'INVALID_INPUT',
      `${f.uri} is not a file the app serves: give skilldesk://script-output/RUN_ID/PATH, skilldesk://file/SHA256, or the bytes as data_base64`,
    );
  });
}
