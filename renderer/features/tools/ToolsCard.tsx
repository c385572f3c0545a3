import { useEffect, useId, useState } from 'react';
import './tools.css';
import type { McpServerConfigView, McpServerView, TestServerRes } from '../../../electron/contract/tools.js';
import { Icon } from '../../ui/Icon.js';
import type { ToolsStore } from './tools-store.js';

/** The add/edit form's fields, as typed. */
interface Draft {
  name: string;
  scope: 'workspace' | 'account';
  kind: 'stdio' | 'http';
  command: string;
  args: string;
  env: string;
  url: string;
  headers: string;
  disabled: boolean;
}

const EMPTY: Draft = {
  name: '',
  scope: 'account',
  kind: 'stdio',
  command: '',
  args: '',
  env: '',
  url: '',
  headers: '',
  disabled: false,
};

function draftOf(s: McpServerView): Draft {
  const c = s.config as Record<string, unknown>;
  const pairs = (o: unknown, sep: string) =>
    Object.entries((o as Record<string, string> | undefined) ?? {})
      .map(([k, v]) => `${k}${sep}${v}`)
      .join('\n');
  return {
    name: s.name,
    scope: s.scope,
    kind: 'command' in c ? 'stdio' : 'http',
    command: String(c.command ?? ''),
    args: ((c.args as string[] | undefined) ?? []).join('\n'),
    env: pairs(c.env, '='),
    url: String(c.url ?? ''),
    headers: pairs(c.headers, ': '),
    disabled: c.disabled === true,
  };
}

function parsePairs(text: string, sep: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t) continue;
    const i = t.indexOf(sep);
    if (i <= 0) continue;
    out[t.slice(0, i).trim()] = t.slice(i + sep.length).trim();
  }
  return Object.keys(out).length ? out : undefined;
}

function configOf(d: Draft): McpServerConfigView {
  const disabled = d.disabled ? { disabled: true } : {};
  if (d.kind === 'http') {
    const headers = parsePairs(d.headers, ':');
    return { url: d.url.trim(), ...(headers ? { headers } : {}), ...disabled };
  }
  const args = d.args
    .split('\n')
    .map((a) => a.trim())
    .filter(Boolean);
  const env = parsePairs(d.env, '=');
  return {
    command: d.command.trim(),
    ...(args.length ? { args } : {}),
    ...(env ? { env } : {}),
    ...disabled,
  };
}

/** How a server is started or reached, in one line. */
function serverLine(c: McpServerConfigView): string {
  const o = c as { command?: string; args?: string[]; url?: string };
  return o.command ? [o.command, ...(o.args ?? [])].join(' ') : String(o.url ?? '');
}

function StatusDot({ s }: { s: McpServerView }) {
  if (s.config.disabled) return <span className="tool-status tool-status--off">Disabled</span>;
  const st = s.status;
  if (!st || st.state === 'idle') return <span className="tool-status">Starts with the next chat</span>;
  if (st.state === 'ready')
    return (
      <span className="tool-status tool-status--ok">
        Running · {st.tools} tool{st.tools === 1 ? '' : 's'}
        {st.transport === 'sse' ? ' · SSE' : ''}
      </span>
    );
  if (st.state === 'connecting') return <span className="tool-status tool-status--busy">Connecting…</span>;
  return (
    <span className="tool-status tool-status--error" title={st.error ?? undefined}>
      Failed{st.retry_at ? ` · retrying at ${new Date(st.retry_at).toLocaleTimeString()}` : ''}
    </span>
  );
}

function TestResult({ r }: { r: TestServerRes }) {
  return (
    <section className="tool-test" aria-label={`What ${r.name} offers`}>
      <p className="tool-test__head">
        <Icon name="check" /> Connected to {r.server ? `${r.server.name} ${r.server.version}` : r.name} in{' '}
        {r.took_ms} ms
      </p>
      <h4>Tools ({r.tools.length})</h4>
      <ul className="tool-test__list">
        {r.tools.map((t) => (
          <li key={t.name}>
            <details>
              <summary>
                <code>{t.name}</code>
                {(t.annotations as { readOnlyHint?: boolean } | null)?.readOnlyHint && (
                  <span className="approval__hint approval__hint--ok">read-only</span>
                )}
                {t.description && <span className="tool-test__desc">{t.description.split('\n')[0]}</span>}
              </summary>
              <pre className="tool-test__schema">{JSON.stringify(t.input_schema, null, 2)}</pre>
            </details>
          </li>
        ))}
      </ul>
      <h4>Resources ({r.resources.length})</h4>
      {r.resources.length === 0 ? (
        <p className="field__help">None.</p>
      ) : (
        <ul className="tool-test__list">
          {r.resources.slice(0, 30).map((x) => (
            <li key={x.uri}>
              <code>{x.uri}</code> <span className="tool-test__desc">{x.name}</span>
            </li>
          ))}
          {r.resources.length > 30 && <li className="field__help">… and {r.resources.length - 30} more</li>}
        </ul>
      )}
      <h4>Prompts ({r.prompts.length})</h4>
      {r.prompts.length === 0 ? (
        <p className="field__help">None.</p>
      ) : (
        <ul className="tool-test__list">
          {r.prompts.map((p) => (
            <li key={p.name}>
              <details>
                <summary>
                  <code>{p.name}</code>
                  {p.description && <span className="tool-test__desc">{p.description}</span>}
                </summary>
                <pre className="tool-test__schema">{JSON.stringify(p.arguments, null, 2)}</pre>
              </details>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ServerForm(props: {
  initial: Draft;
  previousName?: string;
  hasWorkspace: boolean;
  store: ToolsStore;
  onDone: () => void;
}) {
  const [d, setD] = useState<Draft>(props.initial);
  const id = useId();
  const set = (patch: Partial<Draft>) => setD((x) => ({ ...x, ...patch }));
  const test = props.store.tests[`draft:${d.name}`];
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const ok = await props.store.save({
      scope: d.scope,
      name: d.name.trim(),
      ...(props.previousName ? { previous_name: props.previousName } : {}),
      config: configOf(d),
    });
    if (ok) props.onDone();
  };
  return (
    <form className="form tool-form" onSubmit={(e) => void submit(e)} aria-label="MCP server">
      <div className="field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          className="input"
          value={d.name}
          placeholder="files"
          required
          onChange={(e) => set({ name: e.target.value })}
        />
        <span className="field__help">The model sees its tools as name__tool.</span>
      </div>
      <div className="field">
        <label htmlFor={`${id}-scope`}>Saved in</label>
        <span className="select">
          <select
            id={`${id}-scope`}
            value={d.scope}
            onChange={(e) => set({ scope: e.target.value as Draft['scope'] })}
          >
            <option value="account">Account (every workspace)</option>
            <option value="workspace" disabled={!props.hasWorkspace}>
              This workspace
            </option>
          </select>
        </span>
      </div>
      <fieldset className="field field--wide tool-form__kind">
        <legend>Connects by</legend>
        <label className="checkbox-row">
          <input type="radio" checked={d.kind === 'stdio'} onChange={() => set({ kind: 'stdio' })} /> Running
          a command (stdio)
        </label>
        <label className="checkbox-row">
          <input type="radio" checked={d.kind === 'http'} onChange={() => set({ kind: 'http' })} /> A URL
          (Streamable HTTP, or SSE for older servers)
        </label>
      </fieldset>
      {d.kind === 'stdio' ? (
        <>
          <div className="field field--wide">
            <label htmlFor={`${id}-cmd`}>Command</label>
            <input
              id={`${id}-cmd`}
              className="input"
              value={d.command}
              placeholder="npx"
              required
              onChange={(e) => set({ command: e.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-args`}>Arguments (one per line)</label>
            <textarea
              id={`${id}-args`}
              className="input tool-form__area"
              value={d.args}
              placeholder={'-y\n@modelcontextprotocol/server-filesystem\n/home/me/notes'}
              onChange={(e) => set({ args: e.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-env`}>Environment (NAME=value per line)</label>
            <textarea
              id={`${id}-env`}
              className="input tool-form__area"
              value={d.env}
              placeholder="GITHUB_TOKEN=…"
              onChange={(e) => set({ env: e.target.value })}
            />
            <span className="field__help">
              The server gets only these plus PATH, HOME, locale and temp folders — never a provider key.
            </span>
          </div>
        </>
      ) : (
        <>
          <div className="field field--wide">
            <label htmlFor={`${id}-url`}>URL</label>
            <input
              id={`${id}-url`}
              className="input"
              type="url"
              value={d.url}
              placeholder="http://127.0.0.1:3001/mcp"
              required
              onChange={(e) => set({ url: e.target.value })}
            />
          </div>
          <div className="field field--wide">
            <label htmlFor={`${id}-headers`}>Headers (Name: value per line)</label>
            <textarea
              id={`${id}-headers`}
              className="input tool-form__area"
              value={d.headers}
              placeholder="Authorization: Bearer …"
              onChange={(e) => set({ headers: e.target.value })}
            />
          </div>
        </>
      )}
      {props.store.saveError && (
        <p className="form__notice is-error" role="alert">
          {props.store.saveError.message}
        </p>
      )}
      <div className="form__actions field--wide">
        <button type="submit" className="btn btn--primary btn--small">
          Save
        </button>
        <button
          type="button"
          className="btn btn--small"
          disabled={!d.name.trim() || test?.status === 'running'}
          onClick={() => void props.store.test(d.name, configOf(d))}
        >
          {test?.status === 'running' ? 'Testing…' : 'Test connection'}
        </button>
        <button type="button" className="btn btn--small" onClick={props.onDone}>
          Cancel
        </button>
      </div>
      {test?.status === 'failed' && (
        <p className="form__notice is-error field--wide" role="alert">
          {test.error.message}
        </p>
      )}
      {test?.status === 'done' && (
        <div className="field--wide">
          <TestResult r={test.result} />
        </div>
      )}
    </form>
  );
}

/** Settings → Tools: MCP servers (both `mcp.json` files) and the approvals that stick. */
export function ToolsCard({ store }: { store: ToolsStore }) {
  const [editing, setEditing] = useState<{ key: string; draft: Draft; previous?: string } | null>(null);
  const { load } = store;
  useEffect(() => {
    void load();
  }, [load]);
  const list = store.servers;
  const hasWorkspace = Boolean(list?.files.workspace);
  return (
    <>
      <section className="card" aria-labelledby="tools-title">
        <div className="card__row">
          <h2 id="tools-title" className="card__title">
            Tools (MCP servers)
          </h2>
          {!editing && (
            <button
              type="button"
              className="btn btn--small"
              onClick={() =>
                setEditing({ key: 'new', draft: { ...EMPTY, scope: hasWorkspace ? 'workspace' : 'account' } })
              }
            >
              <Icon name="plus" /> Add server
            </button>
          )}
        </div>
        <p className="card__text">
          Tools of these servers are offered to the model beside your skills; each call asks you first. They
          are kept in <code>mcp.json</code> (the <code>mcpServers</code> shape other apps use, so you can
          paste yours):{' '}
          {list ? (
            <>
              <code>{list.files.account}</code>
              {list.files.workspace && (
                <>
                  {' '}
                  and <code>{list.files.workspace}</code> (wins by name)
                </>
              )}
            </>
          ) : null}
          .
        </p>
        {(list?.error || store.loadError) && (
          <div className="callout callout--error" role="alert">
            <Icon name="alert" />
            <p>{list?.error ?? store.loadError?.message}</p>
          </div>
        )}
        {editing?.key === 'new' && (
          <ServerForm
            initial={editing.draft}
            hasWorkspace={hasWorkspace}
            store={store}
            onDone={() => setEditing(null)}
          />
        )}
        {list && list.servers.length === 0 && !editing && (
          <div className="tools-empty">
            <p>
              <strong>No servers yet.</strong> Add one to give the model tools: files, a browser, GitHub, your
              database. For example, command <code>npx</code> with arguments{' '}
              <code>-y @modelcontextprotocol/server-filesystem ~/notes</code>.
            </p>
          </div>
        )}
        <ul className="tool-servers">
          {list?.servers.map((s) => {
            const key = `${s.scope}:${s.name}`;
            const test = store.tests[s.name];
            return (
              <li key={key} className={`tool-server${s.overridden ? ' is-overridden' : ''}`}>
                <div className="tool-server__row">
                  <label className="tool-server__toggle" title={s.config.disabled ? 'Enable' : 'Disable'}>
                    <input
                      type="checkbox"
                      checked={!s.config.disabled}
                      aria-label={`Enable ${s.name}`}
                      onChange={(e) => void store.setEnabled(s.scope, s.name, e.target.checked)}
                    />
                  </label>
                  <div className="tool-server__what">
                    <span className="tool-server__name">{s.name}</span>
                    <span className="tool-server__meta">
                      {s.scope === 'workspace' ? 'Workspace' : 'Account'} · {serverLine(s.config)}
                    </span>
                    {s.overridden ? (
                      <span className="tool-status">Hidden by the workspace server of the same name</span>
                    ) : (
                      <StatusDot s={s} />
                    )}
                    {s.status?.state === 'failed' && s.status.error && (
                      <span className="tool-server__error">{s.status.error}</span>
                    )}
                  </div>
                  <div className="tool-server__actions">
                    <button
                      type="button"
                      className="btn btn--small"
                      disabled={test?.status === 'running'}
                      onClick={() => void store.test(s.name)}
                    >
                      {test?.status === 'running' ? 'Testing…' : 'Test connection'}
                    </button>
                    <button
                      type="button"
                      className="btn btn--icon btn--small"
                      aria-label={`Edit ${s.name}`}
                      onClick={() => setEditing({ key, draft: draftOf(s), previous: s.name })}
                    >
                      <Icon name="pencil" />
                    </button>
                    <button
                      type="button"
                      className="btn btn--icon btn--small"
                      aria-label={`Remove ${s.name}`}
                      onClick={() => void store.remove(s.scope, s.name)}
                    >
                      <Icon name="trash" />
                    </button>
                  </div>
                </div>
                {editing?.key === key && (
                  <ServerForm
                    initial={editing.draft}
                    previousName={editing.previous}
                    hasWorkspace={hasWorkspace}
                    store={store}
                    onDone={() => setEditing(null)}
                  />
                )}
                {test?.status === 'failed' && (
                  <p className="form__notice is-error" role="alert">
                    {test.error.message}
                  </p>
                )}
                {test?.status === 'done' && <TestResult r={test.result} />}
              </li>
            );
          })}
        </ul>
      </section>
      <section className="card" aria-labelledby="approvals-title">
        <h2 id="approvals-title" className="card__title">
          Tool approvals
        </h2>
        <p className="card__text">
          Before a tool runs, the chat shows its server and arguments and asks you. Tools you always allow are
          remembered for this workspace.
        </p>
        <label className="checkbox-row">
          <input
            type="checkbox"
            checked={store.approvals?.auto_read_only ?? false}
            onChange={(e) => void store.setAutoReadOnly(e.target.checked)}
          />
          Run tools their server marks read-only without asking
        </label>
        {store.approvals && store.approvals.remembered.length === 0 ? (
          <p className="field__help tools-remembered-empty">
            No tool is always allowed. Choose “Always allow” on an approval to skip asking next time.
          </p>
        ) : (
          <ul className="tool-approvals" aria-label="Always allowed tools">
            {store.approvals?.remembered.map((a) => (
              <li key={`${a.server}:${a.tool}`} className="tool-approval">
                <span>
                  <code>{a.tool}</code> from <strong>{a.server}</strong>
                  <span className="tool-server__meta">
                    {' '}
                    · since {new Date(a.created_at).toLocaleDateString()}
                  </span>
                </span>
                <button
                  type="button"
                  className="btn btn--ghost-danger btn--small"
                  onClick={() => void store.revoke(a.server, a.tool)}
                >
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
