import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../contract/errors.js';

/**
 * What a skill's scripts import, read by Python's own parser (`ast`, which never runs the code) and
 * mapped to the distributions that provide it — for skills that ship no `requirements.txt`
 * (Anthropic's document skills). The result is a proposal shown to the user; nothing is installed
 * from it unasked.
 */

/** One import the scripts make that is neither the standard library nor a file of the skill. */
export interface ProposedPackage {
  /** The top-level module imported (`docx`). */
  module: string;
  /** The distribution to install (`python-docx`). */
  distribution: string;
  /** Where the name came from: SkillDesk's table, pipreqs' mapping, or the import itself. */
  source: 'skilldesk' | 'pipreqs' | 'same-name';
  /** The scripts that import it. */
  files: string[];
}

/** A program a skill's scripts start (`subprocess.run(["soffice", …])`), and the scripts that do. */
export interface ProgramUse {
  program: string;
  files: string[];
}

/** What reading a skill's scripts found. */
export interface ImportScan {
  packages: ProposedPackage[];
  /** Programs the scripts start by name, outside Python (LibreOffice, Poppler…). */
  programs: ProgramUse[];
  /** Scripts Python could not parse, with the reason (they are skipped, not guessed at). */
  unreadable: Array<{ path: string; error: string }>;
}

/**
 * Import names whose distribution has another name and that pipreqs' table lacks or gets wrong for
 * the skills people install (document, image and data libraries). Checked before pipreqs'.
 */
export const SKILLDESK_IMPORT_MAP: Readonly<Record<string, string>> = {
  docx: 'python-docx',
  pptx: 'python-pptx',
  fitz: 'PyMuPDF',
  pymupdf: 'PyMuPDF',
  cv2: 'opencv-python-headless',
  PIL: 'Pillow',
  yaml: 'PyYAML',
  bs4: 'beautifulsoup4',
  sklearn: 'scikit-learn',
  dateutil: 'python-dateutil',
  dotenv: 'python-dotenv',
  magic: 'python-magic',
  pdfminer: 'pdfminer.six',
  pdfplumber: 'pdfplumber',
  pypdf: 'pypdf',
  pypdfium2: 'pypdfium2',
  openpyxl: 'openpyxl',
  pandas: 'pandas',
  numpy: 'numpy',
  lxml: 'lxml',
  reportlab: 'reportlab',
  imageio: 'imageio',
  markitdown: 'markitdown',
  defusedxml: 'defusedxml',
  google: 'protobuf',
};

let pipreqs: Map<string, string> | null = null;

/** pipreqs' `import:distribution` table (vendored, Apache-2.0; see import-map/README.md). */
function pipreqsMap(): Map<string, string> {
  if (pipreqs) return pipreqs;
  const file = join(dirname(fileURLToPath(import.meta.url)), 'import-map', 'pipreqs-mapping.txt');
  pipreqs = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) pipreqs.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  return pipreqs;
}

/** The distribution that provides `module`, and which table said so. */
export function distributionFor(module: string): { distribution: string; source: ProposedPackage['source'] } {
  const own = SKILLDESK_IMPORT_MAP[module];
  if (own) return { distribution: own, source: 'skilldesk' };
  const theirs = pipreqsMap().get(module);
  if (theirs) return { distribution: theirs, source: 'pipreqs' };
  return { distribution: module, source: 'same-name' };
}

// Reads {path: source} on stdin; prints, per file, the top-level absolute imports and the programs
// it starts, or the parse error. Relative imports and names the skill provides itself are left to
// the caller. A program is the first word of a command given to subprocess/os calls as a literal,
// as a list literal (also through a variable assigned one, or a sum such as ["timeout", t] + cmd),
// or asked of shutil.which: what the document skills do. A command built any other way is missed.
const SCANNER = `
import ast, json, sys
CALLS = {"run", "call", "check_call", "check_output", "Popen", "system", "popen", "which",
         "getoutput", "getstatusoutput", "execvp", "execlp", "execv", "execl", "spawnlp", "spawnvp",
         "create_subprocess_exec", "create_subprocess_shell"}
def word(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        parts = node.value.split()
        return parts[0] if parts else None
    return None
files = json.load(sys.stdin)
out = {"stdlib": sorted(sys.stdlib_module_names), "files": {}}
for path, source in files.items():
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError) as e:
        out["files"][path] = {"error": f"{type(e).__name__}: {e}"}
        continue
    names = set()
    lists = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.Tuple, ast.BinOp)):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    lists.setdefault(t.id, []).append(node.value)
    def first(node, depth=0):
        if depth > 4:
            return set()
        if isinstance(node, (ast.List, ast.Tuple)):
            w = word(node.elts[0]) if node.elts else None
            return {w} if w else set()
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return first(node.left, depth + 1)
        if isinstance(node, ast.Name):
            found = set()
            for v in lists.get(node.id, []):
                found |= first(v, depth + 1)
            return found
        w = word(node)
        return {w} if w else set()
    programs = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            if name in CALLS:
                programs |= first(node.args[0])
    out["files"][path] = {"imports": sorted(names), "programs": sorted(programs)}
json.dump(out, sys.stdout)
`;

/**
 * The third-party imports of a skill's Python files (`{path: source}`), each mapped to a
 * distribution. The standard library (`sys.stdlib_module_names` of the Python given) and modules
 * the skill ships itself (`scripts/helpers.py` → `helpers`, a folder with `__init__.py`) are left
 * out. `python` runs only `ast.parse` with `-I` (no site, no environment), bounded in time.
 */
export async function scanImports(python: string, files: Record<string, string>): Promise<ImportScan> {
  const own = new Set<string>();
  for (const path of Object.keys(files)) {
    const parts = path.split('/');
    const last = parts.at(-1)!;
    if (last === '__init__.py' && parts.length >= 2) own.add(parts.at(-2)!);
    else own.add(last.replace(/\.py$/, ''));
    // Any folder of the skill can be a namespace package on sys.path of a script beside it.
    for (const dir of parts.slice(0, -1)) own.add(dir);
  }
  const raw = await runScanner(python, JSON.stringify(files));
  let parsed: {
    stdlib: string[];
    files: Record<string, { imports?: string[]; programs?: string[]; error?: string }>;
  };
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new AppError('INTERNAL', 'the import scanner gave no readable answer');
  }
  const stdlib = new Set(parsed.stdlib);
  const byModule = new Map<string, string[]>();
  const byProgram = new Map<string, string[]>();
  const unreadable: ImportScan['unreadable'] = [];
  for (const [path, r] of Object.entries(parsed.files)) {
    if (r.error) {
      unreadable.push({ path, error: r.error });
      continue;
    }
    for (const m of r.imports ?? []) {
      if (stdlib.has(m) || own.has(m) || m === '__future__' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(m)) continue;
      byModule.set(m, [...(byModule.get(m) ?? []), path]);
      for (const p of PROGRAMS_OF_MODULES[m] ?? []) byProgram.set(p, [...(byProgram.get(p) ?? []), path]);
    }
    for (const raw of r.programs ?? []) {
      const p = programName(raw);
      if (p) byProgram.set(p, [...(byProgram.get(p) ?? []), path]);
    }
  }
  const packages = [...byModule.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([module, paths]) => ({ module, ...distributionFor(module), files: paths.sort() }));
  const programs = [...byProgram.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([program, paths]) => ({ program, files: [...new Set(paths)].sort() }));
  return { packages, programs, unreadable: unreadable.sort((a, b) => a.path.localeCompare(b.path)) };
}

/**
 * Programs a package starts on the script's behalf, so a script that only imports it starts them
 * too: Anthropic's pdf skill reaches Poppler through `pdf2image` and never names `pdftoppm` itself,
 * so without this its page images failed on a program nobody had been asked to grant. Only
 * packages whose work is the program (a wrapper), not ones that may call one now and then.
 */
const PROGRAMS_OF_MODULES: Readonly<Record<string, readonly string[]>> = {
  pdf2image: ['pdfinfo', 'pdftoppm', 'pdftocairo'],
  pytesseract: ['tesseract'],
  pypandoc: ['pandoc'],
  pydub: ['ffmpeg', 'ffprobe'],
  ffmpeg: ['ffmpeg', 'ffprobe'],
  unoserver: ['soffice'],
};

/**
 * Commands that are not a program the user would install for the skill: Python itself (the
 * runtime's), shells and wrappers whose real program is elsewhere in the command.
 */
const NOT_A_PROGRAM = new Set([
  'python',
  'python3',
  'sh',
  'bash',
  'env',
  'timeout',
  'gtimeout',
  'nice',
  'which',
]);

/** The program a command word names (`/usr/bin/qpdf` → `qpdf`), or null for Python and shells. */
function programName(word: string): string | null {
  const base = word.split('/').at(-1) ?? '';
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/.test(base) || !/[A-Za-z]/.test(base)) return null;
  if (NOT_A_PROGRAM.has(base) || /^python3(\.\d+)?$/.test(base)) return null;
  return base;
}

function runScanner(python: string, input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, ['-I', '-c', SCANNER], {
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: 30_000,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      err = (err + d.toString('utf8')).slice(-2000);
    });
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    child.on('error', (e) =>
      reject(
        new AppError('INVALID_INPUT', `could not start ${python} to read the scripts' imports: ${e.message}`),
      ),
    );
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else
        reject(
          new AppError('INVALID_INPUT', `reading the scripts' imports failed: ${err.trim().slice(-400)}`),
        );
    });
  });
}
