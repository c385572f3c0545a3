import { closeSync, openSync, readSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { findProgram, KNOWN_PROGRAMS } from './programs.js';

/**
 * Which files a native run may execute, held by the kernel (Landlock's EXECUTE right) on top of
 * the namespaces: the interpreter, the dynamic linker, a few shell tools that scripts and the
 * programs' own launch scripts need, the stand-ins of refused programs, and the programs granted
 * to the skill. Everything else under the host's `/usr` stays readable (libraries, fonts, data)
 * but cannot be started: a program nobody granted fails with EACCES instead of running unasked.
 *
 * Where the kernel has no Landlock (before 5.13, or turned off) the run keeps the stand-ins over
 * the programs SkillDesk knows, as before; `docs/scripts.md` says so.
 */

/**
 * Tools a script or a program's launch script (LibreOffice's `soffice` is a `sh` script) starts
 * as a matter of course. They read and print text inside the sandbox: nothing here reaches past
 * what the run may already do from Python.
 */
export const BASE_PROGRAMS = [
  'sh',
  'dash',
  'bash',
  'env',
  'uname',
  'dirname',
  'basename',
  'readlink',
  'realpath',
  'sed',
  'grep',
  'awk',
  'mawk',
  'cat',
  'ls',
  'expr',
  'test',
  '[',
  'true',
  'false',
  'echo',
  'printf',
  'pwd',
  'id',
  'head',
  'tail',
  'tr',
  'cut',
  'sort',
  'wc',
  'mkdir',
  'rm',
  'cp',
  'mv',
  'sleep',
  'which',
  'file',
  // ctypes.util.find_library asks it for the library cache.
  'ldconfig',
] as const;

/** The dynamic linkers an ELF program names as its interpreter (the kernel opens it to execute). */
const DYNAMIC_LINKERS = [
  '/lib64/ld-linux-x86-64.so.2',
  '/lib/ld-linux-aarch64.so.1',
  '/lib/ld-linux-armhf.so.3',
  '/lib/ld-linux.so.2',
  '/lib/ld-musl-x86_64.so.1',
  '/lib/ld-musl-aarch64.so.1',
];

/** The folders programs are started from by name; a program living elsewhere brings its folder. */
const PATH_DIRS = new Set(['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin', '/usr/local/sbin']);

const real = (p: string): string | null => {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
};

let base: string[] | null = null;

/** The interpreter-independent part of every run's list (host paths, links resolved), found once. */
export function baseExecutables(): string[] {
  if (base) return base;
  const out = new Set<string>();
  for (const l of DYNAMIC_LINKERS) {
    const r = real(l);
    if (r) out.add(r);
  }
  for (const name of BASE_PROGRAMS) {
    const found = findProgram(name, '/usr/bin:/bin:/usr/sbin:/sbin');
    const r = found && real(found);
    if (r) out.add(r);
  }
  base = [...out].sort();
  return base;
}

/** The interpreter a script names on its `#!` line (through `env`), or null for a binary. */
export function shebangInterpreter(file: string): string | null {
  let head: string;
  try {
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(256);
      const n = readSync(fd, buf, 0, buf.length, 0);
      head = buf.subarray(0, n).toString('latin1');
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
  if (!head.startsWith('#!')) return null;
  const words = head.slice(2).split('\n')[0]!.trim().split(/\s+/);
  const first = words[0];
  if (!first) return null;
  if (first.endsWith('/env')) {
    const name = words.slice(1).find((w) => !w.startsWith('-'));
    return name ? findProgram(name, '/usr/bin:/bin:/usr/local/bin') : null;
  }
  return first;
}

/**
 * What a granted program needs to run, as host paths: its file (links resolved), the interpreter
 * of a script, and, for a program installed outside the PATH folders (LibreOffice's
 * `/usr/lib/libreoffice/program/soffice`, which starts `oosplash` and `soffice.bin` beside it),
 * its own folder.
 */
export function programExecutables(path: string): string[] {
  const file = real(path);
  if (!file) return [];
  const out = new Set([file]);
  const interp = shebangInterpreter(file);
  const ri = interp && real(interp);
  if (ri) out.add(ri);
  const dir = dirname(file);
  if (!PATH_DIRS.has(dir)) out.add(dir);
  return [...out];
}

let known: { names: string[]; executables: string[] } | null = null;

/** The programs of `KNOWN_PROGRAMS` installed here and what each needs to execute, found once. */
function knownPrograms(): { names: string[]; executables: string[] } {
  if (known) return known;
  const names: string[] = [];
  const out = new Set<string>();
  for (const name of Object.keys(KNOWN_PROGRAMS)) {
    const found = findProgram(name);
    if (!found) continue;
    names.push(name);
    for (const p of programExecutables(found)) out.add(p);
  }
  known = { names, executables: [...out].sort() };
  return known;
}

/** The names of {@link knownProgramExecutables}' programs installed here (for the model to be told). */
export function knownProgramNames(): string[] {
  return knownPrograms().names;
}

/**
 * What Full Python's `run_python` may start besides Python and the base tools: the programs
 * SkillDesk knows skills to use (LibreOffice, Poppler, qpdf, Ghostscript, Tesseract, Pandoc,
 * FFmpeg, ImageMagick, Node) where installed. A chat has no per-program grants, and converting a
 * document is what a user asks its code interpreter for; compilers, version control, network
 * clients and the rest of the host's programs stay out.
 */
export function knownProgramExecutables(): string[] {
  return knownPrograms().executables;
}

/**
 * The Python that runs before the script: restricts execution to `paths` (paths inside the
 * sandbox; a folder allows what is beneath it) with Landlock, then leaves the rest of the prelude
 * to run. No Landlock in the kernel: nothing is restricted (the stand-ins still cover the programs
 * SkillDesk knows). Landlock there but refusing the restriction: the run stops rather than run
 * with less confinement than it reported.
 */
export function landlockPrelude(paths: readonly string[]): string {
  return `def _skilldesk_landlock(paths):
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        class Ruleset(ctypes.Structure):
            _fields_ = [("handled_access_fs", ctypes.c_uint64)]
        class Beneath(ctypes.Structure):
            _pack_ = 1
            _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]
        attr = Ruleset(1)
        rs = libc.syscall(444, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0))
    except Exception:
        return
    if rs < 0:
        return
    for p in paths:
        try:
            fd = os.open(p, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
        rule = Beneath(1, fd)
        libc.syscall(445, ctypes.c_int(rs), ctypes.c_int(1), ctypes.byref(rule), ctypes.c_uint32(0))
        os.close(fd)
    libc.prctl(38, 1, 0, 0, 0)
    if libc.syscall(446, ctypes.c_int(rs), ctypes.c_uint32(0)) != 0:
        sys.stderr.write("skilldesk: the sandbox could not restrict which programs may run\\n")
        os._exit(125)
    os.close(rs)
_skilldesk_landlock(${JSON.stringify(paths)})
del _skilldesk_landlock`;
}
