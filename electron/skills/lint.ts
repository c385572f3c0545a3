import { Ajv } from 'ajv';
import { declaredAccess } from '../kinds/index.js';
import type { PackageIssue, SkillPackage } from './package-schema.js';

// Compiles schemas only (never validates data here): strict off, like the assertion runner.
const ajv = new Ajv({ allErrors: false, strict: false, validateSchema: true });

const AGENT_SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * What the Agent Skills standard says is wrong with a `SKILL.md` name (lowercase letters, digits
 * and single hyphens, at most 64, equal to its folder's name), or null when it complies. The
 * client guide says to warn and still load such a skill, so this is a warning, never an error.
 */
export function agentSkillNameProblem(name: string, folder?: string | null): string | null {
  if (name.length > 64) return `"${name}" is longer than the 64 characters the Agent Skills standard allows`;
  if (!AGENT_SKILL_NAME.test(name)) {
    return `"${name}" breaks the Agent Skills naming rule (lowercase letters, digits and single hyphens, no hyphen at either end)`;
  }
  if (folder && folder !== name) {
    return `"${name}" differs from its folder "${folder}"; the Agent Skills standard wants them equal`;
  }
  return null;
}

/** Frontmatter keys the Agent Skills reference validator accepts; it rejects any other. */
const STANDARD_KEYS = new Set([
  'name',
  'description',
  'license',
  'allowed-tools',
  'metadata',
  'compatibility',
]);

/**
 * What `skills-ref validate` (the Agent Skills reference validator) would reject in the skill's
 * Agent Skills form, as warnings: SkillDesk keeps such a skill (its own limits are wider) and an
 * export writes it as it is. `frontmatter` is an imported SKILL.md's own frontmatter, whose keys
 * beyond the standard's (Claude Code's `argument-hint`, a `mode`) are named.
 */
export function agentSkillWarnings(pkg: SkillPackage, frontmatter?: Record<string, unknown>): PackageIssue[] {
  const out: PackageIssue[] = [];
  if (pkg.description.length > 1024) {
    out.push({
      path: 'description',
      message: `is ${pkg.description.length.toLocaleString('en-US')} characters; the Agent Skills standard allows 1,024, so skills-ref validate rejects the exported SKILL.md`,
    });
  }
  const extra = Object.keys(frontmatter ?? {}).filter((k) => !STANDARD_KEYS.has(k));
  if (extra.length > 0) {
    out.push({
      path: 'frontmatter',
      message: `has ${extra.map((k) => `"${k}"`).join(', ')} beyond the Agent Skills standard's keys; kept (and exported as written), though skills-ref validate rejects them`,
    });
  }
  return out;
}

/**
 * Problems a valid package may still have that do not stop it being saved: they surface when it
 * runs. Today: a structural assertion whose JSON Schema does not compile (the run would report
 * every output as failing). Paths are the package's JSON paths.
 */
export function packageWarnings(pkg: SkillPackage): PackageIssue[] {
  const out: PackageIssue[] = networkNotices(pkg);
  pkg.artifacts.forEach((a, i) => {
    const assertions = a.metadata?.assertions;
    if (!Array.isArray(assertions)) return;
    assertions.forEach((as: unknown, j) => {
      if (!as || typeof as !== 'object') return;
      const x = as as { type?: unknown; schema?: unknown };
      if (x.type !== 'structural') return;
      try {
        ajv.compile(x.schema as object);
      } catch (e) {
        out.push({
          path: `artifacts[${i}].metadata.assertions[${j}].schema`,
          message: `the JSON Schema does not compile (${firstLine((e as Error).message)}); the assertion will fail every run`,
        });
      }
    });
  });
  return out;
}

/**
 * Shown at install: the hosts an LLM skill's tools ask to reach, which stay closed until the user
 * grants them, with the command that does.
 */
export function networkNotices(pkg: SkillPackage): PackageIssue[] {
  const out: PackageIssue[] = [];
  pkg.artifacts.forEach((a, i) => {
    const network = declaredAccess(a).network;
    if (network.length === 0) return;
    out.push({
      path: `artifacts[${i}].metadata.network`,
      message: `its tools ask to reach ${network.join(', ')}; nothing is reachable until you grant it: skilldesk skills grant ${JSON.stringify(pkg.name)} ${network.join(' ')}`,
    });
  });
  return out;
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.slice(0, 300);
}
