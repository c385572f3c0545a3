/**
 * Tool approvals on the terminal: while a command runs a turn, each
 * `tools/approval-requested` is answered — `--yes` allows every call, a run without a terminal
 * denies (scripts must say `--yes`), and otherwise the user is asked on stderr.
 */
import { createInterface } from 'node:readline';
import {
  type ApprovalDecision,
  type ApprovalRequestedEvent,
  BUILTIN_TOOL_SERVER,
  SKILL_SERVER,
} from '../contract/tools.js';
import type { CoreClient } from '../transport/index.js';
import type { CliContext } from './context.js';

/** Read one answer from the user: y (once), c (this chat), a (always), anything else denies. */
export function parseApprovalAnswer(line: string): ApprovalDecision {
  const a = line.trim().toLowerCase();
  if (a === 'y' || a === 'yes' || a === 'o' || a === 'once') return 'once';
  if (a === 'c' || a === 'chat') return 'chat';
  if (a === 'a' || a === 'always') return 'always';
  return 'deny';
}

/** The tool in words: an MCP server's tool, or a skill with side effects (server `skill`). */
function what(e: ApprovalRequestedEvent): string {
  if (e.server === SKILL_SERVER) return `skill "${e.server_tool}"`;
  if (e.server === BUILTIN_TOOL_SERVER) return e.server_tool;
  return `${e.server_tool} (MCP server ${e.server})`;
}

function argsLine(e: ApprovalRequestedEvent): string {
  // Code the model wants to run is shown whole, as written: it is what the user is asked about.
  const code = (e.args as { code?: unknown } | undefined)?.code;
  if (e.server === BUILTIN_TOOL_SERVER && typeof code === 'string')
    return `this code:\n${code.replace(/^/gm, '    ')}\n`;
  const s = JSON.stringify(e.args ?? {});
  return s.length > 400 ? `${s.slice(0, 400)}…` : s;
}

/**
 * Answer the approvals of this command's turns until the returned function is called. Requests
 * are asked one at a time, in order.
 */
export function answerApprovals(c: CoreClient, ctx: CliContext, opts: { yes: boolean }): () => void {
  const stdin = ctx.io.stdin as NodeJS.ReadableStream & { isTTY?: boolean };
  const interactive = ctx.io.isTty && stdin.isTTY === true;
  let queue = Promise.resolve();
  let rl: ReturnType<typeof createInterface> | null = null;
  const ask = (e: ApprovalRequestedEvent) =>
    new Promise<ApprovalDecision>((resolve) => {
      rl ??= createInterface({ input: stdin, terminal: false });
      ctx.io.stderr(
        `\n? ${what(e)} wants to run with ${argsLine(e)}\n${(e.server === SKILL_SERVER || e.server === BUILTIN_TOOL_SERVER) && e.description ? `  ${e.description}\n` : ''}  allow [y]es once, for this [c]hat, [a]lways for this tool, or [N]o: `,
      );
      rl.once('line', (line) => resolve(parseApprovalAnswer(line)));
    });
  const stop = c.subscribe('tools/approval-requested', (e) => {
    queue = queue.then(async () => {
      let decision: ApprovalDecision;
      if (opts.yes) decision = 'once';
      else if (!interactive) {
        decision = 'deny';
        ctx.io.stderr(`denied ${what(e)}: no terminal to ask on; run with --yes to allow tool calls\n`);
      } else decision = await ask(e);
      await c.call('tools/answer-approval', { approval_id: e.approval_id, decision });
    });
  });
  return () => {
    stop();
    rl?.close();
  };
}
