import type { Command } from 'commander';
import { AppError } from '../contract/errors.js';
import type { CliContext } from './context.js';

async function readStdin(ctx: CliContext): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of ctx.io.stdin) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(String(c));
    size += b.length;
    if (size > 64 * 1024) throw new AppError('USAGE', 'the secret on stdin is longer than 64 KiB');
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * `skills grant|revoke NAME HOST...` and `skills secret set NAME VAR` (value on stdin, never an
 * argument, so it stays out of the shell's history and the process list). The command line is the
 * main process: it writes the account folder's grants file and secret store directly.
 */
export function registerSkillAccessCommands(program: Command, ctx: CliContext): void {
  const skills = program.commands.find((c) => c.name() === 'skills');
  if (!skills) return;
  const access = async () => {
    const { createFileSecretStore, createSkillAccess } = await import('../settings/index.js');
    const { resolveHome } = await import('../store/index.js');
    const home = resolveHome(ctx.globals().home, ctx.env);
    return createSkillAccess({ home, secrets: createFileSecretStore(home), env: ctx.env });
  };
  skills
    .command('grant')
    .description("let an LLM skill's tools reach these hosts (name or address, optionally :port)")
    .argument('<name>', 'skill name')
    .argument('<hosts...>', 'hosts such as api.example.com or 127.0.0.1:8080')
    .action(async (name: string, hosts: string[]) => {
      const granted = (await access()).grant(name, hosts);
      ctx.print({ skill: name, granted_hosts: granted }, () => `${name} may reach: ${granted.join(', ')}`);
    });
  skills
    .command('revoke')
    .description('take back hosts granted to a skill')
    .argument('<name>', 'skill name')
    .argument('<hosts...>', 'hosts to take back')
    .action(async (name: string, hosts: string[]) => {
      const granted = (await access()).revoke(name, hosts);
      ctx.print(
        { skill: name, granted_hosts: granted },
        () => `${name} may reach: ${granted.length ? granted.join(', ') : 'nothing'}`,
      );
    });
  const secret = skills.command('secret').description("an LLM skill's tool_env secrets");
  secret
    .command('set')
    .description(
      'store a secret the skill names in tool_env; the value is read from stdin (empty removes it)',
    )
    .argument('<name>', 'skill name')
    .argument('<var>', 'the environment variable its tools read')
    .action(async (name: string, variable: string) => {
      const value = await readStdin(ctx);
      (await access()).setSecret(name, variable, value);
      const set = value.trim() !== '';
      ctx.print({ skill: name, variable, stored: set }, () =>
        set ? `stored ${variable} for ${name}` : `removed ${variable} of ${name}`,
      );
    });
}
