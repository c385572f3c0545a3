import { explainMatch } from '../activation/index.js';
import type { CallContext, HandlersFor } from '../contract/channels.js';
import { isAppError } from '../contract/errors.js';
import type { EvalResultView, RunSkillReq, RunSkillRes } from '../contract/skills.js';
import type { Llm } from '../llm/index.js';
import {
  evalContext,
  readSkillEvals,
  resolveOrThrow,
  type SkillCatalog,
  type SkillEval,
} from '../skills/index.js';

/** What the eval slice needs. */
export interface SkillEvalHandlerDeps {
  catalog: () => SkillCatalog;
  run: (req: RunSkillReq, ctx: CallContext) => Promise<RunSkillRes>;
  llm: () => Llm | null;
  now: () => number;
}

const DEFAULT_THRESHOLD = 0.8;

/** Everything a run produced, as one text the assertions look at. */
function outputText(r: RunSkillRes): string {
  return r.results
    .map((a) =>
      [a.text ?? '', a.data == null ? '' : JSON.stringify(a.data), a.stdout ?? ''].filter(Boolean).join('\n'),
    )
    .filter(Boolean)
    .join('\n');
}

/** Ask the model whether `statement` holds of `output`: PASS/FAIL and why. */
async function judge(
  llm: Llm,
  output: string,
  statement: string,
  expected: string | undefined,
  signal?: AbortSignal,
) {
  const r = await llm.generate({
    system:
      'You grade the output of a tool against one statement. Reply with PASS or FAIL on the first line, then one short sentence saying why. Judge only the statement.',
    messages: [
      {
        role: 'user',
        content: `Output:\n<<<\n${output.slice(0, 20_000)}\n>>>\n${expected ? `What a good output looks like: ${expected}\n` : ''}Statement: ${statement}`,
      },
    ],
    maxOutputTokens: 120,
    temperature: 0,
    timeoutMs: 60_000,
    signal,
  });
  const text = r.text.trim();
  return {
    passed: /^\W*pass\b/i.test(text),
    explanation: text.split('\n').slice(1).join(' ').trim() || text,
    usage: r.usage,
  };
}

/**
 * The `skills/eval` channel: run a skill's evals (its bundled `evals/evals.json`). Trigger evals
 * (with `should_trigger`) check the phase-1 rank; output evals run the skill and check its own
 * assertions, the eval's `contains`/`not_contains` checks, and statements judged by the model.
 */
export function createSkillEvalHandlers(deps: SkillEvalHandlerDeps) {
  return {
    'skills/eval': async (req, ctx) => {
      const catalog = deps.catalog();
      const { skill, scope } = resolveOrThrow(catalog, req.name, req.scope);
      const file = readSkillEvals(skill);
      const llm = deps.llm();
      const threshold = req.threshold ?? file.threshold ?? DEFAULT_THRESHOLD;
      const results: EvalResultView[] = [];
      const picked = file.evals.filter((e) =>
        req.only === 'trigger'
          ? e.should_trigger !== undefined
          : req.only === 'output'
            ? e.should_trigger === undefined
            : true,
      );
      for (const e of picked) {
        if (ctx.signal?.aborted) break;
        results.push(
          e.should_trigger !== undefined ? triggerEval(catalog, skill.name, scope, e) : await outputEval(e),
        );
      }
      const passed = results.filter((r) => r.passed).length;
      const passRate = results.length ? passed / results.length : 0;
      return {
        name: skill.name,
        scope,
        model: llm ? `${llm.provider}:${llm.model}` : null,
        threshold,
        total: results.length,
        passed,
        pass_rate: Math.round(passRate * 1000) / 1000,
        ok: results.length > 0 && passRate >= threshold,
        results,
      };

      async function outputEval(e: SkillEval): Promise<EvalResultView> {
        const t0 = deps.now();
        const base = { id: String(e.id), kind: 'output' as const, prompt: e.prompt };
        let run: RunSkillRes;
        try {
          run = await deps.run(
            { name: skill.name, scope, context: evalContext(e), session_id: 'evals' },
            ctx,
          );
        } catch (err) {
          const message = isAppError(err) ? err.message : String(err);
          return {
            ...base,
            passed: false,
            reason: message,
            checks: [],
            duration_ms: Math.round(deps.now() - t0),
            input_tokens: 0,
            output_tokens: 0,
            estimated_cost: 0,
          };
        }
        const output = outputText(run);
        const checks: EvalResultView['checks'] = [];
        for (const a of run.results) {
          if (!a.ok)
            checks.push({
              check: `${a.artifact} ran`,
              passed: false,
              explanation: a.error?.message ?? 'failed',
            });
        }
        let inTokens = run.results.reduce((n, a) => n + (a.input_tokens ?? 0), 0);
        let outTokens = run.results.reduce((n, a) => n + (a.output_tokens ?? 0), 0);
        for (const a of e.assertions ?? []) {
          if (typeof a !== 'string') {
            const has = output.includes(a.value);
            const ok = a.type === 'contains' ? has : !has;
            checks.push({
              check: a.name ?? `${a.type} ${JSON.stringify(a.value).slice(0, 80)}`,
              passed: ok,
              explanation: ok ? 'ok' : `the output ${has ? 'contains' : 'does not contain'} it`,
            });
            continue;
          }
          if (!llm) {
            checks.push({ check: a, passed: null, explanation: 'not judged: no model is configured' });
            continue;
          }
          try {
            const j = await judge(llm, output, a, e.expected_output, ctx.signal);
            inTokens += j.usage.input_tokens;
            outTokens += j.usage.output_tokens;
            checks.push({ check: a, passed: j.passed, explanation: j.explanation });
          } catch (err) {
            checks.push({
              check: a,
              passed: false,
              explanation: `the judge failed: ${isAppError(err) ? err.message : String(err)}`,
            });
          }
        }
        const failed = checks.filter((c) => c.passed === false);
        return {
          ...base,
          passed: run.ok && failed.length === 0,
          reason: failed.length
            ? failed.map((c) => c.check).join('; ')
            : run.ok
              ? null
              : 'an artifact failed',
          checks,
          duration_ms: Math.round(deps.now() - t0),
          input_tokens: inTokens,
          output_tokens: outTokens,
          estimated_cost: run.results.reduce((n, a) => n + (a.estimated_cost ?? 0), 0),
        };
      }
    },
  } satisfies Pick<HandlersFor<'skills'>, 'skills/eval'>;
}

function triggerEval(
  catalog: SkillCatalog,
  name: string,
  scope: 'workspace' | 'account',
  e: SkillEval,
): EvalResultView {
  const ex = explainMatch(catalog, e.prompt, { limit: 5, skill: name, skill_scope: scope });
  const rank = ex.skill?.rank ?? null;
  const fired = rank !== null && rank <= 5;
  const passed = e.should_trigger ? fired : !fired;
  return {
    id: String(e.id),
    kind: 'trigger',
    prompt: e.prompt,
    should_trigger: e.should_trigger,
    rank,
    passed,
    reason: passed
      ? null
      : e.should_trigger
        ? `not in the top 5 (${ex.skill?.reason ?? 'not found'})`
        : `ranked ${rank} (should not activate)`,
    checks: [],
    duration_ms: 0,
    input_tokens: 0,
    output_tokens: 0,
    estimated_cost: 0,
  };
}
