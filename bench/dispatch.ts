// The dispatcher's own overhead per prompt_template execution: variant choice, MiniJinja render,
// trace row insert + update and assertions, with an instant in-process model (provider excluded).
// Target: p95 under 2 ms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRunScope, createSkillRuntime } from '../electron/dispatch/index.js';
import type { Llm } from '../electron/llm/index.js';
import { loadSeedPackages, packageToRows } from '../electron/skills/index.js';
import { openStore } from '../electron/store/stores.js';
import { TraceStore } from '../electron/traces/index.js';
import { type BenchOptions, type BenchResult, percentile, r3, sample } from './lib.js';

const instant: Llm = {
  provider: 'openai',
  model: 'bench',
  generate: async () => ({
    text: 'Gist: fine.\n- one\n- two',
    tool_calls: [],
    usage: { input_tokens: 100, output_tokens: 10 },
    estimated_cost: 0,
    finish_reason: 'stop',
    provider: 'openai',
    model: 'bench',
  }),
  stream: async function* () {},
};

/** Run the dispatcher benchmark. */
export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const home = mkdtempSync(join(tmpdir(), 'skilldesk-bench-dispatch-'));
  const store = openStore('account', home)!;
  const pkg = loadSeedPackages().find((p) => p.name === 'Summarize')!;
  const rows = packageToRows(pkg);
  store.repo.createSkill(rows.skill);
  for (const a of rows.artifacts) store.repo.addArtifact(a);
  const skill = store.repo.getSkill(rows.skill.id)!;
  const runtime = createSkillRuntime({
    traces: new TraceStore(store.db),
    home,
    sandbox: false,
    sidecar: false,
  });
  const n = opts.quick ? 300 : 3000;
  const text = 'We will ship on Friday. '.repeat(40);
  const samples = await sample(n, () =>
    runtime.dispatcher.runSkill(createRunScope({ session_id: 'bench', llm: instant }), {
      skill: { id: skill.id, name: skill.name, scope: 'account', version: skill.version },
      artifacts: skill.artifacts,
      variables: { text },
      artifact: 'Summary Prompt',
    }),
  );
  await runtime.dispose();
  store.close();
  rmSync(home, { recursive: true, force: true });
  return [
    {
      bench: 'dispatch.prompt_template_overhead',
      unit: 'ms',
      p50: r3(percentile(samples, 50)),
      p95: r3(percentile(samples, 95)),
      p99: r3(percentile(samples, 99)),
      n,
      target_p95_ms: 2,
    },
  ];
}
