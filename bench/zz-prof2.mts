import { SandboxPool } from '../electron/sandbox/index.js';
const pool = new SandboxPool({ cacheDir: '/tmp/skilldesk-test-sandbox-cache' });
await pool.warmup();
const code = `
import time, sys
t=time.perf_counter()
import argparse
t1=time.perf_counter()
import json, math
t2=time.perf_counter()
p = argparse.ArgumentParser(description="x")
p.add_argument("--a")
s = p.format_help()
t3=time.perf_counter()
print(round((t1-t)*1000,1), round((t2-t1)*1000,1), round((t3-t2)*1000,1), 'argparse' in sys.modules)
`;
for (let i = 0; i < 6; i++) {
  const t = performance.now();
  const r = await pool.run(code);
  console.log(i, Math.round(performance.now() - t), r.stdout.trim(), r.timing.worker_run, r.error?.message);
}
await pool.close();
