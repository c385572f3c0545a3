import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, it } from 'vitest';
import type { ChatMessage } from '../chat/index.js';
import { main } from '../cli/main.js';
import { createHost, type Host, type HostDeps, type Logger } from '../host.js';
import {
  createLlm,
  type Llm,
  type LoopbackProvider,
  type LoopbackScriptInput,
  NO_KEYS,
  startLoopbackProvider,
} from '../llm/index.js';

const made: string[] = [];

/** A fresh temporary folder, removed after the test. */
export function tempDir(prefix = 'skilldesk-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

const hosts: Host[] = [];
const loopbacks: LoopbackProvider[] = [];

afterEach(async () => {
  // Hosts first: they hold the stores (and sandbox or sidecar processes) inside the temp folders.
  await Promise.all(hosts.splice(0).map((h) => h.dispose()));
  await Promise.all(loopbacks.splice(0).map((p) => p.close()));
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A logger that keeps quiet (tests assert on replies, not on logs). */
export const quietLogger: Logger = { info: () => {}, error: () => {} };

/**
 * A host for one test, disposed in `afterEach` (even when the test fails). Defaults: a fresh temp
 * home, no environment, `mode: 'test'`, a quiet logger.
 */
export function testHost(deps: Partial<HostDeps> = {}): Host {
  const host = createHost({ home: tempDir(), env: {}, mode: 'test', logger: quietLogger, ...deps });
  hosts.push(host);
  return host;
}

/** Options of {@link loopbackHost}. */
export interface LoopbackHostOptions {
  /** The provider the model is reached as (default `openai-compatible`, which needs no key). */
  provider?: 'openai' | 'openai-compatible';
  /** The model's name (default `loopback-gpt`). */
  model?: string;
  /** More of the host's dependencies (its home, environment…). */
  deps?: Partial<HostDeps>;
}

/**
 * The loopback model server answering `turns` in order and a test host whose model it is, both
 * closed after the test: the setup a dozen core tests each wrote by hand.
 */
export async function loopbackHost(
  turns: LoopbackScriptInput,
  opts: LoopbackHostOptions = {},
): Promise<{ host: Host; provider: LoopbackProvider; llm: Llm; ctx: { transport: 'in-process' } }> {
  const provider = await startLoopbackProvider({ script: turns });
  loopbacks.push(provider);
  const kind = opts.provider ?? 'openai-compatible';
  const llm = createLlm(
    { provider: kind, baseUrl: provider.url, model: opts.model ?? 'loopback-gpt' },
    { keys: kind === 'openai' ? { get: () => 'sk-test' } : NO_KEYS },
  );
  const host = testHost({ llm: () => llm, ...opts.deps });
  return { host, provider, llm, ctx: { transport: 'in-process' } };
}

/** The project root (where package.json is). */
export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `test-artifacts/<sub>` under the project (gitignored), created: where screenshots and logs go. */
export function testArtifactsDir(sub = ''): string {
  const dir = join(PROJECT_ROOT, 'test-artifacts', sub);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Decide whether tests needing a prerequisite (Chromium, the sidecar's Python) skip: call it where
 * tests are collected and pass the result to `describe.skipIf`. `missing` says why it is missing,
 * or is falsy when present. Locally a missing one skips with a warning; in CI (`CI=true`) a test
 * that fails is registered in their place, so the run cannot pass on tests that never ran.
 */
export function skipWithout(missing: string | null | undefined | false, suite: string): boolean {
  if (!missing) return false;
  if (isCi()) {
    it(`${suite}: needs its prerequisite in CI`, () => {
      throw new Error(
        `${suite}: ${missing}. In CI (CI=true) a missing prerequisite fails instead of skipping.`,
      );
    });
  } else {
    console.warn(`${suite}: skipped — ${missing}`);
  }
  return true;
}

/** True in CI (`CI` set to anything but "", "0" or "false"). */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.CI?.trim().toLowerCase();
  return v !== undefined && v !== '' && v !== '0' && v !== 'false';
}

/**
 * Agent Skills folders (a SKILL.md each, "Do it well." as the body) in a new temporary folder,
 * one per `[name, description]`; their paths, in order.
 */
export function skillFolders(skills: ReadonlyArray<readonly [string, string]>): string[] {
  const root = tempDir();
  return skills.map(([name, description]) => {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'SKILL.md'),
      `---\nname: ${name}\ndescription: ${description}\n---\n\nDo it well.\n`,
    );
    return dir;
  });
}

/** Run the CLI in-process; returns exit code and captured output. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}, stdin = '') {
  let stdout = '';
  let stderr = '';
  const input = new PassThrough();
  input.end(stdin);
  const code = await main(
    args,
    {
      stdout: (s) => {
        stdout += s;
      },
      stderr: (s) => {
        stderr += s;
      },
      stdin: input,
      isTty: false,
    },
    { PATH: process.env.PATH, ...env },
  );
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

/** sha256 of every file under a folder (path → hash), to prove nothing was written. */
export function snapshotDir(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d).sort()) {
      const abs = join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(abs).isDirectory()) walk(abs, r);
      else out[r] = createHash('sha256').update(readFileSync(abs)).digest('hex');
    }
  };
  walk(dir, '');
  return out;
}

/** A valid base64 DSPy state blob. */
export const VALID_STATE_BLOB = Buffer.from(
  JSON.stringify({
    predict: { demos: [], signature: { instructions: 'Find contradictions.', fields: [] }, lm: null },
  }),
).toString('base64');

/** The design's "Consistency Checker" example package, exactly as printed (placeholder blob). */
export function consistencyCheckerExample(): Record<string, unknown> {
  return {
    id: '550e8400-e29b-41d4-a716-446655440000',
    name: 'Consistency Checker',
    description: 'Analyzes workspace content for contradictions and inconsistencies across pages.',
    version: '1.0.0',
    tags: ['analysis', 'worldbuilding', 'quality'],
    source: 'system',
    intent_patterns: ['check consistency', 'find contradictions', 'verify facts'],
    trigger_phrases: ['are there any contradictions', 'check for inconsistencies'],
    artifacts: [
      {
        kind: 'description',
        name: 'Overview',
        ordinal: 0,
        content:
          'The Consistency Checker skill analyzes content across your workspace to identify contradictions, inconsistencies, and conflicting statements. It is most useful for worldbuilding projects with many interrelated entities (characters, locations, timelines).',
      },
      {
        kind: 'prompt_template',
        name: 'Check Prompt',
        ordinal: 1,
        content:
          'Given the following claims about "{{ entity_name }}":\n\n{% for claim in claims %}Claim {{ loop.index }} (from [[{{ claim.page_name }}]]): {{ claim.text }}\n{% endfor %}\n\nIdentify any contradictions between these claims. For each contradiction, cite the specific claims by number and explain the conflict.',
      },
      {
        kind: 'code_template',
        name: 'Cross-Reference Script',
        ordinal: 2,
        content:
          "import inklings\n\npages = inklings.search('{{ entity_type }}')\nclaims = []\nfor page in pages:\n content = inklings.get_page(page['slug'])\n extracted = inklings.llm_query(f'Extract factual claims about {entity_type} entities from: {content}')\n claims.extend(extracted)\ninklings.submit({'entity_type': '{{ entity_type }}', 'claims': claims})",
      },
      {
        kind: 'dspy_module',
        name: 'DSPy Checker',
        ordinal: 3,
        content: '{"template_id": "chain_of_thought", "signature": "claims -> contradictions"}',
        state_blob: '<base64-encoded JSON from DSPy module.save(path, save_program=False)>',
        metadata: { fallback_artifact: 'Check Prompt' },
      },
    ],
  };
}

/** A small valid package named `name`. */
export function smallPackage(
  name: string,
  version = '1.0.0',
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    description: `${name}: a test skill`,
    version,
    source: 'user',
    artifacts: [{ kind: 'prompt_template', name: 'Main', ordinal: 0, content: 'Hello {{ who }}' }],
    ...extra,
  };
}

/** A complete message of `role` saying `content`, as `ChatStore.addMessage` takes it. */
export function chatMessage(
  session_id: string,
  role: 'user' | 'assistant',
  content: string,
): Omit<ChatMessage, 'seq' | 'id' | 'created_at' | 'parent_id' | 'attachments'> {
  return {
    session_id,
    role,
    content,
    status: 'complete',
    tool_calls: null,
    trace_ids: null,
    skills: null,
    model_id: null,
    input_tokens: null,
    output_tokens: null,
    estimated_cost: null,
    error: null,
  };
}
export { minimalPdf } from './pdf.js';
export { NARROW_PDF, scriptedProvider, triggerEvalSkill } from './trigger-evals.js';
