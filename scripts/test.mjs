#!/usr/bin/env node
// `npm test`: every suite, offline. vitest (core, renderer, e2e in Chromium when present), then the
// sidecar's pytest when its environment exists. Ends with one "N passed, N failed" line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const extra = process.argv.slice(2);
mkdirSync(join(root, 'test-results'), { recursive: true });
const report = join(root, 'test-results', 'vitest.json');

/** True in CI (`CI` set to anything but "", "0" or "false"). */
function isCi(env) {
  const v = env.CI?.trim().toLowerCase();
  return v !== undefined && v !== '' && v !== '0' && v !== 'false';
}

let passed = 0;
let failed = 0;
let skipped = 0;
let exitCode = 0;

const vitest = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules', 'vitest', 'vitest.mjs'),
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...extra,
  ],
  { cwd: root, stdio: 'inherit' },
);
if (vitest.status !== 0) exitCode = 1;
if (existsSync(report)) {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  console.log(
    `vitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests ?? 0} skipped`,
  );
  // A test file whose worker died (a crash, a signal) has no failed test, only tests that never
  // finished: name it, and count its unfinished tests as failed so the last line tells the truth.
  for (const file of r.testResults ?? []) {
    const unfinished = (file.assertionResults ?? []).filter(
      (t) =>
        t.status !== 'passed' &&
        t.status !== 'failed' &&
        t.status !== 'skipped' &&
        t.status !== 'pending' &&
        t.status !== 'todo',
    );
    if (file.status === 'failed' || unfinished.length > 0) {
      const rel = file.name.startsWith(root) ? file.name.slice(root.length + 1) : file.name;
      console.log(
        `vitest: not passed: ${rel} (${file.status}${file.message ? `: ${file.message.split('\n')[0]}` : ''})`,
      );
      failed += unfinished.length;
    }
  }
  if (vitest.status !== 0 && r.numFailedTests === 0) {
    console.log(
      'vitest: exited non-zero with no failed test (an unhandled error or a worker that died; see above)',
    );
    failed += 1;
  }
} else if (vitest.status !== 0) {
  failed += 1;
}

const python =
  process.platform === 'win32'
    ? join(root, 'sidecar', '.venv', 'Scripts', 'python.exe')
    : join(root, 'sidecar', '.venv', 'bin', 'python');
if (extra.length > 0) {
  // A filtered run (npm test -- path) is for vitest only.
} else if (existsSync(python) && existsSync(join(root, 'sidecar', 'tests'))) {
  const junit = join(root, 'test-results', 'pytest.xml');
  const py = spawnSync(python, ['-m', 'pytest', 'sidecar', '-q', `--junitxml=${junit}`], {
    cwd: root,
    stdio: 'inherit',
  });
  if (py.status !== 0 && py.status !== 5) exitCode = 1;
  if (existsSync(junit)) {
    const xml = readFileSync(junit, 'utf8');
    const attr = (name) => Number(new RegExp(`<testsuite[^>]*\\b${name}="(\\d+)"`).exec(xml)?.[1] ?? 0);
    const total = attr('tests');
    const f = attr('failures') + attr('errors');
    const s = attr('skipped');
    passed += total - f - s;
    failed += f;
    skipped += s;
  } else if (py.status !== 0) failed += 1;
} else if (isCi(process.env)) {
  // In CI a missing environment is a failure: a green run must mean the sidecar's tests ran.
  console.log('pytest: FAILED — sidecar/.venv is missing (CI=true, so this fails instead of skipping)');
  failed += 1;
  exitCode = 1;
} else {
  console.log(
    'pytest: skipped (sidecar/.venv is missing; `npm install` creates it when Python 3.11+ is present)',
  );
}

console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(exitCode || (failed > 0 ? 1 : 0));
