// The evals rows over skill-creator's evals.json: a read and write back keeps what the form does
// not show, edits land in the field they came from, and text that is not evals is never rewritten.
import { describe, expect, it } from 'vitest';
import { newEvalRow, parseEvalRows, writeEvalRows } from './eval-rows.js';

const file = {
  skill_name: 'haiku',
  threshold: 0.5,
  future_field: { keep: true },
  evals: [
    {
      id: 7,
      name: 'rain',
      prompt: 'a haiku about rain',
      expected_output: 'three lines',
      expectations: ['It has three lines'],
      context: { input: 'rain' },
      grader: 'custom',
    },
    {
      id: 'mixed',
      prompt: 'a haiku about snow',
      assertions: [{ type: 'contains', value: 'snow', note: 'x' }, 'Mentions winter'],
    },
    { id: 9, prompt: 'translate this', should_trigger: false },
  ],
};

describe('evals rows', () => {
  it('reads rows and writes the same file back when nothing was edited', () => {
    const p = parseEvalRows(JSON.stringify(file));
    if (!p.ok) throw new Error(p.error);
    expect(p.issues).toEqual([]);
    expect(p.value.rows.map((r) => [r.kind, r.prompt, r.checks])).toEqual([
      ['output', 'a haiku about rain', ['It has three lines']],
      ['output', 'a haiku about snow', ['Mentions winter']],
      ['trigger-no', 'translate this', []],
    ]);
    expect(JSON.parse(writeEvalRows(p.value))).toEqual(file);
  });

  it('writes edits into the fields they came from and keeps every other field', () => {
    const p = parseEvalRows(JSON.stringify(file));
    if (!p.ok) throw new Error(p.error);
    const [a, b, c] = p.value.rows;
    const rows = [
      { ...a!, checks: ['It has three lines', 'It is about rain'], files: ['evals/files/rain.txt'] },
      { ...b!, checks: ['Mentions cold'], kind: 'trigger-yes' as const },
      { ...c!, kind: 'output' as const, expected_output: 'Bonjour' },
      newEvalRow(p.value.rows),
    ];
    const out = JSON.parse(writeEvalRows({ ...p.value, rows }));
    expect(out.future_field).toEqual({ keep: true });
    expect(out.threshold).toBe(0.5);
    expect(out.evals[0]).toEqual({
      ...file.evals[0],
      expectations: ['It has three lines', 'It is about rain'],
      files: ['evals/files/rain.txt'],
    });
    // The string checks change; the contains check (and its unknown field) stays.
    expect(out.evals[1]).toEqual({
      id: 'mixed',
      prompt: 'a haiku about snow',
      assertions: ['Mentions cold', { type: 'contains', value: 'snow', note: 'x' }],
      should_trigger: true,
    });
    expect(out.evals[2]).toEqual({ id: 9, prompt: 'translate this', expected_output: 'Bonjour' });
    expect(out.evals[3]).toEqual({ id: 10, prompt: '', assertions: [''] });
    // What a run would refuse is said per eval.
    const again = parseEvalRows(JSON.stringify(out));
    expect(again.ok && again.issues.some((x) => x.startsWith('eval 4: prompt'))).toBe(true);
  });

  it('refuses to read text that is not evals, so the caller shows it instead of rewriting it', () => {
    const bad = parseEvalRows('{"evals": [ {"id": 1, "prompt": "x"}, ]');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/^evals\/evals\.json is not JSON: /);
    const shape = parseEvalRows('[{"query": "x", "should_trigger": true}]');
    expect(shape.ok).toBe(false);
    expect(parseEvalRows('')).toEqual({ ok: true, value: { rows: [], top: {} }, issues: [] });
  });
});
