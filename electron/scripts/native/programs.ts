import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ProgramUse } from './imports.js';

/**
 * Programs a skill's scripts start outside Python (LibreOffice's `soffice`, Poppler's `pdftoppm`):
 * found on the host or not, said in words with how to get them. They run inside the OS sandbox
 * with the script (read-only system, no network, the run's files only); a missing one is named on
 * the skill page, in the install report and in the hint of a run that failed for lack of it.
 */

/** What SkillDesk knows of a program the skills people install call. */
interface KnownProgram {
  /** The product the user installs. */
  product: string;
  /** How to install it, in the package managers' words. */
  install: string;
}

const LIBREOFFICE: KnownProgram = {
  product: 'LibreOffice',
  install:
    'apt install libreoffice-writer-nogui (Calc, Impress: libreoffice-calc-nogui, libreoffice-impress-nogui); dnf install libreoffice; brew install --cask libreoffice',
};
const POPPLER: KnownProgram = {
  product: 'Poppler',
  install: 'apt install poppler-utils; dnf install poppler-utils; brew install poppler',
};

/** Programs with a product name and an install hint; any other program is still found or not. */
export const KNOWN_PROGRAMS: Readonly<Record<string, KnownProgram>> = {
  soffice: LIBREOFFICE,
  libreoffice: LIBREOFFICE,
  pdftoppm: POPPLER,
  pdftotext: POPPLER,
  pdfinfo: POPPLER,
  pdfimages: POPPLER,
  pdftocairo: POPPLER,
  qpdf: { product: 'qpdf', install: 'apt install qpdf; dnf install qpdf; brew install qpdf' },
  gs: { product: 'Ghostscript', install: 'apt install ghostscript; brew install ghostscript' },
  tesseract: {
    product: 'Tesseract OCR',
    install: 'apt install tesseract-ocr; dnf install tesseract; brew install tesseract',
  },
  pandoc: { product: 'Pandoc', install: 'apt install pandoc; dnf install pandoc; brew install pandoc' },
  ffmpeg: { product: 'FFmpeg', install: 'apt install ffmpeg; brew install ffmpeg' },
  ffprobe: { product: 'FFmpeg', install: 'apt install ffmpeg; brew install ffmpeg' },
  magick: { product: 'ImageMagick', install: 'apt install imagemagick; brew install imagemagick' },
  convert: { product: 'ImageMagick', install: 'apt install imagemagick; brew install imagemagick' },
  node: { product: 'Node.js', install: 'https://nodejs.org or your package manager' },
};

/** One program a skill's scripts start, as found on this computer. */
export interface SkillProgram {
  program: string;
  /** The product it belongs to, when SkillDesk knows it (`LibreOffice`). */
  product?: string;
  /** Where it is on this computer, or null when it is not installed (not on PATH). */
  path: string | null;
  /** How to install it, when missing and known. */
  install?: string;
  /** The skill's scripts that start it. */
  files: string[];
}

/** The first executable `name` on the host's PATH (and the usual system folders), or null. */
export function findProgram(name: string, pathEnv = process.env.PATH ?? ''): string | null {
  const dirs = [...pathEnv.split(delimiter), '/usr/local/bin', '/usr/bin', '/bin'];
  for (const dir of dirs) {
    if (!dir.startsWith('/')) continue;
    const p = join(dir, name);
    try {
      if (!statSync(p).isFile()) continue;
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

/** Each program the scan found, located on this computer and described. */
export function locatePrograms(uses: ProgramUse[], find = findProgram): SkillProgram[] {
  return uses.map(({ program, files }) => {
    const known = KNOWN_PROGRAMS[program];
    const path = find(program);
    return {
      program,
      ...(known ? { product: known.product } : {}),
      path,
      ...(path === null && known ? { install: known.install } : {}),
      files,
    };
  });
}

/** "soffice (LibreOffice)" */
function named(p: Pick<SkillProgram, 'program' | 'product'>): string {
  return p.product && p.product.toLowerCase() !== p.program ? `${p.program} (${p.product})` : p.program;
}

/** One sentence on the programs that are missing, or undefined when all are there. */
export function missingProgramsSentence(programs: SkillProgram[]): string | undefined {
  const missing = programs.filter((p) => p.path === null);
  if (missing.length === 0) return undefined;
  const parts = missing.map(
    (p) =>
      `${named(p)}, which ${p.files.join(', ')} ${p.files.length === 1 ? 'starts' : 'start'}${p.install ? ` (install: ${p.install})` : ''}`,
  );
  return `not installed on this computer: ${parts.join('; ')}. Those scripts fail until it is installed; the others run.`;
}

/**
 * A hint for a run that failed because a program is missing: Python's `FileNotFoundError` names
 * the command it could not start (in the run's stderr, or its stdout when the script printed it). Only a program that really is missing on the host is named.
 */
export function missingProgramHint(output: string, find = findProgram): string | undefined {
  // Python words it so whether the script let the error through or printed it itself.
  const m = /\[Errno 2\] No such file or directory: '([^'/\s]{1,64})'/.exec(output);
  const program = m?.[1];
  if (!program || find(program) !== null) return undefined;
  const known = KNOWN_PROGRAMS[program];
  return `the script starts ${named({ program, product: known?.product })}, which is not installed on this computer${known ? `: ${known.install}` : ''}. It runs inside the sandbox once installed.`;
}
