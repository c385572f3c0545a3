import { createContext, Script } from 'node:vm';
import { Ajv, type ValidateFunction } from 'ajv';
import { z } from 'zod';
import type { AssertionResultView } from '../contract/skills.js';
import type { Llm } from '../llm/index.js';
import { type Assertion, AssertionSchema } from '../skills/index.js';

/** The outcome of one assertion. `skipped` ones (e.g. semantic without a model) count as not run. */
export type AssertionResult = AssertionResultView;

/** What an artifact produced, as assertions see it. */
export interface AssertedOutput {
  text: string | null;
  data: unknown;
}

const REGEX_BUDGET_MS = 50;
const MAX_CHECKED_CHARS = 200_000;
// One reusable context: creating a V8 context per check costs about a millisecond.
const regexSandbox = createContext({ re: null as RegExp | null, s: '' });
const regexTest = new Script('re.test(s)');
const ajv = new Ajv({ allErrors: false, strict: false, validateSchema: true });
const compiled = new Map<string, ValidateFunction | Error>();

/** Parse `metadata.assertions` (validated at import; re-checked here because stores are shared). */
export function assertionsOf(metadata: Record<string, unknown> | null | undefined): Assertion[] {
  const r = z.array(AssertionSchema).safeParse(metadata?.assertions ?? []);
  return r.success ? r.data : [];
}

/**
 * Run an artifact's assertions against its output: structural (JSON Schema via ajv), length
 * (characters), pattern (regex with a time budget against catastrophic backtracking) and semantic
 * (a yes/no question to the model). Never throws: failures are results.
 */
export async function runAssertions(
  assertions: Assertion[],
  output: AssertedOutput,
  deps: { llm?: Llm | null; signal?: AbortSignal },
): Promise<AssertionResult[]> {
  const text = output.text ?? (output.data === undefined ? '' : JSON.stringify(output.data));
  const results: AssertionResult[] = [];
  for (const a of assertions) {
    const base = {
      type: a.type,
      check: a.check,
      severity: a.severity,
      description: a.description ?? describeAssertion(a),
    };
    try {
      results.push({ ...base, ...(await evaluate(a, text, output, deps)) });
    } catch (e) {
      results.push({ ...base, passed: false, explanation: `could not evaluate: ${(e as Error).message}` });
    }
  }
  return results;
}

async function evaluate(
  a: Assertion,
  text: string,
  output: AssertedOutput,
  deps: { llm?: Llm | null; signal?: AbortSignal },
): Promise<Pick<AssertionResult, 'passed' | 'skipped' | 'explanation'>> {
  switch (a.type) {
    case 'structural': {
      let value = output.data;
      if (output.text !== null) {
        try {
          value = JSON.parse(output.text);
        } catch {
          return { passed: false, explanation: 'the output is not JSON' };
        }
      }
      const validate = compile(a.schema);
      if (validate instanceof Error)
        return { passed: false, explanation: `invalid JSON Schema: ${validate.message}` };
      if (validate(value)) return { passed: true };
      const err = validate.errors?.[0];
      return {
        passed: false,
        explanation: `${err?.instancePath || '(root)'} ${err?.message ?? 'does not match the schema'}`,
      };
    }
    case 'length': {
      const n = [...text].length;
      if (a.min !== undefined && n < a.min)
        return { passed: false, explanation: `${n} characters, fewer than ${a.min}` };
      if (a.max !== undefined && n > a.max)
        return { passed: false, explanation: `${n} characters, more than ${a.max}` };
      return { passed: true };
    }
    case 'pattern': {
      const re = new RegExp(a.pattern, a.flags ?? '');
      let found: boolean;
      try {
        // vm's timeout interrupts a runaway backtracking regex (V8 checks interrupts while matching).
        regexSandbox.re = re;
        regexSandbox.s = text.slice(0, MAX_CHECKED_CHARS);
        found = regexTest.runInContext(regexSandbox, { timeout: REGEX_BUDGET_MS }) as boolean;
      } catch {
        regexSandbox.s = '';
        return {
          passed: false,
          explanation: `the pattern took longer than ${REGEX_BUDGET_MS} ms (catastrophic backtracking?)`,
        };
      }
      const want = a.check === 'regex_match';
      return found === want
        ? { passed: true }
        : { passed: false, explanation: want ? `no match for /${a.pattern}/` : `matches /${a.pattern}/` };
    }
    case 'semantic': {
      if (!deps.llm) return { passed: false, skipped: true, explanation: 'no model configured to judge it' };
      const r = await deps.llm.generate({
        system: 'You evaluate an output against a question. Reply with a single word: yes or no.',
        messages: [
          { role: 'user', content: `${a.prompt}\n\nOutput to evaluate:\n"""\n${text.slice(0, 20_000)}\n"""` },
        ],
        maxOutputTokens: 5,
        temperature: 0,
        signal: deps.signal,
      });
      const answer = (
        r.text
          .trim()
          .toLowerCase()
          .match(/[a-z]+/)?.[0] ?? ''
      ).trim();
      return answer === a.expected.toLowerCase()
        ? { passed: true }
        : {
            passed: false,
            explanation: `the judge answered "${r.text.trim().slice(0, 40)}", expected "${a.expected}"`,
          };
    }
  }
}

function compile(schema: Record<string, unknown>): ValidateFunction | Error {
  const key = JSON.stringify(schema);
  let v = compiled.get(key);
  if (!v) {
    try {
      v = ajv.compile(schema);
    } catch (e) {
      v = e as Error;
    }
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, v);
  }
  return v;
}

function describeAssertion(a: Assertion): string {
  switch (a.type) {
    case 'structural':
      return 'output matches a JSON Schema';
    case 'length':
      return `output is ${a.min ?? 0}–${a.max ?? '∞'} characters`;
    case 'pattern':
      return `output ${a.check === 'regex_match' ? 'matches' : 'does not match'} /${a.pattern}/`;
    case 'semantic':
      return a.prompt.slice(0, 80);
  }
}
