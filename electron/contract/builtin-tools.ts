/**
 * The built-in skill tools as every face sees them: one name, one description, one argument schema
 * and one activity text per tool. The chat offers these to its model, `skilldesk mcp serve` lists
 * them to MCP clients, and the renderer words a call from them; each tool's implementation is one
 * module in `electron/tools/`, registered against this table (a missing one fails `tsc`).
 */
import { z } from 'zod';

/** A JSON object argument; models often send nested objects as a JSON string, which is accepted too. */
const JsonObjectArg = z.preprocess(
  (v) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  },
  z.record(z.string(), z.unknown()),
);

/**
 * The argument naming a skill, shared by every tool that takes one: a face that serves skills
 * under other names (`mcp serve`'s slugs) finds the argument to translate by this schema.
 */
export const SkillName = z
  .string()
  .min(1)
  .max(200)
  .describe('The skill name, as list_skills or search_skills report it.');
const ArtifactName = z.string().min(1).max(200).describe('One artifact of the skill, by name.');

/** Largest base64 text of the files one `run_script` call carries in its arguments (about 12 MiB of bytes). */
export const MAX_SCRIPT_FILES_BASE64 = 16 * 1024 * 1024;
/** Most files one `run_script` call names in its arguments. */
export const MAX_SCRIPT_FILE_ARGS = 20;
const InputFileName = z
  .string()
  .min(1)
  .max(255)
  .describe('Where the script finds the file: inputs/NAME (a plain file name, no folders).');
const BASE64_TEXT = /^[A-Za-z0-9+/]*={0,2}$/;
/** A file given to `run_script`: a resource the app serves, or the bytes themselves. */
const ScriptFileArg = z.union([
  z.strictObject({
    name: InputFileName,
    uri: z
      .string()
      .max(2048)
      .describe(
        'A file the app holds: skilldesk://script-output/RUN_ID/PATH (a file an earlier run wrote) or skilldesk://file/SHA256 (a stored file).',
      ),
  }),
  z.strictObject({
    name: InputFileName,
    data_base64: z
      .string()
      .max(MAX_SCRIPT_FILES_BASE64)
      .refine((s) => s.length % 4 === 0 && BASE64_TEXT.test(s), 'is not valid base64')
      .describe("The file's bytes, base64."),
  }),
  z.strictObject({
    name: InputFileName.optional(),
    path: z
      .string()
      .min(1)
      .max(4096)
      .describe(
        'A file on this computer by its full path, inside a folder the user granted (mcp serve --folder DIR, or the chat\'s "Grant a folder…"); any other path is refused. NAME defaults to its file name.',
      ),
  }),
]);

/**
 * A tool's arguments: exactly these keys. An unknown one is refused, naming the accepted ones, so a
 * caller that misspells an argument learns it instead of running with the argument dropped.
 */
function toolArgs<S extends z.ZodRawShape>(shape: S) {
  const accepted = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown argument${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => `"${k}"`).join(', ')}; ${accepted.length ? `accepted: ${accepted.join(', ')}` : 'this tool takes no arguments'}`
        : undefined,
  });
}

/** A finished or running tool call, as its activity text reads it. */
export interface ToolCallFacts {
  status: 'running' | 'done' | 'failed';
  args: Record<string, unknown>;
  result: Record<string, unknown>;
  /** The skill the call was about, when the tool said. */
  skill?: string;
  artifacts?: string[];
}

/** Timing and checks of a finished run, from its traces (absent until loaded). */
export interface RunFacts {
  ms: number;
  passed: number;
  run: number;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * "Ran Summarize · Summary Prompt · 1.2 s · 2/2 checks passed": a run of a skill (`apply_skill`, a
 * skill's own tool) or of any other tool, named `name`.
 */
export function describeRun(name: string, call: ToolCallFacts, facts: RunFacts | null = null): string {
  if (call.status === 'running') return `Running ${name}…`;
  const artifacts = call.artifacts?.length
    ? call.artifacts
    : str(call.args.artifact)
      ? [str(call.args.artifact)!]
      : [];
  const bits = [`${call.status === 'failed' ? 'Couldn’t run' : 'Ran'} ${name}`];
  if (artifacts.length) bits.push(artifacts.join(', '));
  // A DSPy program that could not answer handed over to its prompt template: say so, not just "Ran".
  const outputs = Array.isArray(call.result.outputs) ? (call.result.outputs as unknown[]) : [];
  for (const o of outputs) {
    const fb = o && typeof o === 'object' ? (o as { fallback?: { artifact?: unknown } }).fallback : undefined;
    if (fb && typeof fb.artifact === 'string') bits.push(`fell back to ${fb.artifact}`);
  }
  if (facts) {
    bits.push(seconds(facts.ms));
    if (facts.run > 0) bits.push(`${facts.passed}/${facts.run} checks passed`);
  }
  return bits.join(' · ');
}

/** What every face knows about one built-in tool. */
export interface BuiltinToolFacts {
  description: string;
  args: z.ZodType<Record<string, unknown>>;
  /** Only reads the catalog (MCP's `readOnlyHint`). */
  read_only: boolean;
  /** One step of skill activity in words. */
  activity(call: ToolCallFacts, facts: RunFacts | null): string;
  /**
   * The files a call's result names that the app keeps for it (a script's outputs): over MCP they
   * travel as `resource_link`s, and an eval grades and keeps them. Absent: the tool leaves none.
   */
  outputs?(result: unknown): Array<ScriptOutputRef & { run_id: string }>;
  /**
   * What a call does with the skill it names (`args.name`): `read` gives the model its
   * instructions, `apply` runs it (the reply counts it among the skills used, and a user's
   * invocation of a skill by name is this call). Absent: the tool names no one skill.
   */
  skill_use?: 'read' | 'apply';
  /** A call may run code in the sandbox (its step shows the sandbox's start while it waits). */
  runs_code?: true;
}

const skillOf = (call: ToolCallFacts) => call.skill ?? str(call.args.name) ?? 'a skill';

/** `run_python`'s default wall-clock limit. */
export const DEFAULT_RUN_PYTHON_TIMEOUT_MS = 30_000;
/** The most `run_python`'s `timeout_ms` may ask for. */
export const MAX_RUN_PYTHON_TIMEOUT_MS = 120_000;

/**
 * What `run_python` tells the model: where files are, that only files persist, and which runtime
 * this chat uses with what is installed in it (`packages`: `name==version` of Full Python's
 * environment, as installed or as it will be on first use).
 */
export function runPythonDescription(
  runtime: 'pyodide' | 'full',
  packages: string[] = [],
  hosts: readonly string[] = [],
  programs: readonly string[] = [],
): string {
  const installed =
    runtime === 'full'
      ? `Runtime in this chat: Full Python, CPython 3.11 in an OS sandbox, with ${packages.length ? packages.join(', ') : 'numpy, pandas, matplotlib, scipy, openpyxl, python-docx, pypdf and Pillow'} (no pip at run time). matplotlib draws with the Agg backend: save figures with savefig('out/chart.png') or .svg (shown in the chat), never plt.show(). The first run of a new installation can take a minute while the packages are installed.`
      : 'Runtime in this chat: Pyodide, Python 3 with the standard library only (csv, json, statistics, math, decimal, fractions, datetime, re, collections, itertools, sqlite3, zipfile, xml, html, base64, random); no numpy, pandas or matplotlib, and no pip. For a chart, write a Vega-Lite spec to a .vl.json file (shown as an interactive chart) or an SVG/PNG file you build yourself. (The user can switch the chat to Full Python, with numpy, pandas and matplotlib.)';
  return [
    'Run Python code you write in a sandbox and get back its stdout, stderr, the exception (type, message, traceback) if one was raised, and the files it wrote.',
    "Files: the current folder is this chat's folder. The chat's attached files are in it by their names (open('sales.csv')), with every file earlier runs wrote and files the user dropped in. Existing files are read-only: write results to new files (e.g. out/chart.png, summary.csv); they are kept in the chat's folder and shown to the user (a .csv or .parquet file as a table). To show a table, call display(table, name) (built in, nothing to import): it takes a pandas DataFrame or Series, a list of dicts or rows, or a dict of columns, saves it as out/<name>.csv (shown to the user as a table) and prints its first rows. Pass files to give a run only some of the folder's files.",
    'State: nothing persists between runs except files. Variables, imports and definitions are gone in the next run, so re-read inputs and re-define helpers each time; save anything a later run needs to a file.',
    installed,
    ...(runtime === 'full' && programs.length > 0 ? [programsSentence(programs)] : []),
    networkSentence(runtime, hosts),
    'Limits: time (timeout_ms, default 30 s, at most 120 s), memory, output size, and how many and how large files a run may write; a run stopped by a limit says which.',
  ].join(' ');
}

/** The host programs Full Python's code may start, and how to convert a document with LibreOffice. */
function programsSentence(programs: readonly string[]): string {
  const office = programs.includes('soffice')
    ? " To convert a document (docx, xlsx, pptx, odt…) to PDF or another format: subprocess.run(['soffice', '--headless', '--convert-to', 'pdf', '--outdir', 'out', 'report.docx'])."
    : '';
  return `Programs you may start with subprocess: ${programs.join(', ')}; no other program runs.${office}`;
}

/** What the description says of the network: none, or the chat's granted hosts and how to reach them. */
function networkSentence(runtime: 'pyodide' | 'full', hosts: readonly string[]): string {
  if (hosts.length === 0)
    return 'No network: sockets and HTTP are refused (the user can allow hosts for this chat).';
  if (runtime === 'full')
    return `Network: only these hosts, over https, through the app's proxy: ${hosts.join(', ')}. Use urllib.request.urlopen(url), requests or http.client as usual (the sandbox sets HTTPS_PROXY for them); raw sockets and DNS lookups fail, and so does any other host, a redirect to one included.`;
  return `Network: only these hosts, over https, through the app: ${hosts.join(', ')}. Use urllib.request.urlopen(url) or skilldesk.http_request(method, url, headers, body) (import skilldesk; it returns {status, reason, url, headers, body: bytes}); sockets are refused, and so is any other host, a redirect to one included.`;
}

/** Every built-in tool, keyed by the name models and MCP clients call it by. */
export const BUILTIN_TOOLS = {
  list_skills: {
    description: 'List every available skill with its description.',
    args: toolArgs({}),
    read_only: true,
    activity(call) {
      if (call.status === 'running') return 'Listing skills…';
      if (call.status === 'failed') return 'Couldn’t list skills';
      const n = Array.isArray(call.result.skills) ? call.result.skills.length : 0;
      return `Listed skills — ${n} available`;
    },
  },
  search_skills: {
    description: 'Find skills relevant to a query (deterministic keyword ranking).',
    args: toolArgs({
      query: z.string().min(1).max(10_000).describe('What the user wants, in their words.'),
      limit: z.int().min(1).max(20).optional().describe('How many skills to return (default 5).'),
    }),
    read_only: true,
    activity(call) {
      const q = str(call.args.query) ?? '';
      if (call.status === 'running') return `Searching skills for ‘${q}’…`;
      if (call.status === 'failed') return `Couldn’t search skills for ‘${q}’`;
      const n = Array.isArray(call.result.matches) ? call.result.matches.length : 0;
      return `Searched skills for ‘${q}’ — ${n === 0 ? 'none' : n} found`;
    },
  },
  read_skill: {
    skill_use: 'read',
    description:
      "Read a skill: its instructions and the list of its artifacts. Pass artifact to read one artifact's full content.",
    args: toolArgs({ name: SkillName, artifact: ArtifactName.optional() }),
    read_only: true,
    activity(call) {
      const part = str(call.args.artifact);
      const what = part ? `${skillOf(call)} · ${part}` : skillOf(call);
      if (call.status === 'running') return `Reading ${what}…`;
      return call.status === 'failed' ? `Couldn’t read ${what}` : `Read ${what}`;
    },
  },
  apply_skill: {
    skill_use: 'apply',
    runs_code: true,
    description:
      "Run a skill's executable artifacts (prompt templates, sandboxed Python, DSPy programs) with the variables in ctx, and return their outputs. Pass artifact to run only one.",
    args: toolArgs({
      name: SkillName,
      ctx: JsonObjectArg.optional().describe("Variables for the skill's templates and code."),
      artifact: ArtifactName.optional(),
    }),
    read_only: false,
    activity: (call, facts) => describeRun(skillOf(call), call, facts),
  },
  run_script: {
    runs_code: true,
    description:
      "Run one of a skill's bundled Python scripts (as listed by read_skill) in the sandbox, like `python SCRIPT ARGS...`: the skill's files are read-only in its working folder, the chat message's attached files are read-only under inputs/ (pass inputs/NAME as an argument), files it writes (e.g. under out/) come back as downloadable results. Returns exit_code, stdout and stderr; a non-zero exit code is the script's answer (usage errors, bad input), not a failure of the tool.",
    args: toolArgs({
      name: SkillName,
      script: z
        .string()
        .min(1)
        .max(1024)
        .describe('The script, by its path in the skill folder (scripts/extract.py).'),
      args: z
        .preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string().max(100_000)).max(200))
        .optional()
        .describe("The script's command-line arguments (sys.argv[1:]), one string each."),
      stdin: z.string().max(1_000_000).optional().describe("Text on the script's standard input."),
      files: z
        .array(ScriptFileArg)
        .max(MAX_SCRIPT_FILE_ARGS)
        .refine(
          (fs) =>
            fs.reduce((n, f) => n + ('data_base64' in f ? f.data_base64.length : 0), 0) <=
            MAX_SCRIPT_FILES_BASE64,
          `files given as data_base64 may hold at most ${MAX_SCRIPT_FILES_BASE64} characters in all: send larger files by uri`,
        )
        .optional()
        .describe(
          "Files for the script besides the chat's attachments, each read-only at inputs/NAME: {name, uri}, {name, data_base64}, or {path} for a file inside a granted folder. Granted folders are read-only at inputs/<folder name>/ already.",
        ),
    }),
    read_only: false,
    activity(call) {
      const script = str(call.args.script) ?? 'a script';
      const what = `${skillOf(call)} · ${script}`;
      if (call.status === 'running') return `Running ${what}…`;
      if (call.status === 'failed') return `Couldn’t run ${what}`;
      const code = call.result.exit_code;
      const files = Array.isArray(call.result.files) ? call.result.files.length : 0;
      return `Ran ${what} — exit ${typeof code === 'number' ? code : '?'}${files ? ` · ${files} file${files === 1 ? '' : 's'}` : ''}`;
    },
    outputs(result) {
      const r = result as { run_id?: unknown; files?: unknown } | null;
      if (!r || typeof r.run_id !== 'string' || !Array.isArray(r.files)) return [];
      const runId = r.run_id;
      return r.files.flatMap((f: Partial<ScriptOutputRef> | null) =>
        typeof f?.path === 'string' &&
        typeof f.uri === 'string' &&
        f.uri.startsWith(SCRIPT_OUTPUT_URI) &&
        typeof f.size === 'number'
          ? [
              {
                run_id: runId,
                path: f.path,
                uri: f.uri,
                size: f.size,
                media_type: typeof f.media_type === 'string' ? f.media_type : 'application/octet-stream',
              },
            ]
          : [],
      );
    },
  },
  run_python: {
    runs_code: true,
    description: runPythonDescription('pyodide'),
    args: toolArgs({
      code: z
        .string()
        .min(1)
        .max(200_000)
        .describe('The Python program to run (a whole script, not a REPL line).'),
      files: z
        .preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string().min(1).max(400)).max(200))
        .optional()
        .describe(
          "Only these files of the chat's folder are given to the run (paths in the folder); default: all of them.",
        ),
      timeout_ms: z
        .int()
        .min(100)
        .max(MAX_RUN_PYTHON_TIMEOUT_MS)
        .optional()
        .describe(
          `Wall-clock limit in milliseconds (default ${DEFAULT_RUN_PYTHON_TIMEOUT_MS}, at most ${MAX_RUN_PYTHON_TIMEOUT_MS}).`,
        ),
    }),
    read_only: false,
    activity(call) {
      if (call.status === 'running') return 'Running Python…';
      if (call.status === 'failed') {
        const stopped = call.result.stopped as { reason?: unknown } | undefined;
        return stopped && typeof stopped.reason === 'string'
          ? `Python stopped — ${stopped.reason}`
          : 'Couldn’t run Python';
      }
      const exc = call.result.exception as { type?: unknown } | null | undefined;
      const files = Array.isArray(call.result.files) ? call.result.files.length : 0;
      const bits = [exc && typeof exc.type === 'string' ? `Ran Python — raised ${exc.type}` : 'Ran Python'];
      if (files) bits.push(`${files} file${files === 1 ? '' : 's'} written`);
      return bits.join(' · ');
    },
  },
} as const satisfies Record<string, BuiltinToolFacts>;

/** The kept files a built-in tool's result names (its `outputs` fact); none for any other tool. */
export function toolOutputs(name: string, result: unknown): Array<ScriptOutputRef & { run_id: string }> {
  return toolFacts(name)?.outputs?.(result) ?? [];
}

/** The facts of built-in tool `name`; null for any other tool (a skill's own, an MCP server's). */
export function toolFacts(name: string): BuiltinToolFacts | null {
  return Object.hasOwn(BUILTIN_TOOLS, name) ? BUILTIN_TOOLS[name as BuiltinToolName] : null;
}

/** The built-in tool that reads (`read`) or runs (`apply`) the skill it names. */
export function skillUseTool(use: 'read' | 'apply'): BuiltinToolName {
  const name = (Object.keys(BUILTIN_TOOLS) as BuiltinToolName[]).find(
    (n) => (BUILTIN_TOOLS[n] as BuiltinToolFacts).skill_use === use,
  );
  if (!name) throw new Error(`no built-in tool has skill_use "${use}"`);
  return name;
}

/** A file a `run_python` run wrote, now in the chat's folder. */
export interface RunPythonFileRef {
  name: string;
  size: number;
  mime: string;
}

/** The name of a built-in tool. */
export type BuiltinToolName = keyof typeof BUILTIN_TOOLS;

/** The parsed arguments of built-in tool `N`. */
export type BuiltinToolArgs<N extends BuiltinToolName> = z.output<(typeof BUILTIN_TOOLS)[N]['args']>;

/** Whether `name` is a built-in tool. */
export function isBuiltinTool(name: string): name is BuiltinToolName {
  return Object.hasOwn(BUILTIN_TOOLS, name);
}

/**
 * The JSON Schema a model or an MCP client receives for a tool's arguments: the input side (what
 * the caller writes), without `$schema`, and free-form objects as plain `additionalProperties:
 * true`, which every provider accepts.
 */
export function toolParameters(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    override: ({ jsonSchema }) => {
      const node = jsonSchema as Record<string, unknown>;
      if (node.type === 'object' && node.propertyNames) {
        delete node.propertyNames;
        node.additionalProperties = true;
      }
    },
  }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/** `skills/call-tool`: run one built-in tool as a model would (the MCP server's tools call this). */
export const CallToolReqSchema = z
  .object({
    name: z.enum(Object.keys(BUILTIN_TOOLS) as [BuiltinToolName, ...BuiltinToolName[]]),
    /** Checked against the tool's own schema, which names what it accepts. */
    args: z.record(z.string(), z.unknown()).optional(),
    /**
     * Folders of this machine granted to the call (`mcp serve --folder`), read-only at
     * `inputs/<name>/`. Taken only from a caller in the app's own process, as `scripts/run`'s files.
     */
    folders: z
      .array(z.strictObject({ name: z.string().min(1).max(255), path: z.string().min(1).max(4096) }))
      .max(20)
      .optional(),
  })
  .strict();
/** Request of `skills/call-tool`. */
export type CallToolReq = z.infer<typeof CallToolReqSchema>;
/** Reply of `skills/call-tool`: what the model would have been sent, and what the call touched. */
export interface CallToolRes {
  ok: boolean;
  /** JSON-compatible: the tool's result, or `{error}`. */
  result: unknown;
  skill?: string;
  artifacts?: string[];
  trace_ids?: string[];
}

/** `scripts/run`: run a skill's bundled script, as `run_script` does (the CLI's `skills run-script`). */
export const RunScriptReqSchema = z
  .object({
    name: z.string().min(1).max(200),
    script: z.string().min(1).max(1024),
    args: z.array(z.string().max(100_000)).max(200).optional(),
    stdin: z.string().max(1_000_000).optional(),
    timeout_ms: z.number().int().positive().max(300_000).optional(),
    /**
     * Files of this machine given to the script, read-only at `inputs/<name>`. Taken only from the
     * CLI (a caller in the app's own process): a window or a WebSocket client naming paths of the
     * machine would read what it cannot otherwise reach.
     */
    files: z
      .array(z.strictObject({ name: z.string().min(1).max(255), path: z.string().min(1).max(4096) }))
      .max(100)
      .optional(),
    /**
     * Folders of this machine given to the script, read-only at `inputs/<name>/` with their tree;
     * as `files`, only from the CLI.
     */
    folders: z
      .array(z.strictObject({ name: z.string().min(1).max(255), path: z.string().min(1).max(4096) }))
      .max(20)
      .optional(),
  })
  .strict();
/** Request of `scripts/run`. */
export type RunScriptReq = z.infer<typeof RunScriptReqSchema>;
/** Where a script run's kept files are served: `skilldesk://script-output/<run_id>/<path>`. */
export const SCRIPT_OUTPUT_URI = 'skilldesk://script-output/';
/** A file a script run wrote, kept for download (7 days) and served over MCP at `uri`. */
export interface ScriptOutputRef {
  path: string;
  media_type: string;
  size: number;
  uri: string;
}
/** Reply of `scripts/run`: the script's outcome (a non-zero exit code is an outcome too). */
export interface RunScriptRes {
  skill: string;
  script: string;
  run_id: string;
  /** `sys.exit(n)` → n; an uncaught exception → 1; -1 when the sandbox stopped it (`sandbox_error`). */
  exit_code: number;
  stdout: string;
  stderr: string;
  files: ScriptOutputRef[];
  duration_ms: number;
  truncated?: { stdout?: boolean; stderr?: boolean; files?: string[] };
  sandbox_error?: { code: string; message: string };
  hint?: string;
}

/** `scripts/read-output`: one file a script run wrote. */
export const ReadScriptOutputReqSchema = z
  .object({
    run_id: z.string().min(1).max(64),
    path: z.string().min(1).max(1024),
  })
  .strict();
/** Request of `scripts/read-output`. */
export type ReadScriptOutputReq = z.infer<typeof ReadScriptOutputReqSchema>;
/** Reply of `scripts/read-output`: the bytes, base64. */
export interface ReadScriptOutputRes {
  path: string;
  media_type: string;
  size: number;
  data_base64: string;
}

/** `scripts/install-packages`: fetch a skill's declared pure-Python packages into the wheelhouse. */
export const InstallPackagesReqSchema = z
  .object({
    name: z.string().min(1).max(200),
    /** Install what the skill's scripts import (no requirements.txt) into its OS-sandbox environment. */
    from_imports: z.boolean().optional(),
    /** Accept the OS-sandbox runtime for the skill when its packages have compiled code. */
    accept_native: z.boolean().optional(),
    /**
     * Install packages with compiled code into the skill's OS-sandbox environment (the CLI, which
     * then asks to accept that runtime); without it they are refused, naming the package.
     */
    native: z.boolean().optional(),
    /**
     * With `from_imports`: the distributions the user was shown and confirmed. The install stops
     * (CONFLICT) when the scripts now propose others, so nothing is installed that was not shown.
     */
    packages: z.array(z.string().min(1).max(200)).max(200).optional(),
  })
  .strict();
/** Request of `scripts/install-packages`. */
export type InstallPackagesReq = z.infer<typeof InstallPackagesReqSchema>;
/** A program a skill's scripts start outside Python, as found on this computer. */
export interface ScriptProgram {
  program: string;
  /** The product it belongs to, when known ("LibreOffice"). */
  product?: string;
  /** Where it is here; null when it is not installed. */
  path: string | null;
  /** How to install it, when missing and known. */
  install?: string;
  /** The scripts that start it. */
  files: string[];
  /** Whether the user granted it to the skill (the OS sandbox covers a program not granted). */
  granted?: boolean;
}

/** Reply of `scripts/install-packages`. */
export interface InstallPackagesRes {
  skill: string;
  requirements: string[];
  wheels: Array<{ filename: string; name: string; version: string; sha256: string; size: number }>;
  already_installed: boolean;
  /** `native` when the packages went to the skill's OS-sandbox environment (compiled code). */
  runtime?: 'pyodide' | 'native';
  /** Why, in words ("its scripts need lxml, which has compiled code: they run in the OS sandbox"). */
  runtime_reason?: string;
  /** Whether the user has accepted the OS-sandbox runtime for the skill. */
  native_accepted?: boolean;
  /** Programs the skill's scripts start outside Python, and where each is on this computer. */
  programs?: ScriptProgram[];
  /** In words, which of those programs are missing and how to install them. */
  missing_programs?: string;
}

/** `scripts/runtime-status`: which runtime a skill's scripts use, and what the user can do about it. */
export const ScriptRuntimeStatusReqSchema = z.object({ name: z.string().min(1).max(200) }).strict();
/** Request of `scripts/runtime-status`. */
export type ScriptRuntimeStatusReq = z.infer<typeof ScriptRuntimeStatusReqSchema>;

/** One distribution a skill's scripts import, proposed for installing (never installed unasked). */
export interface ProposedScriptPackage {
  /** The top-level module imported (`docx`). */
  module: string;
  /** The distribution that provides it (`python-docx`). */
  distribution: string;
  /** The scripts that import it. */
  files: string[];
}

/** Reply of `scripts/runtime-status` (and of `scripts/set-native-runtime`). */
export interface ScriptRuntimeStatus {
  skill: string;
  /** Whether the skill bundles Python scripts. */
  has_scripts: boolean;
  /** `native`: CPython in the OS sandbox, because its installed packages have compiled code. */
  runtime: 'pyodide' | 'native';
  /** The runtime in words ("its scripts need lxml, which has compiled code: they run in the OS sandbox"). */
  reason: string;
  /** The installed packages with compiled code (normalised project names). */
  compiled: string[];
  /** Whether the user accepted the OS-sandbox runtime for this skill. */
  native_accepted: boolean;
  accepted_at: string | null;
  /** Whether this machine has the OS sandbox; without it native scripts are refused, never run unconfined. */
  os_sandbox_available: boolean;
  /** Why not, with what to install. */
  os_sandbox_reason: string | null;
  /** Whether the skill declares its packages (requirements.txt). */
  has_requirements: boolean;
  /** The skill's OS-sandbox environment, when one was installed. */
  installed: {
    requirements: string[];
    from: 'requirements' | 'imports';
    packages: Array<{ name: string; version: string; compiled: boolean }>;
    installed_at: string;
  } | null;
  /**
   * What its scripts import, mapped to distributions, when it declares no requirements.txt and has
   * nothing installed (an empty list: only the standard library); null otherwise.
   */
  proposed: ProposedScriptPackage[] | null;
  /** Why the imports could not be read (no Python here, a script Python cannot parse). */
  proposed_error: string | null;
  /** Programs its scripts start outside Python (LibreOffice, Poppler), found on this computer or not. */
  programs: ScriptProgram[];
  /** In words, which of them are missing and how to install them; null when none is. */
  missing_programs: string | null;
}

/** `scripts/set-native-runtime`: accept (or revoke) the OS-sandbox runtime for a skill's scripts. */
export const SetNativeRuntimeReqSchema = z
  .object({ name: z.string().min(1).max(200), accepted: z.boolean() })
  .strict();
/** Request of `scripts/set-native-runtime`. */
export type SetNativeRuntimeReq = z.infer<typeof SetNativeRuntimeReqSchema>;
/** Reply of `scripts/set-native-runtime`: the status after the change. */
export interface SetNativeRuntimeRes extends ScriptRuntimeStatus {
  /** False when the answer was already the one asked for (revoking what was never accepted). */
  changed: boolean;
}

/**
 * `scripts/set-programs`: grant (or revoke) external programs to a skill's scripts in the OS
 * sandbox, per skill and program, like a network grant.
 */
export const SetProgramsReqSchema = z
  .object({
    name: z.string().min(1).max(200),
    programs: z
      .array(
        z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/, 'must be a command name (soffice, pdftoppm)'),
      )
      .min(1)
      .max(50),
    granted: z.boolean(),
  })
  .strict();
/** Request of `scripts/set-programs`. */
export type SetProgramsReq = z.infer<typeof SetProgramsReqSchema>;
/** Reply of `scripts/set-programs`: the skill's grants after the change. */
export interface SetProgramsRes {
  skill: string;
  granted: Array<{ program: string; granted_at: string }>;
  changed: boolean;
}

/** The channels of this slice. */
export type BuiltinToolChannels = {
  'scripts/set-programs': { req: SetProgramsReq; res: SetProgramsRes };
  'skills/call-tool': { req: CallToolReq; res: CallToolRes };
  'scripts/run': { req: RunScriptReq; res: RunScriptRes };
  'scripts/read-output': { req: ReadScriptOutputReq; res: ReadScriptOutputRes };
  'scripts/install-packages': { req: InstallPackagesReq; res: InstallPackagesRes };
  'scripts/runtime-status': { req: ScriptRuntimeStatusReq; res: ScriptRuntimeStatus };
  'scripts/set-native-runtime': { req: SetNativeRuntimeReq; res: SetNativeRuntimeRes };
};

/** The request schemas of this slice. */
export const builtinToolRequestSchemas = {
  'scripts/set-programs': SetProgramsReqSchema,
  'skills/call-tool': CallToolReqSchema,
  'scripts/run': RunScriptReqSchema,
  'scripts/read-output': ReadScriptOutputReqSchema,
  'scripts/install-packages': InstallPackagesReqSchema,
  'scripts/runtime-status': ScriptRuntimeStatusReqSchema,
  'scripts/set-native-runtime': SetNativeRuntimeReqSchema,
};
