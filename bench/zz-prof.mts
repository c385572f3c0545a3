import { SandboxPool, runSkillScript } from '../electron/sandbox/index.js';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
const dir = '/work/wt/files38/electron/tools/fixtures/skill-creator';
const files: any[] = [];
const walk = (abs: string, rel: string) => { for (const e of readdirSync(abs, { withFileTypes: true })) { const r = rel ? `${rel}/${e.name}` : e.name; if (e.isDirectory()) walk(join(abs, e.name), r); else files.push({ path: r, bytes: new Uint8Array(readFileSync(join(abs, e.name))) }); } };
walk(dir, '');
const pool = new SandboxPool({ cacheDir: '/tmp/skilldesk-test-sandbox-cache' });
let t = performance.now(); await pool.warmup(); console.log('warmup', Math.round(performance.now() - t));
const origRun = pool.run.bind(pool);
(pool as any).run = async (code: string, o: any) => { const r = await origRun(code, o); console.log('  timing', JSON.stringify(r.timing), 'dur', Math.round(r.duration_ms)); return r; };
for (let i = 0; i < 15; i++) {
  t = performance.now();
  const r = await runSkillScript({ pool, files, script: 'scripts/aggregate_benchmark.py', argv: ['--help'] });
  console.log(i, r.exit_code, Math.round(performance.now() - t), r.stdout.length, r.stderr.slice(-300), JSON.stringify(r.sandbox_error));
}
console.log(pool.stats().workerResets, pool.stats().workersBooted);
await pool.close();
