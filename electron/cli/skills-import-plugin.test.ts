// Agent Plugins: `skills import PLUGIN_DIR` imports the plugin's skills through the ordinary
// import and adds its MCP servers to mcp.json disabled, until `skilldesk mcp enable NAME`.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli, tempDir } from '../test-support/index.js';

function write(root: string, rel: string, text: string): void {
  const file = join(root, rel);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
}

function skill(root: string, slug: string, description: string): void {
  write(
    root,
    `skills/${slug}/SKILL.md`,
    `---\nname: ${slug}\ndescription: ${description}\n---\nDo it well.\n`,
  );
}

/** A plugin in Claude Code's layout: .claude-plugin/plugin.json, skills/, .mcp.json. */
function plugin(): string {
  const root = join(tempDir(), 'widget-tools');
  write(root, '.claude-plugin/plugin.json', JSON.stringify({ name: 'widget-tools', version: '1.2.0' }));
  skill(root, 'widget-report', 'Write a report on the widget service health.');
  skill(root, 'widget-deploy', 'Deploy the widget service.');
  write(root, 'skills/README.md', 'not a skill\n');
  write(
    root,
    '.mcp.json',
    JSON.stringify({
      mcpServers: {
        'widget-db': {
          command: 'node',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the plugin's variable, written as plugins write it
          args: ['${CLAUDE_PLUGIN_ROOT}/servers/db.js', '--ro'],
          env: { WIDGET_MODE: 'read' },
        },
        'widget-api': { url: 'https://widgets.example.com/mcp' },
      },
    }),
  );
  return root;
}

describe('skills import of an Agent Plugin', () => {
  it('imports its skills and adds its MCP servers disabled, each enabled by name', async () => {
    const home = tempDir();
    const root = plugin();
    const r = await runCli(['--home', home, 'skills', 'import', root, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json() as {
      imported: Array<{ name: string; action: string }>;
      mcp_servers: Array<Record<string, unknown>>;
    };
    expect(out.imported.map((i) => i.name).sort()).toEqual([
      'widget-tools:widget-deploy',
      'widget-tools:widget-report',
    ]);
    expect(out.mcp_servers).toEqual([
      {
        name: 'widget-db',
        scope: 'account',
        transport: 'stdio',
        action: 'added',
        enable_command: 'skilldesk mcp enable widget-db',
      },
      {
        name: 'widget-api',
        scope: 'account',
        transport: 'http',
        action: 'added',
        enable_command: 'skilldesk mcp enable widget-api',
      },
    ]);
    // The text report names the command to enable each.
    const text = await runCli(['--home', tempDir(), 'skills', 'import', root]);
    expect(text.stdout).toContain(
      'MCP server widget-db: added disabled (account, stdio); enable it with: skilldesk mcp enable widget-db',
    );

    const servers = (await runCli(['--home', home, 'mcp', 'servers', '--json'])).json() as {
      servers: Array<{ name: string; disabled: boolean }>;
    };
    expect(servers.servers.map((s) => [s.name, s.disabled]).sort()).toEqual([
      ['widget-api', true],
      ['widget-db', true],
    ]);
    // The plugin's own folder is written in for ${CLAUDE_PLUGIN_ROOT}.
    const file = JSON.parse(readFileSync(join(home, 'mcp.json'), 'utf8'));
    expect(file.mcpServers['widget-db']).toEqual({
      command: 'node',
      args: [`${root}/servers/db.js`, '--ro'],
      env: { WIDGET_MODE: 'read' },
      disabled: true,
    });

    const en = await runCli(['--home', home, 'mcp', 'enable', 'widget-db', '--json']);
    expect(en.code, en.stderr).toBe(0);
    expect(en.json()).toEqual({ name: 'widget-db', scope: 'account', disabled: false });
    const after = JSON.parse(readFileSync(join(home, 'mcp.json'), 'utf8'));
    expect(after.mcpServers['widget-db'].disabled).toBeUndefined();
    expect(after.mcpServers['widget-api'].disabled).toBe(true);
    const missing = await runCli(['--home', home, 'mcp', 'enable', 'nope']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('skilldesk mcp servers');

    // A second import keeps the user's server (now enabled) as it is.
    const again = (await runCli(['--home', home, 'skills', 'import', root, '--json'])).json() as {
      mcp_servers: Array<{ name: string; action: string }>;
    };
    expect(again.mcp_servers.map((m) => m.action)).toEqual(['exists', 'exists']);
    expect(
      JSON.parse(readFileSync(join(home, 'mcp.json'), 'utf8')).mcpServers['widget-db'].disabled,
    ).toBeUndefined();
  });

  it('reads plugin.json at the top and mcp.json too; a bad server writes nothing', async () => {
    const root = join(tempDir(), 'flat');
    write(root, 'plugin.json', JSON.stringify({ name: 'flat' }));
    skill(root, 'flat-skill', 'A flat plugin skill.');
    write(root, 'mcp.json', JSON.stringify({ tool: { command: 'python3', args: ['-m', 'tool'] } }));
    const home = tempDir();
    const ok = await runCli(['--home', home, 'skills', 'import', root, '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json()).toMatchObject({
      imported: [{ name: 'flat:flat-skill' }],
      mcp_servers: [{ name: 'tool', action: 'added' }],
    });

    const bad = join(tempDir(), 'bad');
    write(bad, '.claude-plugin/plugin.json', JSON.stringify({ name: 'bad' }));
    skill(bad, 'bad-skill', 'Never imported.');
    write(bad, '.mcp.json', JSON.stringify({ mcpServers: { broken: { args: ['x'] } } }));
    const home2 = tempDir();
    const r = await runCli(['--home', home2, 'skills', 'import', bad]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('MCP server "broken"');
    const list = (await runCli(['--home', home2, 'skills', 'list', '--json'])).json() as {
      skills: Array<{ name: string }>;
    };
    expect(list.skills.map((s) => s.name)).not.toContain('bad-skill');

    // An mcp.json of the user's that cannot be read stops the import before a skill is written.
    const home3 = tempDir();
    writeFileSync(join(home3, 'mcp.json'), '{ not json');
    const unreadable = await runCli(['--home', home3, 'skills', 'import', root]);
    expect(unreadable.code).not.toBe(0);
    expect(readFileSync(join(home3, 'mcp.json'), 'utf8')).toBe('{ not json');
    const none = (await runCli(['--home', home3, 'skills', 'list', '--json'])).json() as {
      skills: Array<{ name: string }>;
    };
    expect(none.skills.map((s) => s.name)).not.toContain('flat-skill');

    // A skills path that leaves the plugin is refused.
    const outside = join(tempDir(), 'escape');
    write(outside, 'plugin.json', JSON.stringify({ name: 'escape', skills: '../elsewhere' }));
    const e = await runCli(['--home', tempDir(), 'skills', 'import', outside]);
    expect(e.code).not.toBe(0);
    expect(e.stderr).toContain('outside the plugin folder');
  });
});

// Anthropic's own plugins (fixtures copied from anthropics/claude-plugins-official, Apache-2.0).
const PLUGINS = join(PROJECT_ROOT, 'electron', 'skills', 'fixtures', 'anthropic-plugins');

describe('skills import of Anthropic plugins: names as Claude Code gives them', () => {
  it('keeps discord:access and telegram:access apart, by name everywhere', async () => {
    const home = tempDir();
    const d = await runCli(['--home', home, 'skills', 'import', join(PLUGINS, 'discord'), '--json']);
    expect(d.code, d.stderr).toBe(0);
    const t = await runCli(['--home', home, 'skills', 'import', join(PLUGINS, 'telegram'), '--json']);
    expect(t.code, t.stderr).toBe(0);
    expect((t.json() as { imported: Array<{ name: string; action: string }> }).imported).toEqual([
      expect.objectContaining({ name: 'telegram:access', action: 'created' }),
      expect.objectContaining({ name: 'telegram:configure', action: 'created' }),
    ]);
    const list = (await runCli(['--home', home, 'skills', 'list', '--json'])).json() as {
      skills: Array<{ name: string }>;
    };
    expect(
      list.skills
        .map((s) => s.name)
        .filter((n) => n.includes(':'))
        .sort(),
    ).toEqual(['discord:access', 'discord:configure', 'telegram:access', 'telegram:configure']);
    // Each is shown, matched and exported under its own name, with its own plugin's text.
    const show = await runCli(['--home', home, 'skills', 'show', 'discord:access', '--json']);
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.stringify(show.json())).toContain('Discord channel access');
    const tshow = await runCli(['--home', home, 'skills', 'show', 'telegram:access', '--json']);
    expect(JSON.stringify(tshow.json())).toContain('Telegram');
    const match = await runCli(['--home', home, 'skills', 'match', 'approve a telegram pairing', '--json']);
    expect(match.code, match.stderr).toBe(0);
    expect(JSON.stringify(match.json())).toContain('telegram:access');
    for (const plugin of ['discord', 'telegram']) {
      const out = join(tempDir(), plugin);
      const x = await runCli([
        '--home',
        home,
        'skills',
        'export',
        `${plugin}:access`,
        '--format',
        'agent-skill',
        '-o',
        out,
      ]);
      expect(x.code, x.stderr).toBe(0);
      // The author's folder, byte for byte: its own name, no manifest added.
      expect(readdirSync(out)).toEqual(['SKILL.md']);
      expect(readFileSync(join(out, 'SKILL.md'))).toEqual(
        readFileSync(join(PLUGINS, plugin, 'skills', 'access', 'SKILL.md')),
      );
    }
  });

  it('names every part of a plugin it does not install', async () => {
    const r = await runCli(['--home', tempDir(), 'skills', 'import', join(PLUGINS, 'discord'), '--json']);
    const out = r.json() as {
      plugins: Array<{
        name: string;
        skills: string[];
        not_installed: Array<{ path: string; part: string }>;
      }>;
    };
    expect(out.plugins[0]!.skills).toEqual(['discord:access', 'discord:configure']);
    expect(out.plugins[0]!.not_installed.map((p) => p.path)).toEqual([
      '.npmrc',
      'ACCESS.md',
      'package.json',
      'server.ts',
    ]);
    const ex = await runCli(['--home', tempDir(), 'skills', 'import', join(PLUGINS, 'example-plugin')]);
    expect(ex.code, ex.stderr).toBe(0);
    expect(ex.stdout).toContain(
      'commands/example-command.md (command): slash commands are a Claude Code feature',
    );

    // Agents, hooks and what plugin.json declares elsewhere are named too.
    const root = join(tempDir(), 'kit');
    write(root, '.claude-plugin/plugin.json', JSON.stringify({ name: 'kit', commands: './extra/cmds' }));
    skill(root, 'review', 'Review a change.');
    write(root, 'agents/reviewer.md', '---\nname: reviewer\n---\n');
    write(root, 'hooks/hooks.json', '{"hooks":{}}');
    write(root, 'extra/cmds/ship.md', 'Ship it.\n');
    write(root, 'output-styles/terse.md', 'Be terse.\n');
    write(root, 'LICENSE', 'MIT\n');
    const k = (await runCli(['--home', tempDir(), 'skills', 'import', root, '--json'])).json() as typeof out;
    expect(k.plugins[0]!.not_installed.map((p) => `${p.part} ${p.path}`)).toEqual([
      'command extra/cmds/ship.md',
      'agent agents/reviewer.md',
      'hook hooks/hooks.json',
      'output style output-styles/terse.md',
    ]);
  });
});
