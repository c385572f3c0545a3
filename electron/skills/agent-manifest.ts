/**
 * What a SkillDesk export adds to an Agent Skills folder so that a re-import restores the skill as
 * it was, in places other tools ignore: the skill's own fields under `metadata.skilldesk` in the
 * SKILL.md frontmatter (the display name, tags, intent patterns, …), and `skilldesk.json` beside
 * SKILL.md naming the artifact each exported file holds (its kind, name, order, model variant and
 * metadata). A folder without them imports by the Agent Skills conventions.
 */
import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import { isExecutable } from './file-modes.js';
import type { PackageArtifact } from './package-schema.js';
import { decodeUtf8Strict } from './strict-utf8.js';
import type { FileMap } from './zip.js';

/** The manifest's file name, at the top of the skill folder. */
export const MANIFEST_FILE = 'skilldesk.json';
/** The key under the frontmatter's `metadata` that holds SkillDesk's own fields. */
export const METADATA_KEY = 'skilldesk';

/**
 * The package fields kept under `metadata.skilldesk` (`name` only when the display name is not
 * the folder's slug). Other keys there are ignored on import, so later versions may add some.
 */
export const SKILLDESK_FIELDS = [
  'name',
  'author',
  'tags',
  'intent_patterns',
  'trigger_phrases',
  'when',
  'modalities',
  'requires',
  'always_on',
  'source',
] as const;

const Entry = z
  .object({
    kind: z.string().min(1).max(64),
    name: z.string().min(1).max(200),
    ordinal: z.number().int().min(0).max(100_000),
    model_variant: z.string().min(1).max(64).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    /** A dspy_module's saved state (JSON), a file of its own. */
    state_file: z.string().min(1).max(500).optional(),
  })
  .strict();
/** One artifact in the manifest. */
export type ManifestEntry = z.infer<typeof Entry>;

const ManifestSchema = z
  .object({
    skilldesk_manifest: z.literal(1),
    /** The artifact whose content is SKILL.md's body (null: the body is empty and no artifact's). */
    body: Entry.nullable(),
    /** Exported file → the artifact it holds. */
    files: z.record(z.string(), Entry),
  })
  .strict();
/** The manifest of an exported folder. */
export type Manifest = z.infer<typeof ManifestSchema>;

/**
 * The folder's manifest, or null when it has none (a `skilldesk.json` that is not one of ours —
 * no `skilldesk_manifest` key — is an ordinary file). A manifest that is ours and broken is refused
 * with what to do.
 */
export function readManifest(files: FileMap, where: string): Manifest | null {
  const bytes = files.get(MANIFEST_FILE);
  if (!bytes) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(decodeUtf8Strict(bytes, `${where}/${MANIFEST_FILE}`));
  } catch {
    return null;
  }
  if (!raw || typeof raw !== 'object' || !('skilldesk_manifest' in raw)) return null;
  const r = ManifestSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new AppError(
      'INVALID_INPUT',
      `${where}/${MANIFEST_FILE}: ${i.path.join('.') || '(manifest)'}: ${i.message}; fix it, or delete ${MANIFEST_FILE} to import the folder as a plain Agent Skill`,
      { file: where, path: `${MANIFEST_FILE}:${i.path.join('.')}` },
    );
  }
  for (const [path, e] of Object.entries(r.data.files)) {
    for (const p of [path, e.state_file]) {
      if (p !== undefined && !files.has(p)) {
        throw new AppError(
          'INVALID_INPUT',
          `${where}/${MANIFEST_FILE} lists ${p}, which the folder does not hold; restore the file, or delete ${MANIFEST_FILE} to import the folder as a plain Agent Skill`,
          { file: where, path: p },
        );
      }
    }
  }
  return r.data;
}

/** One artifact from its manifest entry and its file's bytes. */
export function artifactFromEntry(e: ManifestEntry, content: string, files: FileMap): PackageArtifact {
  const a: Record<string, unknown> = { kind: e.kind, name: e.name, ordinal: e.ordinal, content };
  if (e.model_variant !== undefined) a.model_variant = e.model_variant;
  if (e.metadata !== undefined && e.metadata !== null) a.metadata = e.metadata;
  if (e.state_file !== undefined) {
    a.state_blob = files.get(e.state_file)!.toString('base64');
  }
  // The package schema checks the rest (kind names, metadata keys) as for any package.
  return a as PackageArtifact;
}

/** The manifest's artifacts for its files (the body's is built by the caller). */
export function manifestArtifacts(m: Manifest, files: FileMap, where: string): PackageArtifact[] {
  return Object.entries(m.files).map(([path, e]) => {
    const bytes = files.get(path)!;
    const binary = e.metadata?.encoding === 'base64';
    const content = binary ? bytes.toString('base64') : decodeKeepingBom(bytes, `${where}/${path}`);
    // The executable bit is the file's own (an export leaves it out of the manifest).
    const { executable: _x, ...meta } = e.metadata ?? {};
    const metadata = isExecutable(files, path) ? { ...meta, executable: true } : meta;
    const entry = Object.keys(metadata).length > 0 ? { ...e, metadata } : { ...e, metadata: undefined };
    return artifactFromEntry(entry, content, files);
  });
}

/** Strict UTF-8 text with a leading BOM kept (so the file is written back as it came). */
export function decodeKeepingBom(bytes: Buffer, file: string): string {
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return (bom ? '\uFEFF' : '') + decodeUtf8Strict(bytes, file);
}

/**
 * Split SkillDesk's own fields out of a frontmatter's `metadata` (under `metadata.skilldesk`):
 * returns the frontmatter without them and the fields found.
 */
export function takeSkillDeskFields(data: unknown): { data: unknown; fields: Record<string, unknown> } {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return { data, fields: {} };
  const d = data as Record<string, unknown>;
  const meta = d.metadata;
  if (!meta || typeof meta !== 'object' || Array.isArray(meta) || !(METADATA_KEY in meta))
    return { data, fields: {} };
  const { [METADATA_KEY]: sd, ...rest } = meta as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  if (sd && typeof sd === 'object' && !Array.isArray(sd)) {
    for (const k of SKILLDESK_FIELDS) {
      const v = (sd as Record<string, unknown>)[k];
      if (v !== undefined && v !== null) fields[k] = v;
    }
  }
  const out = { ...d };
  if (Object.keys(rest).length > 0) out.metadata = rest;
  else delete out.metadata;
  return { data: out, fields };
}
