import { describe, expect, it } from 'vitest';
import { consistencyCheckerExample, VALID_STATE_BLOB } from '../test-support/index.js';
import { formatPath, validatePackage } from './package-schema.js';

const paths = (raw: unknown) => {
  const r = validatePackage(raw);
  return r.ok ? [] : r.issues.map((i) => i.path);
};

describe('the package schema', () => {
  it('refuses the design example as printed, naming artifacts[3].state_blob', () => {
    const r = validatePackage(consistencyCheckerExample());
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.issues).toHaveLength(1);
      expect(r.issues[0]!.path).toBe('artifacts[3].state_blob');
      expect(r.issues[0]!.message).toMatch(/base64/);
    }
  });

  it('accepts the design example with a valid blob, or with none', () => {
    const withBlob = consistencyCheckerExample();
    (withBlob.artifacts as Array<Record<string, unknown>>)[3]!.state_blob = VALID_STATE_BLOB;
    const r = validatePackage(withBlob);
    expect(r.ok && r.value.artifacts.map((a) => a.kind)).toEqual([
      'description',
      'prompt_template',
      'code_template',
      'dspy_module',
    ]);
    const without = consistencyCheckerExample();
    delete (without.artifacts as Array<Record<string, unknown>>)[3]!.state_blob;
    expect(validatePackage(without).ok).toBe(true);
  });

  it('names the JSON path of a bad artifact kind', () => {
    const p = consistencyCheckerExample();
    const arts = p.artifacts as Array<Record<string, unknown>>;
    arts[3]!.state_blob = VALID_STATE_BLOB;
    arts[2]!.kind = 'shell_script';
    const r = validatePackage(p);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.issues[0]!.path).toBe('artifacts[2].kind');
      expect(r.issues[0]!.message).toContain('"code_template"');
    }
  });

  it('requires a dspy_module fallback naming a prompt_template of the same skill', () => {
    const p = consistencyCheckerExample();
    const arts = p.artifacts as Array<Record<string, unknown>>;
    arts[3]!.state_blob = VALID_STATE_BLOB;
    arts[3]!.metadata = {};
    expect(paths(p)).toEqual(['artifacts[3].metadata.fallback_artifact']);
    arts[3]!.metadata = { fallback_artifact: 'Overview' };
    expect(paths(p)).toEqual(['artifacts[3].metadata.fallback_artifact']);
    arts[3]!.metadata = { fallback_artifact: 'Check Prompt' };
    expect(paths(p)).toEqual([]);
  });

  it('rejects unknown keys, missing fields, duplicate artifacts and blobs on other kinds', () => {
    expect(
      paths({
        name: 'x',
        description: 'd',
        artifacts: [{ kind: 'description', name: 'a', content: '' }],
        colour: 1,
      }),
    ).toEqual(['(package)']);
    expect(paths({ description: 'd', artifacts: [] })).toEqual(['name', 'artifacts']);
    expect(
      paths({
        name: 'x',
        description: 'd',
        artifacts: [
          { kind: 'description', name: 'a', content: '' },
          { kind: 'example', name: 'a', content: '' },
        ],
      }),
    ).toEqual(['artifacts[1].name']);
    expect(
      paths({
        name: 'x',
        description: 'd',
        artifacts: [{ kind: 'description', name: 'a', content: '', state_blob: VALID_STATE_BLOB }],
      }),
    ).toEqual(['artifacts[0].state_blob']);
  });

  it('checks assertion metadata', () => {
    const pkg = (assertions: unknown) => ({
      name: 'x',
      description: 'd',
      artifacts: [{ kind: 'prompt_template', name: 'p', content: 'hi', metadata: { assertions } }],
    });
    expect(paths(pkg([{ type: 'length', min: 1, max: 10 }]))).toEqual([]);
    expect(paths(pkg([{ type: 'pattern', pattern: '(' }]))).toEqual([
      'artifacts[0].metadata.assertions[0].pattern',
    ]);
    expect(paths(pkg([{ type: 'telepathy' }]))).toEqual(['artifacts[0].metadata.assertions[0].type']);
  });

  it('formats paths the way users read them', () => {
    expect(formatPath(['artifacts', 2, 'kind'])).toBe('artifacts[2].kind');
    expect(formatPath([])).toBe('(package)');
  });
});
