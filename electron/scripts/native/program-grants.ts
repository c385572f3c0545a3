import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../contract/errors.js';
import { writeFileAtomic } from '../../store/index.js';
import { programExecutables } from './exec-allow.js';
import { findProgram, KNOWN_PROGRAMS } from './programs.js';

/**
 * Which external programs (LibreOffice's `soffice`, Poppler's `pdftoppm`, `qpdf`…) a skill's
 * scripts may start in the OS sandbox, granted by the user per skill and program like a network
 * grant: kept by skill name in the account folder, shown with the skill's other permissions,
 * revocable. A program not granted is covered in the sandbox by a stand-in that fails naming the
 * program and the command that grants it, so a script never reaches it unasked.
 */

/** The file of the program grants. */
export const PROGRAM_GRANTS_FILE = 'skill-programs.json';

/** One granted program. */
export interface ProgramGrant {
  program: string;
  granted_at: string;
}

const PROGRAM_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;

function read(home: string): Record<string, Record<string, string>> {
  const file = join(home, PROGRAM_GRANTS_FILE);
  if (!existsSync(file)) return {};
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as {
      skills?: Record<string, Record<string, unknown>>;
    };
    const out: Record<string, Record<string, string>> = {};
    for (const [skill, programs] of Object.entries(json.skills ?? {})) {
      if (!programs || typeof programs !== 'object') continue;
      const kept: Record<string, string> = {};
      for (const [p, at] of Object.entries(programs))
        if (PROGRAM_NAME.test(p) && typeof at === 'string') kept[p] = at;
      out[skill] = kept;
    }
    return out;
  } catch {
    throw new AppError(
      'STORE_FAILED',
      `${file} is not valid JSON: fix or delete it (program grants are kept there)`,
      {
        file,
      },
    );
  }
}

function write(home: string, all: Record<string, Record<string, string>>): void {
  writeFileAtomic(
    join(home, PROGRAM_GRANTS_FILE),
    `${JSON.stringify({ version: 1, skills: all }, null, 2)}\n`,
  );
}

/** The programs granted to a skill, by name. */
export function programGrants(home: string, skill: string): ProgramGrant[] {
  return Object.entries(read(home)[skill] ?? {})
    .map(([program, granted_at]) => ({ program, granted_at }))
    .sort((a, b) => a.program.localeCompare(b.program));
}

/** Grant programs to a skill (a bad program name is refused). Returns the skill's grants. */
export function grantPrograms(home: string, skill: string, programs: string[]): ProgramGrant[] {
  for (const p of programs)
    if (!PROGRAM_NAME.test(p))
      throw new AppError(
        'INVALID_INPUT',
        `"${p}" is not a program name (give its command name, as soffice or pdftoppm)`,
      );
  const all = read(home);
  const now = new Date().toISOString();
  all[skill] = { ...(all[skill] ?? {}) };
  for (const p of programs) all[skill][p] ??= now;
  write(home, all);
  return programGrants(home, skill);
}

/** Take grants back; true when one was there. */
export function revokePrograms(home: string, skill: string, programs: string[]): boolean {
  const all = read(home);
  const mine = all[skill];
  if (!mine) return false;
  let changed = false;
  for (const p of programs)
    if (p in mine) {
      delete mine[p];
      changed = true;
    }
  if (Object.keys(mine).length === 0) delete all[skill];
  if (changed) write(home, all);
  return changed;
}

/** The command that grants `program` to `skill`, as errors and hints name it. */
export function grantProgramCommand(skill: string, program: string): string {
  return `skilldesk skills programs grant ${JSON.stringify(skill)} ${program}`;
}

/** The mark a stand-in prints first, so a run's hint can tell a refusal from the script's own error. */
export const PROGRAM_REFUSED_MARK = 'skilldesk: program not granted:';

/**
 * The programs to cover in a skill's sandbox: every program SkillDesk knows skills to start, plus
 * `extra` (those the skill's scripts were seen to start), that is installed here and not granted;
 * each with the host paths it is reached by (its PATH entry and the file that is) and the stand-in's
 * text. A stand-in covers the file itself, so a script cannot reach the program by another name.
 */
export function deniedPrograms(
  home: string,
  skill: string,
  extra: string[] = [],
  find = findProgram,
): Array<{ program: string; paths: string[]; script: string }> {
  const granted = new Set(programGrants(home, skill).map((g) => g.program));
  const names = [...new Set([...Object.keys(KNOWN_PROGRAMS), ...extra])].filter((p) => !granted.has(p));
  // A granted program's file stays reachable under every name it has: Debian's `libreoffice` and
  // `soffice` are links to one script, and covering the ungranted name's file would cover the
  // granted one too (a granted soffice then failed naming libreoffice).
  const grantedFiles = new Set<string>();
  for (const p of granted) {
    const found = find(p);
    if (found) grantedFiles.add(realOrSelf(found));
  }
  // Names that lead to one file share one stand-in, which names them all: the file is what is
  // covered, so whichever name the script used, the refusal says which grant lets it run.
  const byFile = new Map<string, { names: string[]; paths: Set<string> }>();
  for (const program of names) {
    const found = find(program);
    if (!found) continue;
    const file = realOrSelf(found);
    if (grantedFiles.has(file)) continue;
    const g = byFile.get(file) ?? { names: [], paths: new Set<string>([file]) };
    g.names.push(program);
    g.paths.add(found);
    byFile.set(file, g);
  }
  const out: Array<{ program: string; paths: string[]; script: string }> = [];
  for (const { names: same, paths } of byFile.values()) {
    const program = same[0]!;
    const also = same.length > 1 ? ` (also called ${same.slice(1).join(', ')})` : '';
    const message = `${PROGRAM_REFUSED_MARK} ${program}${also} is not granted to skill ${JSON.stringify(skill)}; grant it with: ${grantProgramCommand(skill, program)}`;
    out.push({
      program,
      paths: [...paths],
      script: `#!/bin/sh\necho '${message.replace(/'/g, `'\\''`)}' >&2\nexit 126\n`,
    });
  }
  return out;
}

/**
 * What the sandbox lets a skill's run execute for its granted programs (see `exec-allow.ts`): each
 * granted program found here, with a script's interpreter and a program's own folder when it lives
 * outside the PATH folders.
 */
export function grantedExecutables(home: string, skill: string, find = findProgram): string[] {
  const out = new Set<string>();
  for (const g of programGrants(home, skill)) {
    const found = find(g.program);
    if (found) for (const p of programExecutables(found)) out.add(p);
  }
  return [...out].sort();
}

/** Where a program's entry leads (links resolved), or the entry itself when that cannot be read. */
function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The refusal a run's output carries when it started a program not granted, as a hint; else undefined. */
export function programRefusedHint(output: string): string | undefined {
  const i = output.indexOf(PROGRAM_REFUSED_MARK);
  if (i < 0) return undefined;
  const line = output
    .slice(i + PROGRAM_REFUSED_MARK.length)
    .split('\n')[0]!
    .trim();
  return `the script started a program this skill is not granted: ${line}`;
}
