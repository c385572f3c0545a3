/**
 * The checks a Composer draft must pass before it is offered: the package schema, its evals file,
 * every template's syntax, and a dry run of every artifact on every output eval's input (prompt
 * templates rendered, code templates run in the sandbox; nothing sent to the model).
 */
import type { DraftIssueView } from '../contract/composer.js';
import { isAppError } from '../contract/errors.js';
import { evalContext, validatePackage } from '../skills/index.js';
import { PromptEngine } from '../templates/index.js';
import { type Draft, draftEvals } from './draft.js';

/** The outcome of a dry run of one code template. */
export interface CodeDryRun {
  ok: boolean;
  error?: { type: string; message: string } | null;
}

/** Runs a code_template artifact on some variables in the sandbox (absent: code is not dry-run). */
export type CodeDryRunner = (
  artifact: { content: string; metadata?: Record<string, unknown> | null },
  variables: Record<string, unknown>,
  signal?: AbortSignal,
) => Promise<CodeDryRun>;

/** What validation needs. */
export interface ValidateDeps {
  engine?: PromptEngine;
  runCode?: CodeDryRunner;
  signal?: AbortSignal;
}

/** Fewest evals a composed skill carries. */
export const MIN_EVALS = 3;

const message = (e: unknown) => (isAppError(e) ? e.message : e instanceof Error ? e.message : String(e));

/** Every problem of a draft; an empty list means it may be offered for acceptance. */
export async function validateDraft(draft: Draft, deps: ValidateDeps = {}): Promise<DraftIssueView[]> {
  const engine = deps.engine ?? new PromptEngine();
  const issues: DraftIssueView[] = [];
  const schema = validatePackage(draft);
  if (!schema.ok) {
    for (const i of schema.issues) issues.push({ stage: 'schema', path: i.path, message: i.message });
  }
  const evals = draftEvals(draft);
  if (!evals.ok) issues.push(...evals.issues);
  else {
    const outputs = evals.value.evals.filter((e) => e.should_trigger === undefined);
    if (evals.value.evals.length < MIN_EVALS)
      issues.push({
        stage: 'evals',
        path: 'evals',
        message: `give at least ${MIN_EVALS} evals (there are ${evals.value.evals.length})`,
      });
    if (outputs.length === 0)
      issues.push({
        stage: 'evals',
        path: 'evals',
        message: 'give at least one output eval (one without should_trigger) to test the skill on',
      });
  }
  const artifacts = Array.isArray(draft.artifacts)
    ? (draft.artifacts as Array<Record<string, unknown>>).filter(
        (a) => a && typeof a === 'object' && typeof a.content === 'string' && typeof a.name === 'string',
      )
    : [];
  const templates = artifacts.filter((a) => a.kind === 'prompt_template');
  const syntaxOk = new Set<Record<string, unknown>>();
  for (const a of templates) {
    const r = engine.validate(a.content as string, a.name as string);
    if (r.ok) syntaxOk.add(a);
    else issues.push({ stage: 'template', path: a.name as string, message: r.message });
  }
  if (!evals.ok) return issues;
  for (const e of evals.value.evals) {
    if (e.should_trigger !== undefined) continue;
    const vars = evalContext(e);
    for (const a of syntaxOk) {
      try {
        engine.renderStr(a.content as string, vars, { name: a.name as string, undefined: 'semi_strict' });
      } catch (err) {
        issues.push({ stage: 'dry_run', path: `${a.name} (eval ${e.id})`, message: message(err) });
      }
    }
    if (!deps.runCode) continue;
    for (const a of artifacts.filter((x) => x.kind === 'code_template')) {
      if (deps.signal?.aborted) return issues;
      try {
        const r = await deps.runCode(
          { content: a.content as string, metadata: (a.metadata as Record<string, unknown> | null) ?? null },
          vars,
          deps.signal,
        );
        if (!r.ok)
          issues.push({
            stage: 'dry_run',
            path: `${a.name} (eval ${e.id})`,
            message: r.error ? `${r.error.type}: ${r.error.message}` : 'the code did not finish',
          });
      } catch (err) {
        issues.push({ stage: 'dry_run', path: `${a.name} (eval ${e.id})`, message: message(err) });
      }
    }
  }
  return issues;
}
