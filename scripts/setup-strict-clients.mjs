#!/usr/bin/env node
// The strict MCP clients `mcp serve` is tested against, none of them written here: fastmcp's skills
// client (PyPI) in its own virtual environment and the MCP Inspector's CLI (npm), each pinned, both
// under `.tools/` (git-ignored). `.ci/run` runs this; a developer runs it once to run those tests
// locally (without it they are skipped outside CI and fail in CI).
//
//   node scripts/setup-strict-clients.mjs          install what is missing
//   node scripts/setup-strict-clients.mjs --check  exit 1 unless both are installed
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const FASTMCP_VERSION = '4.2.3';
export const INSPECTOR_VERSION = '2.12.0';
const tools = join(root, '.tools');
const venv = join(tools, 'fastmcp');
const python = join(venv, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
const inspectorDir = join(tools, 'inspector');
const inspector = join(inspectorDir, 'node_modules', '@modelcontextprotocol', 'inspector', 'package.json');

const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    console.error(`setup-strict-clients: ${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
    process.exit(1);
  }
};

const haveFastmcp = () =>
  existsSync(python) &&
  spawnSync(python, [
    '-c',
    `import importlib.metadata as m; assert m.version('fastmcp') == '${FASTMCP_VERSION}'`,
  ]).status === 0;
const haveInspector = () => existsSync(inspector);

if (process.argv.includes('--check')) {
  const missing = [
    !haveFastmcp() && `fastmcp ${FASTMCP_VERSION}`,
    !haveInspector() && `MCP Inspector ${INSPECTOR_VERSION}`,
  ].filter(Boolean);
  if (missing.length) {
    console.error(`setup-strict-clients: missing ${missing.join(' and ')}`);
    process.exit(1);
  }
  process.exit(0);
}

mkdirSync(tools, { recursive: true });
if (!haveFastmcp()) {
  run(process.env.SKILLDESK_PYTHON ?? 'python3', ['-m', 'venv', venv]);
  run(python, [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--disable-pip-version-check',
    `fastmcp==${FASTMCP_VERSION}`,
  ]);
}
if (!haveInspector()) {
  mkdirSync(inspectorDir, { recursive: true });
  // Its own package.json so npm installs here, not into the project.
  writeFileSync(join(inspectorDir, 'package.json'), '{"name":"skilldesk-strict-clients","private":true}\n');
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`,
    ],
    {
      cwd: inspectorDir,
    },
  );
}
console.log(`strict MCP clients ready: fastmcp ${FASTMCP_VERSION}, MCP Inspector ${INSPECTOR_VERSION}`);
