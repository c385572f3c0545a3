import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import {
  BUILTIN_TOOLS,
  type BuiltinToolName,
  describeRun,
  isBuiltinTool,
  type RunFacts,
  type ToolCallFacts,
  toolFacts,
} from '../../../electron/contract/builtin-tools.js';
import type { TraceView } from '../../../electron/contract/traces.js';
import { useStores, useToolsStore } from '../../stores.js';
import { CodeBlock } from '../../ui/CodeBlock.js';
import { Icon } from '../../ui/Icon.js';
import { ResultView } from '../../ui/ResultView.js';
import { docFromResult, LONG_RESULT_CHARS, resultLength } from '../canvas/canvas-docs.js';
import { openScriptOutput, scriptOutputsOf } from '../canvas/script-output.js';
import { PythonNetworkAsk, PythonRunFiles } from './ChatFiles.js';
import type { UiToolCall } from './chat-store.js';
import { ScriptFiles } from './ScriptFiles.js';

type Rec = Record<string, unknown>;
const asRec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

export type { RunFacts };

/** Why a call failed, from the `{error}` its tool returned. */
export function failureReason(call: UiToolCall): string | null {
  if (call.status !== 'failed') return null;
  const r = asRec(call.result);
  const outputs = Array.isArray(r.outputs) ? (r.outputs as unknown[]).map(asRec) : [];
  return (
    str(r.error) ??
    outputs.map((o) => str(o.error)).find(Boolean) ??
    (call.result === undefined
      ? 'It did not finish (the reply was stopped).'
      : 'The tool reported a failure.')
  );
}

function sumTraces(traces: TraceView[]): RunFacts {
  return traces.reduce(
    (acc, t) => ({
      ms: acc.ms + (t.duration_ms ?? 0),
      passed: acc.passed + t.assertions_passed,
      run: acc.run + t.assertions_run,
    }),
    { ms: 0, passed: 0, run: 0 },
  );
}

/**
 * How a tool the model called by its exposed name (`server__tool`, cleaned for providers) reads to a
 * person: the tool's own name in words, and the server it comes from for a badge. `servers` are the
 * configured server names, so a server whose name holds `__` is still told apart from its tool.
 */
export function friendlyTool(
  name: string,
  servers: readonly string[] = [],
): { tool: string; server: string | null } {
  const clean = (x: string) => x.replace(/[^a-zA-Z0-9_-]/g, '_');
  const known = servers
    .filter((srv) => name.startsWith(`${clean(srv)}__`))
    .sort((a, b) => clean(b).length - clean(a).length)[0];
  const cut = known !== undefined ? clean(known).length : name.indexOf('__');
  if (cut <= 0) return { tool: name, server: null };
  const words = name
    .slice(cut + 2)
    .replace(/[_-]+/g, ' ')
    .trim();
  if (!words) return { tool: name, server: null };
  return { tool: words[0]!.toUpperCase() + words.slice(1), server: known ?? name.slice(0, cut) };
}

/**
 * One step of skill activity in words: "Searched skills for 'summarize' — 3 found", "Read
 * Summarize", "Ran Summarize · Summary Prompt · 1.2 s · 2/2 checks passed". A built-in tool words
 * itself (its entry in the contract's tool table); a skill's own tool or an MCP tool is a run.
 */
export function describeStep(
  call: UiToolCall,
  facts: RunFacts | null = null,
  servers: readonly string[] = [],
): string {
  const c: ToolCallFacts = {
    status: call.status === 'ok' ? 'done' : call.status,
    args: asRec(call.args),
    result: asRec(call.result),
    skill: call.skill,
    artifacts: call.artifacts,
  };
  if (isBuiltinTool(call.name)) return BUILTIN_TOOLS[call.name].activity(c, facts);
  return describeRun(call.skill !== undefined ? call.skill : friendlyTool(call.name, servers).tool, c, facts);
}

/** The traces of a finished call, loaded once (for its time and checks). */
function useTraces(ids: string[], finished: boolean): TraceView[] | null {
  const { client } = useStores();
  const [traces, setTraces] = useState<TraceView[] | null>(null);
  const key = ids.join(',');
  // biome-ignore lint/correctness/useExhaustiveDependencies: the ids are keyed by their joined text
  useEffect(() => {
    if (!finished || ids.length === 0) return;
    let live = true;
    void Promise.all(ids.map((id) => client.call('traces/get', { id }))).then((rs) => {
      // A trace that cannot be read leaves the step without its numbers, not broken.
      if (live) setTraces(rs.flatMap((r) => (r.ok ? [r.value.trace] : [])));
    });
    return () => {
      live = false;
    };
  }, [client, key, finished]);
  return traces;
}

const NO_SERVERS: string[] = [];

/** The configured MCP servers' names (none until Settings → Tools has loaded them). */
function useServerNames(): string[] {
  const list = useToolsStore((s) => s.servers);
  return useMemo(() => (list ? list.servers.map((x) => x.name) : NO_SERVERS), [list]);
}

function json(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

/** A long result's way into the canvas: its text as Markdown, rows as a table, else its JSON. */
function OpenResultInCanvas({ result, label }: { result: unknown; label: string }) {
  const { canvas } = useStores();
  return (
    <button
      type="button"
      className="btn btn--small canvas-open"
      title="Show this result in the canvas beside the chat, to read, copy or download"
      onClick={() => canvas.getState().open(docFromResult(result, label))}
    >
      <Icon name="panelRight" /> Open in canvas
    </button>
  );
}

/** The files a script wrote, each to open in the canvas (a table, Markdown, code, an image). */
function ScriptOutputsInCanvas({ result }: { result: unknown }) {
  const { client, canvas } = useStores();
  const found = scriptOutputsOf(result);
  if (!found) return null;
  const source = found.script ? `Written by ${found.script}` : 'Written by a script';
  return (
    <section>
      <h4 className="step__label">Files written</h4>
      <ul className="step__files">
        {found.files.map((f) => (
          <li key={f.path}>
            <button
              type="button"
              className="btn btn--small canvas-open"
              onClick={() => void openScriptOutput(client, canvas, found.runId, f, source)}
            >
              <Icon name="panelRight" /> Open {f.path} in canvas
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * While a step waits on a cold Python sandbox: what is happening and for how long, against the
 * last cold start's duration (from the pool's progress task), instead of a bare spinner.
 */
/**
 * The cold start in words, from the time it has taken and the last one's (measured: about 1 s on
 * a quiet machine, tens of seconds on a busy one, so a fixed promise would be wrong either way).
 */
export function sandboxStartText(elapsed: number, estimate: number | null): string {
  const head = `Starting the Python sandbox… ${elapsed} s`;
  if (estimate === null)
    return `${head} (its first start here: it depends on how busy the machine is; later runs reuse it)`;
  if (elapsed > estimate * 2 + 3)
    return `${head}, longer than the last cold start (about ${estimate} s): the machine is busier. Stop cancels it.`;
  return `${head} of about ${estimate} s (the last cold start)`;
}

export function SandboxStartLine() {
  const task = useStore(useStores().workspace, (s) =>
    s.tasks.find((t) => t.kind === 'sandbox' && t.state === 'running'),
  );
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!task) return;
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(tick);
  }, [task]);
  if (!task) return null;
  const elapsed = Math.max(0, Math.round((now - Date.parse(task.started_at)) / 1000));
  const estimate = task.estimate_ms ? Math.max(1, Math.round(task.estimate_ms / 1000)) : null;
  return (
    <p className="step__progress" role="status">
      <span className="spinner spinner--tiny" aria-hidden="true" />
      <span>{sandboxStartText(elapsed, estimate)}</span>
    </p>
  );
}

/** Whether a step may run Python: a skill's own tool, or a built-in tool that runs code. */
const mayRunPython = (call: UiToolCall) =>
  call.skill !== undefined || toolFacts(call.name)?.runs_code === true;

/**
 * What a finished step of a built-in tool shows under its sentence (the files a script or a
 * Python run wrote, the network question), keyed by the tool: the compiler holds the keys to
 * the registry's names.
 */
const RESULT_EXTRAS: Partial<Record<BuiltinToolName, (props: { result: unknown }) => ReactNode>> = {
  run_script: ({ result }) => <ScriptFiles result={result} />,
  run_python: ({ result }) => (
    <>
      <PythonRunFiles result={result} />
      <PythonNetworkAsk result={result} />
    </>
  ),
};

/** One step of the activity: a sentence, expandable to its arguments, result and traces. */
export function ActivityStep({ call, onTrace }: { call: UiToolCall; onTrace: (id: string) => void }) {
  const [open, setOpen] = useState(false);
  const servers = useServerNames();
  const server =
    call.skill === undefined && !isBuiltinTool(call.name) ? friendlyTool(call.name, servers).server : null;
  const ids = call.trace_ids ?? [];
  const traces = useTraces(ids, call.status !== 'running');
  const facts = traces && traces.length > 0 ? sumTraces(traces) : null;
  const reason = failureReason(call);
  const hasArgs = call.args !== undefined && Object.keys(asRec(call.args)).length > 0;
  return (
    <div className={`step step--${call.status}${open ? ' is-open' : ''}`}>
      <button type="button" className="step__head" aria-expanded={open} onClick={() => setOpen((v) => !v)}>
        <span className="step__icon" aria-hidden="true">
          {call.status === 'running' ? (
            <span className="spinner spinner--tiny" />
          ) : (
            <Icon name={call.status === 'ok' ? 'check' : 'alert'} />
          )}
        </span>
        <span className="step__text">{describeStep(call, facts, servers)}</span>
        {server && (
          <span className="badge step__server" title={`A tool of the MCP server ${server} (${call.name})`}>
            {server}
          </span>
        )}
        <Icon name={open ? 'chevronDown' : 'chevronRight'} />
      </button>
      {reason && <p className="step__reason">{reason}</p>}
      {call.status === 'running' && mayRunPython(call) && <SandboxStartLine />}
      {call.status !== 'running' &&
        isBuiltinTool(call.name) &&
        RESULT_EXTRAS[call.name]?.({ result: call.result })}
      {open && (
        <div className="step__more">
          {hasArgs && (
            <section>
              <h4 className="step__label">Arguments</h4>
              <CodeBlock text={json(call.args)} lang="json" label="Arguments" wrap />
            </section>
          )}
          <section>
            <div className="step__label-row">
              <h4 className="step__label">Result</h4>
              {call.result !== undefined && resultLength(call.result) >= LONG_RESULT_CHARS && (
                <OpenResultInCanvas
                  result={call.result}
                  label={
                    call.skill ??
                    (isBuiltinTool(call.name)
                      ? call.name[0]!.toUpperCase() + call.name.slice(1).replace(/_/g, ' ')
                      : friendlyTool(call.name, servers).tool)
                  }
                />
              )}
            </div>
            {call.result === undefined ? (
              <p className="muted">
                {call.status === 'running' ? 'Still running…' : 'Nothing was returned.'}
              </p>
            ) : (
              <ResultView value={call.result} />
            )}
          </section>
          <ScriptOutputsInCanvas result={call.result} />
          {ids.length > 0 && (
            <section className="step__traces">
              <h4 className="step__label">Traces</h4>
              {ids.map((id) => (
                <button key={id} type="button" className="trace-link" onClick={() => onTrace(id)}>
                  <Icon name="activity" /> {traces?.find((t) => t.id === id)?.artifact_name ?? id.slice(0, 8)}
                </button>
              ))}
            </section>
          )}
        </div>
      )}
    </div>
  );
}

/** A reply's skill activity, step by step. */
export function SkillActivity({ calls, onTrace }: { calls: UiToolCall[]; onTrace: (id: string) => void }) {
  if (calls.length === 0) return null;
  return (
    <section className="steps" aria-label="Skill activity">
      {calls.map((c) => (
        <ActivityStep key={c.id} call={c} onTrace={onTrace} />
      ))}
    </section>
  );
}
