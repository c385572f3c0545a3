import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import { KINDS, LLM_SKILL_KEYS } from '../kinds/index.js';
import type { Skill } from '../store/index.js';
import { formatBytes, type ImportLimits } from './limits.js';
import type { PackageArtifact } from './package-schema.js';
import {
  assertPortablePaths,
  collision,
  portablePathProblem,
  safeRelativePath,
  type TakenPaths,
} from './safe-path.js';
import { decodeUtf8Strict, invalidUtf8Offset, isTextPath, notUtf8Error } from './strict-utf8.js';
import type { FileMap } from './zip.js';

/** The frontmatter of an Agent Skills `SKILL.md`. Unknown keys are ignored. */
const FrontmatterSchema = z
  .object({
    name: z.string().trim().min(1, 'is required').max(100),
    description: z.string().trim().min(1, 'is required').max(2000),
    license: z.string().max(500).optional(),
    compatibility: z.string().max(500).optional(),
    metadata: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String))
      .optional(),
    'allowed-tools': z.union([z.string(), z.array(z.string()).transform((a) => a.join(' '))]).optional(),
  })
  .passthrough();

const IGNORED = /(^|\/)(\.DS_Store|__MACOSX|\.git|__pycache__|Thumbs\.db)(\/|$)|\.pyc$/;
const VERSION = /^\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.-]+)?$/;

/** The folder's files under the limits; symlinks and special files are refused, never followed. */
export function readFolder(dir: string, limits: ImportLimits): FileMap {
  const files: FileMap = new Map();
  let total = 0;
  const walk = (abs: string, rel: string) => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (IGNORED.test(childRel)) continue;
      const childAbs = join(abs, entry.name);
      const st = lstatSync(childAbs);
      if (st.isSymbolicLink()) {
        throw new AppError('UNSAFE_PATH', `${childAbs} is a symbolic link; links are not imported`, {
          file: childAbs,
        });
      }
      if (st.isDirectory()) walk(childAbs, childRel);
      else if (st.isFile()) {
        if (files.size + 1 > limits.maxFiles) {
          throw new AppError('TOO_LARGE', `${dir}: more than ${limits.maxFiles} files`, { file: dir });
        }
        total += st.size;
        if (total > limits.maxBytes) {
          throw new AppError('TOO_LARGE', `${dir}: more than ${formatBytes(limits.maxBytes)} of files`, {
            file: dir,
          });
        }
        files.set(safeRelativePath(childRel, dir), readFileSync(childAbs));
      }
    }
  };
  walk(dir, '');
  return files;
}

/** Split `SKILL.md` into its YAML frontmatter and Markdown body. */
export function splitFrontmatter(text: string, file: string): { data: unknown; body: string } {
  const src = text.replace(/^\uFEFF/, '');
  const m = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(src);
  if (!m)
    throw new AppError(
      'INVALID_INPUT',
      `${file}: SKILL.md must start with a --- YAML frontmatter block ---`,
      { file },
    );
  let data: unknown;
  try {
    data = YAML.parse(m[1]!, { maxAliasCount: 50 });
  } catch (e) {
    throw new AppError(
      'INVALID_INPUT',
      `${file}: the frontmatter is not valid YAML (${(e as Error).message.split('\n')[0]})`,
      {
        file,
      },
    );
  }
  return { data: data ?? {}, body: src.slice(m[0].length) };
}

/** Files of an Agent Skills folder (with `SKILL.md` at its root) → the raw JSON package. */
export function agentSkillToPackage(files: FileMap, file: string): Record<string, unknown> {
  const skillMd = files.get('SKILL.md');
  if (!skillMd)
    throw new AppError('INVALID_INPUT', `${file}: no SKILL.md at the top of the skill folder`, { file });
  const { data, body } = splitFrontmatter(decodeUtf8Strict(skillMd, `${file}/SKILL.md`), `${file}/SKILL.md`);
  const fm = FrontmatterSchema.safeParse(data);
  if (!fm.success) {
    const i = fm.error.issues[0]!;
    throw new AppError(
      'INVALID_INPUT',
      `${file}/SKILL.md: frontmatter ${i.path.join('.') || ''}: ${i.message}`.replace(' :', ':'),
      {
        file,
        path: i.path.join('.'),
      },
    );
  }
  const f = fm.data;
  const artifacts: PackageArtifact[] = [
    llmSkillArtifact(f, body, file) ?? { kind: 'approach', name: 'SKILL.md', ordinal: 0, content: body },
  ];
  const paths = [...files.keys()].filter((p) => p !== 'SKILL.md').sort();
  // Every bundled file is written back on export, on any OS: refuse what Windows or a
  // case-insensitive filesystem would rename, drop or merge (SKILL.md first: skill.md collides).
  assertPortablePaths(['SKILL.md', ...paths], file);
  paths.forEach((path, i) => {
    const bytes = files.get(path)!;
    const text = decodeText(bytes);
    // A file that must be text and is not UTF-8 is refused, not kept as binary.
    if (text === null && isTextPath(path) && !bytes.includes(0)) {
      throw notUtf8Error(`${file}/${path}`, bytes, Math.max(0, invalidUtf8Offset(bytes)));
    }
    if (/^components\/[^/]+\.wasm$/i.test(path)) {
      artifacts.push({
        kind: 'wasm_component',
        name: path,
        ordinal: i + 1,
        content: bytes.toString('base64'),
        metadata: { path, encoding: 'base64' },
      });
    } else if (text !== null) {
      // Scripts (`scripts/*.py`) stay files too: the model runs them with arguments through
      // `run_script` when the instructions say so; applying the skill never executes them.
      artifacts.push({ kind: 'resource', name: path, ordinal: i + 1, content: text, metadata: { path } });
    } else {
      artifacts.push({
        kind: 'resource',
        name: path,
        ordinal: i + 1,
        content: bytes.toString('base64'),
        metadata: { path, encoding: 'base64' },
      });
    }
  });
  const version = f.metadata?.version;
  // No version stays no version: the schema's default applies, and an import knows the folder
  // declared none (an update of its content then bumps the installed version).
  const pkg: Record<string, unknown> = { name: f.name, description: f.description };
  if (version && VERSION.test(version)) pkg.version = version;
  pkg.source = 'user';
  if (f.license !== undefined) pkg.license = f.license;
  if (f.compatibility !== undefined) pkg.compatibility = f.compatibility;
  if (f.metadata !== undefined) pkg.metadata = f.metadata;
  if (f['allowed-tools'] !== undefined) pkg.allowed_tools = f['allowed-tools'];
  pkg.artifacts = artifacts;
  return pkg;
}

/**
 * A `mode: llm` SKILL.md: its body is the model's system prompt and its LLM fields (tools, provider,
 * model, limits, tool_env, network) the artifact's metadata, checked by the `llm_agent` kind.
 */
function llmSkillArtifact(fm: Record<string, unknown>, body: string, file: string): PackageArtifact | null {
  if (fm.mode === undefined || fm.mode === null) {
    const stray = LLM_SKILL_KEYS.filter((k) => k !== 'model' && fm[k] !== undefined);
    if (stray.length > 0)
      throw new AppError(
        'INVALID_INPUT',
        `${file}/SKILL.md: frontmatter ${stray[0]}: only a "mode: llm" skill takes ${stray.join(', ')}; add "mode: llm"`,
        { file, path: stray[0] },
      );
    return null;
  }
  if (fm.mode !== 'llm')
    throw new AppError(
      'INVALID_INPUT',
      `${file}/SKILL.md: frontmatter mode: must be "llm" (the model runs the skill) or left out`,
      { file, path: 'mode' },
    );
  const metadata: Record<string, unknown> = {};
  for (const k of LLM_SKILL_KEYS) if (fm[k] !== undefined) metadata[k] = fm[k];
  return { kind: 'llm_agent', name: 'SKILL.md', ordinal: 0, content: body, metadata };
}

/** If every file sits under one top folder that holds SKILL.md, strip that prefix. */
export function unwrapSingleFolder(files: FileMap): FileMap {
  if (files.has('SKILL.md')) return files;
  const tops = new Set([...files.keys()].map((p) => p.split('/')[0]));
  if (tops.size !== 1) return files;
  const [top] = [...tops];
  if (!files.has(`${top}/SKILL.md`)) return files;
  return new Map([...files].map(([p, b]) => [p.slice(top!.length + 1), b]));
}

/** UTF-8 text, or null for binary content. */
function decodeText(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * A folder name for a skill: its name when already a slug, else a slug of it. Never a name Windows
 * reserves for a device (`con`, `nul`, `com1` … get a `-skill` suffix).
 */
export function skillSlug(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  if (!slug) return 'skill';
  return portablePathProblem(slug) ? `${slug}-skill` : slug;
}

/**
 * The files of a skill as an Agent Skills folder: `SKILL.md` (frontmatter + the approach body)
 * plus bundled files. Artifacts the format cannot hold, and files whose path differs from one
 * already placed only by letter case, are listed in `skipped`. A path that could not be written
 * on every OS (see {@link portablePathProblem}) is refused before anything is written.
 */
export function skillToAgentFiles(skill: Skill): { files: FileMap; skipped: string[] } {
  const files: FileMap = new Map();
  const skipped: string[] = [];
  const taken: TakenPaths = new Map();
  collision(taken, 'SKILL.md');
  const llm = skill.artifacts.find((a) => a.kind === 'llm_agent');
  const approach = llm ?? skill.artifacts.find((a) => a.kind === 'approach');
  const fm: Record<string, unknown> = { name: skill.name, description: skill.description };
  if (skill.license != null) fm.license = skill.license;
  if (skill.compatibility != null) fm.compatibility = skill.compatibility;
  const metadata = { ...(skill.metadata ?? {}) };
  if (skill.version !== '1.0.0' && metadata.version === undefined) metadata.version = skill.version;
  if (Object.keys(metadata).length > 0) fm.metadata = metadata;
  if (skill.allowed_tools != null) fm['allowed-tools'] = skill.allowed_tools;
  if (llm) {
    fm.mode = 'llm';
    for (const k of LLM_SKILL_KEYS) if (llm.metadata?.[k] !== undefined) fm[k] = llm.metadata[k];
  }
  const body = approach?.content ?? skill.artifacts.find((a) => a.kind === 'description')?.content ?? '';
  files.set('SKILL.md', Buffer.from(`---\n${YAML.stringify(fm, { lineWidth: 0 })}---\n${body}`, 'utf8'));
  for (const a of skill.artifacts) {
    if (a === approach) continue;
    // Each kind says whether (and where) its artifact is a file of the folder.
    const path = KINDS[a.kind].agentSkillsPath(a, skillSlug);
    if (path) {
      const where = `${skill.name}: artifact "${a.name}"`;
      const rel = safeRelativePath(path, where);
      const problem = portablePathProblem(rel);
      if (problem) {
        throw new AppError(
          'UNSAFE_PATH',
          `${where}: the file path "${rel}" ${problem}; nothing was written`,
          {
            path: rel,
          },
        );
      }
      if (rel === 'SKILL.md' || files.has(rel) || collision(taken, rel)) {
        skipped.push(a.name);
        continue;
      }
      files.set(
        rel,
        a.metadata?.encoding === 'base64' ? Buffer.from(a.content, 'base64') : Buffer.from(a.content, 'utf8'),
      );
    } else if (!(a.kind === 'description' && !approach && a.content === body)) {
      skipped.push(`${a.name} (${a.kind})`);
    }
  }
  return { files, skipped };
}
