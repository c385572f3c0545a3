import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../contract/errors.js';
import { runCli, tempDir } from '../test-support/index.js';
import { minijinjaMemoryBytes, RECYCLE_AFTER_BYTES, withMemoryMaximum } from './minijinja-instance.js';
import { PromptEngine } from './prompt-engine.js';
import { checkTemplate, OFF_THREAD_FROM_CHARS } from './template-check.js';
import { templateVariables } from './template-variables.js';

function thrown(fn: () => unknown): { code: string; message: string; details?: Record<string, unknown> } {
  try {
    fn();
  } catch (e) {
    if (isAppError(e)) return { code: e.code, message: e.message, details: e.details };
    throw e;
  }
  throw new Error('did not throw');
}

describe('templateVariables (one pass over the tags)', () => {
  it('finds what a template reads, in order, and not what it defines', () => {
    expect(templateVariables('Hi {{ user.name }} and {{ x | upper }}')).toEqual(['user', 'x']);
    expect(templateVariables('{% if formal %}Dear {{ title }}{% else %}Hi {{ first }}{% endif %}')).toEqual([
      'formal',
      'title',
      'first',
    ]);
    expect(templateVariables('{% for k, v in pairs %}{{ k }}={{ v }}{{ loop.index }}{% endfor %}')).toEqual([
      'pairs',
    ]);
    expect(templateVariables('{% set n = 3 %}{{ n }} {{ "lit" }}')).toEqual([]);
  });

  it('reads filter and call arguments, skips attributes, tests, keyword names, comments and raw blocks', () => {
    expect(templateVariables('{{ a | default(b) | replace("x", c) }}{{ f(key=val) }}')).toEqual([
      'a',
      'b',
      'c',
      'f',
      'val',
    ]);
    expect(templateVariables('{% if x is defined and y is not none %}{{ z.w[k] }}{% endif %}')).toEqual([
      'x',
      'y',
      'z',
      'k',
    ]);
    expect(
      templateVariables('{# {{ hidden }} #}{% raw %}{{ literal }}{% endraw %}{{ "}}" ~ shown }}'),
    ).toEqual(['shown']);
    expect(
      templateVariables(
        '{% macro m(p, q=dflt) %}{{ p }}{{ q }}{{ outer }}{% endmacro %}{{ m(arg) }}{% with w = src %}{{ w }}{% endwith %}',
      ),
    ).toEqual(['dflt', 'outer', 'arg', 'src']);
    expect(
      templateVariables(
        '{% set ns = namespace(n=0) %}{% set ns.n = ns.n + step %}{% set block %}{{ inner }}{% endset %}{{ block }}',
      ),
    ).toEqual(['step', 'inner']);
    expect(templateVariables('{%- if a -%}{{- b -}}{%- endif -%}')).toEqual(['a', 'b']);
  });

  it('agrees with the engine: rendering with exactly the variables found succeeds in strict mode', () => {
    const engine = new PromptEngine();
    const templates = [
      'Given "{{ entity_name }}":\n{% for claim in claims %}{{ loop.index }} [[{{ claim.page_name }}]]: {{ claim.text }}\n{% endfor %}',
      '{% if mode == "long" %}{{ text | truncate(limit) }}{% else %}{{ text }}{% endif %}',
      '{% for row in rows if row.ok %}{{ row.v | default(fallback) }}{% endfor %}',
    ];
    for (const t of templates) {
      const ctx = Object.fromEntries(
        templateVariables(t).map((v) => [v, v === 'claims' || v === 'rows' ? [] : v === 'limit' ? 5 : 'v']),
      );
      expect(() => engine.renderStr(t, ctx, { undefined: 'strict' })).not.toThrow();
    }
  });
});

describe('template limits', () => {
  it('refuses a rendered output over the byte limit, naming the limit', () => {
    const engine = new PromptEngine({ limits: { maxOutputBytes: 1000 } });
    const err = thrown(() =>
      engine.renderStr('{% for i in range(200) %}{{ s }}{% endfor %}', { s: 'abcdefghij' }),
    );
    expect(err.code).toBe('TOO_LARGE');
    expect(err.message).toMatch(/limit: rendered output/);
    expect(err.details).toMatchObject({ limit: 'rendered_output', max: 1000, size: 2000 });
    expect(engine.renderStr('{{ s }}', { s: 'ok' }, { maxOutputBytes: 10 })).toBe('ok');
  });

  it('stops a render that would grow to gigabytes at the memory cap, and the next render works', () => {
    const engine = new PromptEngine();
    const err = thrown(() =>
      engine.renderStr(
        '{% for i in range(100000) %}{% for j in range(100000) %}{{ big }}{% endfor %}{% endfor %}',
        {
          big: 'x'.repeat(10_000),
        },
      ),
    );
    expect(err.code).toBe('TOO_LARGE');
    expect(err.message).toMatch(/limit: rendered output/);
    expect(thrown(() => engine.renderStr('{{ "x" * 2000000000 }}', {})).code).toBe('TOO_LARGE');
    expect(engine.renderStr('Hi {{ who }}', { who: 'Ann' })).toBe('Hi Ann');
  });

  it('replaces the renderer after a large render, so its memory is given back', () => {
    const engine = new PromptEngine({ limits: { maxOutputBytes: 64 * 1024 * 1024 } });
    engine.renderStr('{{ x }}', { x: 1 });
    expect(minijinjaMemoryBytes()).toBeGreaterThan(0);
    expect(minijinjaMemoryBytes()).toBeLessThan(RECYCLE_AFTER_BYTES);
    const out = engine.renderStr('{% for i in range(4000) %}{{ big }}{% endfor %}', {
      big: 'y'.repeat(10_000),
    });
    expect(out.length).toBe(40_000_000);
    expect(minijinjaMemoryBytes()).toBe(0);
    expect(engine.renderStr('{{ 1 + 1 }}', {})).toBe('2');
  });

  it('refuses a context nested too deep or too large before rendering, naming the limit', () => {
    const engine = new PromptEngine();
    const deep: Record<string, unknown> = {};
    let node = deep;
    for (let i = 0; i < 10_000; i++) {
      node.a = {};
      node = node.a as Record<string, unknown>;
    }
    const err = thrown(() => engine.renderStr('{{ a }}', deep));
    expect(err).toMatchObject({ code: 'TOO_LARGE', details: { limit: 'context_depth', max: 64 } });
    expect(err.message).toMatch(/context depth 64/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(thrown(() => engine.renderStr('{{ 1 }}', cyclic)).details).toMatchObject({
      limit: 'context_depth',
    });
    const small = new PromptEngine({ limits: { maxContextBytes: 1000 } });
    expect(thrown(() => small.renderStr('{{ t }}', { t: 'x'.repeat(2000) })).details).toMatchObject({
      limit: 'context_size',
    });
  });

  it('the CLI exits 2 on a context nested 10,000 deep, with the limit in the message', async () => {
    const dir = tempDir();
    const tpl = join(dir, 't.j2');
    writeFileSync(tpl, '{{ a }}');
    const ctx = join(dir, 'ctx.json');
    writeFileSync(ctx, `{"a": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
    const r = await runCli(['--home', dir, 'render', tpl, '--context', `@${ctx}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/limit: context depth/);
    expect(r.stderr).not.toMatch(/Maximum call stack/);
  });
});

describe('render --max-output', () => {
  it('refuses an output over the limit given (exit 2) and renders within it', async () => {
    const dir = tempDir();
    const tpl = join(dir, 't.j2');
    writeFileSync(tpl, '{% for i in range(100) %}{{ s }}{% endfor %}');
    const ctx = JSON.stringify({ s: 'abcdefghij' });
    const over = await runCli(['--home', dir, 'render', tpl, '--context', ctx, '--max-output', '500']);
    expect(over.code).toBe(2);
    expect(over.stderr).toMatch(/1000 bytes, over the limit of 500 bytes \(limit: rendered output\)/);
    const within = await runCli(['--home', dir, 'render', tpl, '--context', ctx, '--max-output', '1000']);
    expect(within.code, within.stderr).toBe(0);
    expect((await runCli(['--home', dir, 'render', tpl, '--max-output', 'lots'])).code).toBe(2);
  });
});

describe('checkTemplate', () => {
  it('checks a large template on a worker thread with the same answers as in place', async () => {
    const engine = new PromptEngine();
    const line = '{% if show %}{{ user.name | default(anon) }}{% endif %}\n';
    const big = line.repeat(Math.ceil(OFF_THREAD_FROM_CHARS / line.length) + 10);
    expect(await checkTemplate(engine, big, 'big.j2')).toEqual({
      ok: true,
      variables: ['show', 'user', 'anon'],
    });
    const broken = `${big}{% if %}`;
    const r = await checkTemplate(engine, broken, 'big.j2');
    const inPlace = engine.validate(broken, 'big.j2');
    expect(r).toMatchObject({
      ok: false,
      line: inPlace.ok ? -1 : inPlace.line,
      message: inPlace.ok ? '' : inPlace.message,
    });
  });

  it('caps the WebAssembly memory of the instance it builds', () => {
    const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 5, 3, 1, 0, 18]);
    const capped = withMemoryMaximum(bytes, 4096);
    expect([...capped.slice(8)]).toEqual([5, 5, 1, 1, 18, 0x80, 0x20]);
  });
});
