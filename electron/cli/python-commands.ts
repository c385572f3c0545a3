import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { FullPythonView, GetPythonRuntimeRes, PythonNetworkRes } from '../contract/python.js';
import type { CliContext } from './context.js';
import { withClient } from './host.js';

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

function fullText(f: FullPythonView): string {
  const lines = [
    `Full Python: ${f.unavailable ? `not available here (${f.unavailable})` : f.installed ? 'installed' : `not installed yet (${mb(f.missing_bytes)} to download on first use)`}`,
    `  packages: ${f.packages.join(', ')}`,
    `  wheels: ${f.wheels.join(' ')}`,
  ];
  if (f.added.length) lines.push(`  added by you: ${f.added.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

function runtimeText(r: GetPythonRuntimeRes): string {
  const lvl = (v: string | null) => v ?? '-';
  return `run_python runs in ${r.runtime === 'full' ? 'Full Python' : 'Pyodide'} (from ${r.from}; settings ${lvl(r.settings)}, workspace ${lvl(r.workspace)}, chat ${lvl(r.chat)})\n${fullText(r.full)}`;
}

/** `skilldesk python …`: run_python's runtime per level, and Full Python's environment. */
export function registerPythonCommands(program: Command, ctx: CliContext): void {
  const py = program
    .command('python')
    .description('run_python’s runtime (Pyodide or Full Python) and Full Python’s packages');

  py.command('runtime')
    .description(
      'show the runtime run_python uses, or choose it: pyodide, full, or default (follow the level above) at --level settings (default), workspace or chat',
    )
    .argument('[runtime]', 'pyodide | full | default')
    .option('--level <level>', 'settings | workspace | chat', 'settings')
    .option('--chat <session_id>', 'the chat (for --level chat, or to show a chat’s runtime)')
    .action(async (runtime: string | undefined, o: { level: string; chat?: string }) => {
      if (runtime !== undefined && !['pyodide', 'full', 'default'].includes(runtime))
        throw new InvalidArgumentError(`runtime "${runtime}" is not one of: pyodide, full, default`);
      if (!['settings', 'workspace', 'chat'].includes(o.level))
        throw new InvalidArgumentError(`--level "${o.level}" is not one of: settings, workspace, chat`);
      await withClient(ctx, async (c) => {
        const r =
          runtime === undefined
            ? await c.invoke('python/get-runtime', o.chat ? { session_id: o.chat } : {})
            : await c.invoke('python/set-runtime', {
                level: o.level as 'settings' | 'workspace' | 'chat',
                ...(o.chat ? { session_id: o.chat } : {}),
                runtime: runtime === 'default' ? null : (runtime as 'pyodide' | 'full'),
              });
        ctx.print(r, () => runtimeText(r));
      });
    });

  const net = py
    .command('network')
    .description(
      'the hosts a chat’s run_python code may reach (https, through the app; Pyodide only): none unless allowed here',
    );
  const netText = (r: PythonNetworkRes) =>
    r.hosts.length
      ? `run_python in chat ${r.session_id} may reach: ${r.hosts.join(', ')}\n`
      : `run_python in chat ${r.session_id} has no network\n`;
  const change = async (chat: string, next: (hosts: string[]) => string[]) => {
    await withClient(ctx, async (c) => {
      const cur = await c.invoke('python/get-network', { session_id: chat });
      const r = await c.invoke('python/set-network', { session_id: chat, hosts: next(cur.hosts) });
      ctx.print(r, () => netText(r));
    });
  };
  const chatOption = ['--chat <session_id>', 'the chat'] as const;
  net
    .command('list', { isDefault: true })
    .description('list the hosts the chat allows')
    .requiredOption(...chatOption)
    .action(async (o: { chat: string }) => {
      await withClient(ctx, async (c) => {
        const r = await c.invoke('python/get-network', { session_id: o.chat });
        ctx.print(r, () => netText(r));
      });
    });
  net
    .command('allow')
    .description('let the chat’s run_python code reach these hosts (host or host:port; https only)')
    .argument('<hosts...>', 'e.g. api.example.com or data.example.org:8443')
    .requiredOption(...chatOption)
    .action((hosts: string[], o: { chat: string }) => change(o.chat, (cur) => [...cur, ...hosts]));
  net
    .command('deny')
    .description('take hosts back')
    .argument('<hosts...>')
    .requiredOption(...chatOption)
    .action((hosts: string[], o: { chat: string }) => {
      const gone = new Set(hosts.map((h) => h.trim().toLowerCase()));
      return change(o.chat, (cur) => cur.filter((h) => !gone.has(h)));
    });
  net
    .command('clear')
    .description('take every host back: no network')
    .requiredOption(...chatOption)
    .action((o: { chat: string }) => change(o.chat, () => []));

  py.command('install')
    .description('install Full Python’s packages now (they are otherwise installed by the first run)')
    .action(async () => {
      const g = ctx.globals();
      await withClient(ctx, async (c) => {
        const stop = c.subscribe('progress/task-updated', (t) => {
          if (t.kind === 'python' && !g.json && t.detail) ctx.io.stderr(`${t.detail}\n`);
        });
        try {
          const f = await c.invoke('python/install', {});
          ctx.print(f, () => fullText(f));
        } finally {
          stop();
        }
      });
    });

  const pkgs = py.command('packages').description('the packages of Full Python');
  pkgs
    .command('list', { isDefault: true })
    .description('list Full Python’s packages (the lock’s and those you added)')
    .action(async () => {
      await withClient(ctx, async (c) => {
        const r = await c.invoke('python/get-runtime', {});
        ctx.print(r.full, () => fullText(r.full));
      });
    });
  pkgs
    .command('add')
    .description(
      'add packages to Full Python (wheels only, fitting the pinned ones; installed by the next run)',
    )
    .argument('<requirements...>', 'requirement lines, e.g. seaborn or "statsmodels==0.14.*"')
    .action(async (requirements: string[]) => {
      await withClient(ctx, async (c) => {
        const f = await c.invoke('python/add-packages', { requirements });
        ctx.print(f, () => fullText(f));
      });
    });
  pkgs
    .command('remove')
    .description('remove packages you added to Full Python, by name')
    .argument('<names...>')
    .action(async (names: string[]) => {
      await withClient(ctx, async (c) => {
        const f = await c.invoke('python/remove-packages', { names });
        ctx.print(f, () => fullText(f));
      });
    });
}
