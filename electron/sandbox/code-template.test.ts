import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { literalizeTemplate, pyLiteral, renderCodeTemplate, runCodeTemplate } from './code-template.js';
import { resolveLimits } from './limits.js';
import { SandboxPool } from './pool.js';
import type { SandboxLlm } from './types.js';

const NASTY = [
  "'''",
  '"""',
  "'; import os; os.system('id'); '",
  'line1\nimport os\nos._exit(1)',
  '\\',
  '\\x27',
  '{{ 7*7 }}',
  '{% raw %}',
  '\r\n\t\u0000',
  'ünïcødé ✓ 𝄞',
  '\u2028\u2029',
  '\ud800',
];

describe('pyLiteral', () => {
  it('renders JSON values as Python literals', () => {
    expect(pyLiteral(null)).toBe('None');
    expect(pyLiteral(true)).toBe('True');
    expect(pyLiteral(false)).toBe('False');
    expect(pyLiteral(3)).toBe('3');
    expect(pyLiteral(-2.5)).toBe('(-2.5)');
    expect(pyLiteral(Number.POSITIVE_INFINITY)).toBe('1e999');
    expect(pyLiteral('abc def')).toBe("'abc def'");
    expect(pyLiteral([1, 'a'])).toBe("[1, 'a']");
    expect(pyLiteral({ k: [null] })).toBe("{'k': [None]}");
  });

  it('never emits a raw quote, newline or backslash sequence from a string value', () => {
    for (const v of NASTY) {
      const lit = pyLiteral(v);
      const inner = lit.slice(1, -1);
      expect(inner).not.toMatch(/['"\n\r#(){}]/);
      expect(lit.startsWith("'") && lit.endsWith("'")).toBe(true);
    }
  });

  it('refuses values nested too deeply', () => {
    let v: unknown = 1;
    for (let i = 0; i < 100; i++) v = [v];
    expect(() => pyLiteral(v)).toThrow(/nested too deeply/);
  });
});

describe('renderCodeTemplate', () => {
  it('inserts every {{ }} as a literal and drops the quotes around a lone placeholder', () => {
    expect(literalizeTemplate("x = '{{ a }}'")).toBe('x = {{ (a)|py }}');
    const code = renderCodeTemplate('q = \'{{ t }}\'\nn = {{ n }}\ns = "{{ t }} and {{ t }}"', {
      t: "it's",
      n: 2,
    });
    expect(code).toBe("q = 'it\\x27s'\nn = 2\ns = \"'it\\x27s' and 'it\\x27s'\"");
  });

  it('leaves raw blocks and comments alone, keeps logic working', () => {
    const code = renderCodeTemplate(
      '{% raw %}{{ x }}{% endraw %}{# c #}{% for i in xs %}{{ i }},{% endfor %}{% if m == "a" %}A{% endif %}',
      {
        xs: [1, 2],
        m: 'a',
      },
    );
    expect(code).toBe('{{ x }}1,2,A');
  });

  it('fails on undefined variables and syntax errors', () => {
    expect(() => renderCodeTemplate('{{ missing }}', {})).toThrow(
      expect.objectContaining({ code: 'TEMPLATE_RENDER' }),
    );
    expect(() => renderCodeTemplate('{% for %}', {})).toThrow(
      expect.objectContaining({ code: 'TEMPLATE_SYNTAX' }),
    );
  });
});

describe('runCodeTemplate', () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = new SandboxPool({ cacheDir: join(tmpdir(), 'skilldesk-test-sandbox-cache') });
    await pool.warmup();
  }, 120_000);
  afterAll(async () => {
    await pool?.close();
  });

  it('round-trips hostile values through every quoting context without injection', async () => {
    const template = [
      'import skilldesk',
      'a = {{ v }}',
      "b = '{{ v }}'",
      'c = "{{ v }}"',
      "d = '''<{{ v }}>'''",
      '# note: {{ v }}',
      'e = [{{ v }}, {{ v }}]',
      'skilldesk.submit({"a": a, "b": b, "c": c, "d": d, "e": e})',
    ].join('\n');
    // Run all values in one program per value would cost a worker each; batch them in one.
    const combined = NASTY.map((_, i) =>
      template.replaceAll('{{ v }}', `{{ vs[${i}] }}`).replace('skilldesk.submit(', `out${i} = (`),
    );
    const program = `${combined.join('\n')}\nimport skilldesk\nskilldesk.submit([${NASTY.map((_, i) => `out${i}`).join(', ')}])`;
    const r = await runCodeTemplate(pool, { content: program }, { vs: NASTY });
    expect(r.error).toBeNull();
    const got = r.result as Array<Record<string, unknown>>;
    NASTY.forEach((v, i) => {
      const expected = v === '\ud800' ? '\ufffd' : v; // a lone surrogate cannot cross JSON as UTF-8
      expect(got[i]!.a).toBe(expected);
      expect(got[i]!.b).toBe(expected);
      expect(got[i]!.c).toBe(expected);
      expect(got[i]!.d).toBe(`<'${expected}'>`);
      expect(got[i]!.e).toEqual([expected, expected]);
    });
  });

  it('runs plain Python when metadata says template: false, and applies metadata limits', async () => {
    const r = await runCodeTemplate(
      pool,
      {
        content: 'import skilldesk\nskilldesk.submit("{{ not rendered }}")',
        metadata: { template: false, timeout_ms: 999_999_999 },
      },
      {},
    );
    expect(r.result).toBe('{{ not rendered }}');
    expect(r.limits.timeout_ms).toBe(resolveLimits({ timeout_ms: 1e12 }).timeout_ms);
    await expect(
      runCodeTemplate(pool, { content: 'x', metadata: { timeout_ms: 'soon' } }, {}),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('routes llm_query through the injected provider and counts calls and tokens', async () => {
    const llm: SandboxLlm = {
      complete: async (prompt, opts) => ({
        text: `echo:${prompt}`,
        input_tokens: 3,
        output_tokens: 5,
        model: opts?.model ?? 'm1',
      }),
    };
    const r = await runCodeTemplate(
      pool,
      {
        content:
          'import skilldesk\na = skilldesk.llm_query({{ p }})\nb = skilldesk.llm_query_batched(["x", "y"], model="m2")\nskilldesk.checkpoint({"step": 1})\nskilldesk.submit([a, b])',
      },
      { p: 'hi' },
      { hostDeps: { llm } },
    );
    expect(r.error).toBeNull();
    expect(r.result).toEqual(['echo:hi', ['echo:x', 'echo:y']]);
    expect(r.llm).toEqual({ calls: 3, input_tokens: 9, output_tokens: 15, models: ['m1', 'm2'] });
    expect(r.checkpoints).toEqual([{ step: 1 }]);
  });

  it('without a provider, llm_query raises a clear error in Python', async () => {
    const r = await runCodeTemplate(pool, { content: 'import skilldesk\nskilldesk.llm_query("x")' }, {});
    expect(r.error?.type).toBe('SkillDeskError');
    expect(r.error?.code).toBe('LLM_NOT_CONFIGURED');
    expect(r.error?.message).toMatch(/no model configured/);
  });
});

describe('code template limits', () => {
  it('refuses variables nested too deep or too large, and a rendered program over 4 MiB, naming the limit', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    expect(() => renderCodeTemplate('x = {{ v }}', { v: deep })).toThrow(/context depth/);
    expect(() => renderCodeTemplate('x = 1', { v: 'a'.repeat(17 * 1024 * 1024) })).toThrow(/context size/);
    expect(() =>
      renderCodeTemplate('{% for i in range(5000) %}{{ s }}\n{% endfor %}', { s: 'b'.repeat(1024) }),
    ).toThrow(/rendered code size/);
    expect(renderCodeTemplate('x = {{ v }}', { v: { a: [1, 2] } })).toContain("{'a': [1, 2]}");
  });
});
