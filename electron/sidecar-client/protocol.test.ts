import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../contract/errors.js';
import { skipWithout } from '../test-support/index.js';
import { formatProgress, parseDspyModuleContent, parseTrainingJsonl } from './artifact.js';
import { resolveSidecarCommand, sidecarEnv } from './command.js';
import {
  LmRequestSchema,
  RESULT_SCHEMAS,
  SIDECAR_CALLBACKS,
  SIDECAR_EVENTS,
  SIDECAR_METHODS,
  SidecarLineSchema,
} from './protocol.js';
import { PROTOCOL_DOCUMENT_PATH, sidecarProtocolJson } from './protocol-document.js';
import { APP_ROOT, VENV_PYTHON } from './test-lm.js';

/** Any Python that can import the (DSPy-free) protocol module. */
function python(): string | undefined {
  for (const candidate of [VENV_PYTHON, 'python3', 'python']) {
    if (candidate === VENV_PYTHON && !existsSync(candidate)) continue;
    const r = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
    if (r.status === 0) return candidate;
  }
  return undefined;
}

const PYTHON = python();
const noPython = skipWithout(
  !PYTHON && 'no Python found (sidecar/.venv, python3 or python)',
  'sidecar protocol (Python side)',
);

describe('sidecar protocol', () => {
  it.skipIf(noPython)('lists the same methods, callbacks and events as the Python side', () => {
    const r = spawnSync(PYTHON!, ['-m', 'skilldesk_sidecar', '--describe'], {
      cwd: join(APP_ROOT, 'sidecar'),
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      protocol: 1,
      methods: [...SIDECAR_METHODS],
      callbacks: [...SIDECAR_CALLBACKS],
      events: [...SIDECAR_EVENTS],
    });
    expect(Object.keys(RESULT_SCHEMAS)).toEqual([...SIDECAR_METHODS]);
  });

  it('accepts well-formed sidecar lines and rejects the rest', () => {
    expect(SidecarLineSchema.safeParse({ type: 'res', id: 'n1', result: { pong: true } }).success).toBe(true);
    expect(
      SidecarLineSchema.safeParse({ type: 'req', id: 'p1', method: 'lm.complete', parent: 'n1', params: {} })
        .success,
    ).toBe(true);
    expect(
      SidecarLineSchema.safeParse({ type: 'req', id: 'p1', method: 'fs.read', parent: 'n1' }).success,
    ).toBe(false);
    expect(
      SidecarLineSchema.safeParse({ type: 'event', parent: 'n1', event: 'shell', data: {} }).success,
    ).toBe(false);
    expect(SidecarLineSchema.safeParse({ type: 'res', id: 'x'.repeat(65), result: 1 }).success).toBe(false);
  });

  it('checks lm.complete params strictly', () => {
    const ok = { messages: [{ role: 'user', content: 'hi' }], temperature: 0, max_tokens: 10 };
    expect(LmRequestSchema.safeParse(ok).success).toBe(true);
    expect(LmRequestSchema.safeParse({ ...ok, api_key: 'x' }).success).toBe(false);
    expect(LmRequestSchema.safeParse({ messages: [] }).success).toBe(false);
    expect(LmRequestSchema.safeParse({ messages: [{ role: 'tool', content: 'x' }] }).success).toBe(false);
  });
});

describe('the protocol document both sides load', () => {
  it('matches the zod schemas (SKILLDESK_UPDATE_PROTOCOL=1 rewrites it)', () => {
    const file = join(APP_ROOT, PROTOCOL_DOCUMENT_PATH);
    const expected = sidecarProtocolJson();
    if (process.env.SKILLDESK_UPDATE_PROTOCOL === '1') writeFileSync(file, expected);
    expect(readFileSync(file, 'utf8')).toBe(expected);
    const doc = JSON.parse(expected);
    expect(doc.methods).toEqual([...SIDECAR_METHODS]);
    expect(Object.keys(doc.shapes)).toEqual(
      expect.arrayContaining(['execute.params', 'execute.result', 'lm.complete.params', 'progress.data']),
    );
  });

  it.skipIf(noPython)('is what the Python side checks its shapes and error codes against', () => {
    const r = spawnSync(
      PYTHON!,
      [
        '-c',
        'import json; from skilldesk_sidecar.shapes import SHAPES, ERROR_CODES; print(json.dumps({"shapes": sorted(SHAPES), "codes": list(ERROR_CODES)}))',
      ],
      { cwd: join(APP_ROOT, 'sidecar'), encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    const py = JSON.parse(r.stdout) as { shapes: string[]; codes: string[] };
    const doc = JSON.parse(sidecarProtocolJson()) as {
      error_codes: string[];
      shapes: Record<string, { type?: string }>;
    };
    const objects = Object.entries(doc.shapes)
      .filter(([, s]) => s.type === 'object')
      .map(([name]) => name)
      .sort();
    expect(py.shapes).toEqual(objects);
    expect(doc.error_codes).toEqual(expect.arrayContaining(py.codes));
  });
});

describe('sidecar environment and command', () => {
  it('passes no keys and no Python path to the sidecar', () => {
    const env = sidecarEnv(
      {
        PATH: '/bin',
        HOME: '/home/u',
        OPENAI_API_KEY: 'sk-1',
        ANTHROPIC_API_KEY: 'sk-2',
        GITHUB_TOKEN: 'gh',
        AWS_SECRET_ACCESS_KEY: 'aws',
        PYTHONPATH: '/evil',
        PYTHONSTARTUP: '/evil.py',
      },
      '/data',
    );
    expect(env.PATH).toBe('/bin');
    expect(env.DSPY_CACHEDIR).toBe(join('/data', 'dspy-cache'));
    expect(env.LITELLM_LOCAL_MODEL_COST_MAP).toBe('True');
    const leaked = Object.keys(env).filter(
      (k) => /KEY|TOKEN|SECRET/.test(k) || k === 'PYTHONPATH' || k === 'PYTHONSTARTUP',
    );
    expect(leaked).toEqual([]);
  });

  it('finds nothing in an empty app folder and prefers a packaged binary', () => {
    expect(resolveSidecarCommand({ appRoot: '/nonexistent' })).toBeUndefined();
    const venv = resolveSidecarCommand({ appRoot: APP_ROOT });
    if (venv) expect(['venv', 'binary']).toContain(venv.kind);
  });
});

describe('artifact helpers', () => {
  it('parses dspy_module content', () => {
    expect(
      parseDspyModuleContent('{"template_id": "chain_of_thought", "signature": "claims -> contradictions"}'),
    ).toEqual({
      template_id: 'chain_of_thought',
      signature: 'claims -> contradictions',
    });
    expect(() => parseDspyModuleContent('{"template_id": 1}')).toThrow(AppError);
    expect(() => parseDspyModuleContent('nope')).toThrow(/not JSON/);
  });

  it('parses JSON-lines training sets and names the bad line', () => {
    expect(parseTrainingJsonl('{"a":1}\n\n# note\n{"a":2}\n')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(() => parseTrainingJsonl('{"a":1}\n[1]\n', 'train.jsonl')).toThrow(/train.jsonl:2/);
    expect(() => parseTrainingJsonl('\n')).toThrow(/no examples/);
  });

  it('formats progress', () => {
    expect(formatProgress({ phase: 'compile', done: 1, total: 2 }, 4)).toBe('compile  1/2 [##--]');
  });
});
