import {
  createSandboxHost,
  type HttpLogEntry,
  httpRequest,
  runSkillScript,
  type ScriptFile,
} from '../../sandbox/index.js';
import type { KindContext, SandboxRuntime, ToolScriptRequest, ToolScriptResult } from '../types.js';

/**
 * The sandbox side of an LLM skill's tools: the tool's `.py` file runs with the skill's files
 * read-only as its working folder, only the opted-in secrets as its environment, and the network
 * only through `http_request`, made by this (main) process for the hosts granted to the skill.
 */
export async function runToolScript(
  sandbox: SandboxRuntime,
  req: ToolScriptRequest,
  ctx: KindContext,
): Promise<ToolScriptResult> {
  const files: ScriptFile[] = [];
  for (const a of ctx.artifacts) {
    const path =
      typeof a.metadata?.path === 'string' ? a.metadata.path : a.kind === 'resource' ? a.name : null;
    if (!path) continue;
    const bytes =
      a.metadata?.encoding === 'base64' ? Buffer.from(a.content, 'base64') : Buffer.from(a.content, 'utf8');
    files.push({ path: path.replace(/^(?:\.\/)+/, ''), bytes: new Uint8Array(bytes) });
  }
  const http: HttpLogEntry[] = [];
  const host = createSandboxHost({
    http: (input) =>
      httpRequest(input, {
        skill: ctx.skill?.name ?? '',
        granted: req.granted_hosts,
        signal: req.signal,
        timeoutMs: Math.min(req.timeout_ms, 15_000),
        log: (e) => http.push(e),
      }),
  });
  const r = await runSkillScript({
    pool: sandbox.pool(),
    files,
    script: req.script,
    argv: req.argv,
    env: req.env,
    timeoutMs: req.timeout_ms,
    signal: req.signal,
    host,
    queue: ctx.scope.session_id,
  });
  return {
    exit_code: r.exit_code,
    stdout: r.stdout,
    stderr: r.sandbox_error ? `${r.stderr}${r.stderr ? '\n' : ''}${r.sandbox_error.message}` : r.stderr,
    http,
  };
}
