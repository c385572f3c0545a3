import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import {
  bodyKeepsHeader,
  bundledFileArtifact,
  skillMdArtifact,
  skillMdInstructions,
} from '../kinds/index.js';
import type { Skill } from '../store/index.js';
import { type AgentFiles, buildAgentFiles } from './agent-export.js';
import {
  artifactFromEntry,
  decodeKeepingBom,
  MANIFEST_FILE,
  manifestArtifacts,
  readManifest,
  takeSkillDeskFields,
} from './agent-manifest.js';
import { isExecutable, markExecutable, subFiles } from './file-modes.js';
import { FILES_REMEDY, formatBytes, type ImportLimits, SIZE_REMEDY } from './limits.js';
import type { PackageArtifact } from './package-schema.js';
import { assertPortablePaths, portablePathProblem, safeRelativePath } from './safe-path.js';
import { invalidUtf8Offset, isTextPath, notUtf8Error } from './strict-utf8.js';
import type { FileMap } from './zip.js';

/** The frontmatter of an Agent Skills `SKILL.md`. Unknown keys are ignored. */
const FrontmatterSchema = z
  .object({
    name: z.string().trim().min(1, 'is required').max(100),
    description: z.string().trim().min(1, 'is required').max(2000),
    license: z.string().max(500).optional(),
    compatibility: z.string().max(500).optional(),
    // Values of any YAML type are kept: scalars as their text (as the reference validator reads
    // them), lists and maps as their JSON text (an export writes the author's form back).
    metadata: z
      .record(
        z.string(),
        z
          .unknown()
          .transform((v) =>
            typeof v === 'string'
              ? v
              : v === null || v === undefined
                ? ''
                : typeof v === 'object'
                  ? JSON.stringify(v)
                  : String(v),
          ),
      )
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
          throw new AppError('TOO_LARGE', `${dir}: more than ${limits.maxFiles} files; ${FILES_REMEDY}`, {
            file: dir,
          });
        }
        total += st.size;
        if (total > limits.maxBytes) {
          throw new AppError(
            'TOO_LARGE',
            `${dir}: more than ${formatBytes(limits.maxBytes)} of files; ${SIZE_REMEDY}`,
            {
              file: dir,
            },
          );
        }
        const rel = safeRelativePath(childRel, dir);
        files.set(rel, readFileSync(childAbs));
        if (st.mode & 0o111) markExecutable(files, rel);
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
  const text = decodeKeepingBom(skillMd, `${file}/SKILL.md`);
  const { data: rawData, body } = splitFrontmatter(text, `${file}/SKILL.md`);
  // The frontmatter exactly as written (BOM and line endings too), so an export of the skill
  // unchanged writes the author's SKILL.md back byte for byte, keys SkillDesk does not read included.
  const header = text.slice(0, text.length - body.length);
  const { data, fields: skilldesk } = takeSkillDeskFields(rawData);
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
  const llmBody = skillMdArtifact(f, body, file);
  const manifest = readManifest(files, file);
  const artifacts: PackageArtifact[] = [];
  let paths = [...files.keys()].filter((p) => p !== 'SKILL.md').sort();
  let first = 1;
  if (manifest) {
    // A SkillDesk export: the artifacts it lists come back as they were; files added since by the
    // conventions below. The raw frontmatter rides on a text body only (an LLM skill's metadata is
    // its settings, checked strictly).
    if (manifest.body) {
      const keep = bodyKeepsHeader(manifest.body.kind);
      const meta = keep ? { ...(manifest.body.metadata ?? {}), frontmatter: header } : manifest.body.metadata;
      artifacts.push(artifactFromEntry({ ...manifest.body, metadata: meta }, body, files));
    } else if (body !== '' || llmBody) {
      artifacts.push(llmBody ?? skillMdInstructions(body, header));
    }
    artifacts.push(...manifestArtifacts(manifest, files, file));
    const listed = new Set<string>([MANIFEST_FILE]);
    for (const [p, e] of Object.entries(manifest.files)) {
      listed.add(p);
      if (e.state_file) listed.add(e.state_file);
    }
    paths = paths.filter((p) => !listed.has(p));
    first = Math.max(0, ...artifacts.map((a) => a.ordinal ?? 0)) + 1;
  } else {
    artifacts.push(llmBody ?? skillMdInstructions(body, header));
  }
  // Every bundled file is written back on export, on any OS: refuse what Windows or a
  // case-insensitive filesystem would rename, drop or merge (SKILL.md first: skill.md collides).
  assertPortablePaths(['SKILL.md', ...paths], file);
  paths.forEach((path, at) => {
    const i = at + first - 1;
    const bytes = files.get(path)!;
    const text = decodeText(bytes);
    const x = isExecutable(files, path) ? { executable: true } : {};
    // A file that must be text and is not UTF-8 is refused, not kept as binary.
    if (text === null && isTextPath(path) && !bytes.includes(0)) {
      throw notUtf8Error(`${file}/${path}`, bytes, Math.max(0, invalidUtf8Offset(bytes)));
    }
    // Scripts (`scripts/*.py`) stay files too: the model runs them with arguments through its
    // script tool when the instructions say so; applying the skill never executes them.
    artifacts.push(bundledFileArtifact(path, i + 1, bytes, text, x));
  });
  const version = f.metadata?.version;
  // No version stays no version: the schema's default applies, and an import knows the folder
  // declared none (an update of its content then bumps the installed version).
  const pkg: Record<string, unknown> = { name: f.name, description: f.description };
  if (version && VERSION.test(version)) pkg.version = version;
  pkg.source = 'user';
  if (f.license !== undefined) pkg.license = f.license;
  if (f.compatibility !== undefined) pkg.compatibility = f.compatibility;
  if (f.metadata !== undefined) {
    // A version taken as the skill's is the skill's field, not metadata too (an export writes it
    // back as metadata.version).
    const { version: v, ...rest } = f.metadata;
    const meta = typeof pkg.version === 'string' && v === pkg.version ? rest : f.metadata;
    if (Object.keys(meta).length > 0) pkg.metadata = meta;
  }
  if (f['allowed-tools'] !== undefined) pkg.allowed_tools = f['allowed-tools'];
  // SkillDesk's own fields from an export (the display name among them) win over the slug.
  Object.assign(pkg, skilldesk);
  pkg.artifacts = artifacts;
  Object.defineProperty(pkg, FRONTMATTER_NAME, { value: f.name, enumerable: false });
  Object.defineProperty(pkg, FRONTMATTER, { value: rawData, enumerable: false });
  return pkg;
}

/**
 * Where {@link agentSkillToPackage} keeps the frontmatter's `name` (the folder's slug), which the
 * Agent Skills naming rule is checked against when the package's name is a display name.
 */
export const FRONTMATTER_NAME: unique symbol = Symbol('frontmatter name');

/** Where {@link agentSkillToPackage} keeps the parsed frontmatter (its keys are checked). */
export const FRONTMATTER: unique symbol = Symbol('frontmatter');

/** The parsed frontmatter of a package read by {@link agentSkillToPackage}. */
export function agentSkillFrontmatter(raw: Record<string, unknown>): Record<string, unknown> {
  const f = (raw as { [FRONTMATTER]?: unknown })[FRONTMATTER];
  return f && typeof f === 'object' && !Array.isArray(f) ? (f as Record<string, unknown>) : {};
}

/** The frontmatter name of a package read by {@link agentSkillToPackage}, else its name. */
export function agentSkillName(raw: Record<string, unknown>): string {
  const n = (raw as { [FRONTMATTER_NAME]?: unknown })[FRONTMATTER_NAME] ?? raw.name;
  return typeof n === 'string' ? n : '';
}

/** If every file sits under one top folder that holds SKILL.md, strip that prefix. */
export function unwrapSingleFolder(files: FileMap): FileMap {
  if (files.has('SKILL.md')) return files;
  const tops = new Set([...files.keys()].map((p) => p.split('/')[0]));
  if (tops.size !== 1) return files;
  const [top] = [...tops];
  if (!files.has(`${top}/SKILL.md`)) return files;
  return subFiles(files, top!);
}

/** UTF-8 text, or null for binary content. */
function decodeText(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  try {
    // A BOM stays in the text, so the file is written back as it came.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
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
 * The files of a skill as an Agent Skills folder (see `agent-export.ts`): SKILL.md, a file per
 * artifact, and the manifest a re-import reads when the conventions alone would not restore it.
 */
export function skillToAgentFiles(skill: Skill): AgentFiles {
  return buildAgentFiles(skill);
}
