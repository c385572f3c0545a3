import type { Readable } from 'node:stream';

/** Where a CLI command writes; tests pass buffers, the bin passes the process streams. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdin: Readable;
  /** True when stdout is a terminal (enables colour and progress). */
  isTty: boolean;
}

/** Global options shared by every command (`--home`, `--workspace`, `--json`). */
export interface GlobalOptions {
  home?: string;
  workspace?: string;
  json: boolean;
}

/** What every command receives. */
export interface CliContext {
  io: CliIo;
  env: NodeJS.ProcessEnv;
  /** The global options, resolved after parsing (read them inside action handlers). */
  globals: () => GlobalOptions;
  /** Print a value: JSON (one line) with --json, otherwise the human text. */
  print: (value: unknown, human: () => string) => void;
  /** Let the command finish normally but exit with `code` (the highest one set wins). */
  setExitCode: (code: number) => void;
}

/** A command group: adds its commands to the program. */
export type RegisterCommands = (program: import('commander').Command, ctx: CliContext) => void;

/** Exit codes of the CLI contract. */
export const EXIT = { OK: 0, FAILURE: 1, USAGE: 2 } as const;
