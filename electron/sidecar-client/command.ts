import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How to start the sidecar. */
export interface SidecarCommand {
  command: string;
  args: string[];
  cwd?: string;
  /** `binary`: the PyInstaller build; `venv`: sidecar/.venv's Python; `custom`: given by the caller. */
  kind: 'binary' | 'venv' | 'custom';
}

/** Where to look for the sidecar. */
export interface ResolveSidecarOptions {
  /** The folder holding `sidecar/` (default: the nearest folder above this module with a package.json). */
  appRoot?: string;
  /** Electron's `process.resourcesPath` in a packaged app (the binary ships as an extra resource). */
  resourcesPath?: string;
  platform?: NodeJS.Platform;
}

/** The PyInstaller one-dir build's folder and executable name. */
export const SIDECAR_BINARY_NAME = 'skilldesk-sidecar';

/** The nearest folder at or above `start` that holds a package.json (the app root). */
export function findAppRoot(start = dirname(fileURLToPath(import.meta.url))): string {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'sidecar'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return resolve(start, '..', '..');
    dir = parent;
  }
}

/** Path of sidecar/.venv's interpreter under `appRoot`. */
export function venvPython(appRoot: string, platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32'
    ? join(appRoot, 'sidecar', '.venv', 'Scripts', 'python.exe')
    : join(appRoot, 'sidecar', '.venv', 'bin', 'python');
}

/**
 * The command that starts the sidecar: the PyInstaller binary when present (packaged resources
 * first, then `sidecar/dist/`), else `sidecar/.venv`'s Python; undefined when neither exists.
 */
export function resolveSidecarCommand(opts: ResolveSidecarOptions = {}): SidecarCommand | undefined {
  const platform = opts.platform ?? process.platform;
  const appRoot = opts.appRoot ?? findAppRoot();
  const exe = platform === 'win32' ? `${SIDECAR_BINARY_NAME}.exe` : SIDECAR_BINARY_NAME;
  const binaries = [
    ...(opts.resourcesPath ? [join(opts.resourcesPath, SIDECAR_BINARY_NAME, exe)] : []),
    join(appRoot, 'sidecar', 'dist', SIDECAR_BINARY_NAME, exe),
  ];
  for (const bin of binaries) {
    if (existsSync(bin)) return { command: bin, args: [], kind: 'binary' };
  }
  const python = venvPython(appRoot, platform);
  if (existsSync(python) && existsSync(join(appRoot, 'sidecar', 'skilldesk_sidecar', '__main__.py'))) {
    // -s: no user site-packages; the package is found from cwd.
    return {
      command: python,
      args: ['-s', '-m', 'skilldesk_sidecar'],
      cwd: join(appRoot, 'sidecar'),
      kind: 'venv',
    };
  }
  return undefined;
}

/** Variables passed through to the sidecar; nothing else (no keys, no PYTHONPATH) crosses. */
const PASSED_THROUGH = [
  'PATH',
  'HOME',
  'USERPROFILE',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  'TEMP',
  'TMP',
  'SYSTEMROOT',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
];

/** Never passed, whatever the allow-list says: anything that looks like a credential. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH/i;

/**
 * The sidecar's environment: an allow-list of the parent's plain variables plus the sidecar's own
 * settings (DSPy cache in `dataDir`, LiteLLM's bundled cost map, offline hubs). No API keys.
 */
export function sidecarEnv(base: NodeJS.ProcessEnv, dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of PASSED_THROUGH) {
    const value = base[name];
    if (value !== undefined && !SECRET_NAME.test(name)) env[name] = value;
  }
  return {
    ...env,
    DSPY_CACHEDIR: join(dataDir, 'dspy-cache'),
    LITELLM_LOCAL_MODEL_COST_MAP: 'True',
    HF_HUB_OFFLINE: '1',
    PYTHONNOUSERSITE: '1',
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONIOENCODING: 'utf-8',
    PYTHONUNBUFFERED: '1',
  };
}

/** Default data folder for the sidecar's caches when the host gives none. */
export function defaultSidecarDataDir(): string {
  return join(tmpdir(), 'skilldesk-sidecar');
}
