import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { AppError } from '../contract/errors.js';
import type { CliContext } from './context.js';

/** Largest component the CLI reads (a JavaScript one is ~12 MB). */
const MAX_COMPONENT_BYTES = 64 * 1024 * 1024;

/** `skilldesk component build|inspect`: author WebAssembly components of the skill world. */
export function registerComponentCommands(program: Command, ctx: CliContext): void {
  const group = program
    .command('component')
    .description('WebAssembly components of the skilldesk:skill world');

  group
    .command('build')
    .description('build a component from a JavaScript module with componentize-js (offline)')
    .argument('<file>', 'an ES module exporting run(input) → string (throw to fail)')
    .requiredOption('--out <file>', 'where to write the .wasm component')
    .action(async (file: string, opts: { out: string }) => {
      const { buildComponentFromJs, componentHash, describeProblems, inspectComponentBytes } = await import(
        '../sandbox/index.js'
      );
      try {
        if (!statSync(resolve(file)).isFile()) throw new Error('not a file');
      } catch {
        throw new AppError('USAGE', `${file}: no such file`);
      }
      const built = await buildComponentFromJs(file);
      writeFileSync(resolve(opts.out), built.bytes);
      const { surface, problems } = inspectComponentBytes(built.bytes);
      const value = {
        out: opts.out,
        size: built.bytes.length,
        sha256: componentHash(built.bytes),
        imports: surface?.imports.map((i) => i.name) ?? [],
        ms: Math.round(built.ms),
        problems: problems.length > 0 ? [describeProblems(problems)] : [],
      };
      ctx.print(
        value,
        () =>
          `Built ${opts.out} (${(value.size / 1048576).toFixed(1)} MB, sha256 ${value.sha256.slice(0, 12)}…) in ${(built.ms / 1000).toFixed(1)} s; imports ${value.imports.join(', ') || 'nothing'}\n`,
      );
      if (problems.length > 0) ctx.setExitCode(1);
    });

  group
    .command('inspect')
    .description("show a component's imports, exports, size and hash, and whether the skill world accepts it")
    .argument('<file>', 'a .wasm component')
    .action(async (file: string) => {
      const { componentHash, describeProblems, inspectComponentBytes } = await import('../sandbox/index.js');
      let bytes: Uint8Array;
      try {
        if (statSync(resolve(file)).size > MAX_COMPONENT_BYTES)
          throw new AppError('TOO_LARGE', `${file}: larger than 64 MB`);
        bytes = new Uint8Array(readFileSync(resolve(file)));
      } catch (e) {
        if (e instanceof AppError) throw e;
        throw new AppError('USAGE', `${file}: no such file`);
      }
      const { surface, problems } = inspectComponentBytes(bytes);
      const value = {
        size: bytes.length,
        sha256: componentHash(bytes),
        imports: surface?.imports.map((i) => `${i.sort} ${i.name}`) ?? [],
        exports: surface?.exports.map((e) => `${e.sort} ${e.name}`) ?? [],
        accepted: problems.length === 0,
        problems: problems.length > 0 ? [describeProblems(problems)] : [],
      };
      ctx.print(value, () =>
        [
          `${file}: ${value.size} bytes, sha256 ${value.sha256}`,
          `imports: ${value.imports.join(', ') || 'nothing'}`,
          `exports: ${value.exports.join(', ') || 'nothing'}`,
          value.accepted ? 'accepted by the skilldesk:skill world' : `refused: ${value.problems.join('; ')}`,
          '',
        ].join('\n'),
      );
      if (!value.accepted) ctx.setExitCode(1);
    });
}
