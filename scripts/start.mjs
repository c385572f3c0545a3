#!/usr/bin/env node
// `npm start`: the desktop app when the Electron binary is installed; otherwise web mode (the same
// UI in your browser over a token-guarded loopback server). Extra arguments are passed through,
// e.g. `npm start -- --workspace ~/notes`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

/** The Electron executable, or null when the binary was never downloaded. */
function electronBinary() {
  const pathTxt = join(root, 'node_modules', 'electron', 'path.txt');
  if (!existsSync(pathTxt)) return null;
  const bin = join(root, 'node_modules', 'electron', 'dist', readFileSync(pathTxt, 'utf8').trim());
  return existsSync(bin) ? bin : null;
}

function run(cmd, cmdArgs) {
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const electron = electronBinary();
if (electron) {
  run(process.execPath, [
    join(root, 'node_modules', 'vite', 'bin', 'vite.js'),
    'build',
    '--logLevel',
    'warn',
  ]);
  run(process.execPath, [join(root, 'scripts', 'build-electron.mjs'), '--dev']);
  const child = spawn(electron, [root, ...args], { cwd: root, stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log(
    'Electron is not installed here (no binary under node_modules/electron), so SkillDesk starts in web mode instead: the same app in your browser.',
  );
  const child = spawn(process.execPath, [join(root, 'bin', 'skilldesk.mjs'), ...args, 'serve', '--open'], {
    cwd: root,
    stdio: 'inherit',
  });
  const stop = (sig) => child.kill(sig);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  child.on('exit', (code) => process.exit(code ?? 0));
}
