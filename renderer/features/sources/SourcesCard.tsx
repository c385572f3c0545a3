import { useEffect, useId, useState } from 'react';
import { useStore } from 'zustand';
import type {
  CheckResult,
  ScanFinding,
  SkillCheck,
  SkillPermissions,
} from '../../../electron/contract/sources.js';
import { useStores } from '../../stores.js';
import './sources.css';
import { Icon } from '../../ui/Icon.js';
import { DiffView } from '../composer/HistoryPanel.js';
import { createSourcesStore, type SourcesStore, sourceKey } from './sources-store.js';

const STATUS_LABEL: Record<SkillCheck['status'], string> = {
  added: 'New',
  changed: 'Changed',
  unchanged: 'Up to date',
  removed: 'Removed upstream',
  conflict: 'Name taken',
};

const pending = (s: SkillCheck) =>
  s.status === 'added' || s.status === 'changed' || (s.tampered && s.status === 'unchanged');

const SEVERITY_LABEL: Record<ScanFinding['severity'], string> = {
  high: 'High',
  medium: 'Medium',
  low: 'Low',
};

/** The permissions a reviewer weighs, in the order of what could do harm, each only when present. */
function permissionRows(p: SkillPermissions, runtime: string | null): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  const put = (label: string, v: string[]) => {
    if (v.length) rows.push([label, v.join(', ')]);
  };
  put('Network hosts', p.network_hosts);
  put('Tools', [...p.allowed_tools, ...p.mcp_tools]);
  put('Scripts', p.scripts);
  if (runtime) rows.push(['Scripts run in', runtime]);
  put('Python packages', p.packages);
  put('Calls the model', p.model_calls);
  if (p.model_call_budget !== null) rows.push(['Model calls at most', String(p.model_call_budget)]);
  put('Reads workspace pages', p.pages_read);
  put('Host functions', p.component_imports);
  put('May also', p.effects);
  return rows;
}

/** One skill of a check, with what a reviewer needs before accepting it. */
function SkillRow({
  s,
  source,
  store,
}: {
  s: SkillCheck;
  source: CheckResult['source'];
  store: SourcesStore;
}) {
  const key = `${sourceKey(source.scope, source.id)}:${s.name}`;
  const busy = Boolean(store.busy[sourceKey(source.scope, source.id)]);
  const riskOk = !s.needs_risk_acceptance || Boolean(store.riskAccepted[key]);
  const findings = s.scan?.findings ?? [];
  const high = findings.filter((f) => f.severity === 'high');
  const others = findings.filter((f) => f.severity !== 'high');
  const review = pending(s);
  const perms = s.permissions ? permissionRows(s.permissions, s.script_runtime) : [];
  const changed = s.diff?.artifacts.some((a) => a.change !== 'unchanged') || (s.diff?.fields.length ?? 0) > 0;
  return (
    <li className="source-skill" aria-label={`${s.name}: ${STATUS_LABEL[s.status]}`}>
      <div className="source-skill__head">
        <strong className="source-skill__name">{s.name}</strong>
        <span className={`badge source-skill__status is-${s.status}`}>{STATUS_LABEL[s.status]}</span>
        {s.tampered && <span className="badge badge--overridden">Changed since accepted</span>}
        {s.installed_version && s.upstream_version && s.installed_version !== s.upstream_version ? (
          <span className="source-skill__versions">
            {s.installed_version} → {s.upstream_version}
          </span>
        ) : (
          s.upstream_version && <span className="source-skill__versions">{s.upstream_version}</span>
        )}
      </div>
      {s.description && <p className="source-skill__desc">{s.description}</p>}
      {s.note && <p className="source-skill__note">{s.note}</p>}
      {review && (
        <div className="source-skill__review">
          <section aria-label={`Permissions of ${s.name}`}>
            <h4 className="source-skill__label">Permissions</h4>
            {perms.length === 0 ? (
              <p className="muted">None: it only adds guidance to the model's answers.</p>
            ) : (
              <dl className="facts source-skill__facts">
                {perms.map(([label, value]) => (
                  <div key={label} className="source-skill__fact">
                    <dt>{label}</dt>
                    <dd>{value}</dd>
                  </div>
                ))}
              </dl>
            )}
            {s.permission_changes.length > 0 && s.status === 'changed' && (
              <ul className="source-skill__perms" aria-label={`Permission changes of ${s.name}`}>
                {s.permission_changes.map((c) => (
                  <li key={c.permission}>
                    {c.permission.replace(/_/g, ' ')}:{' '}
                    {c.added.map((x) => (
                      <span key={`+${x}`} className="source-skill__add">
                        +{x}{' '}
                      </span>
                    ))}
                    {c.removed.map((x) => (
                      <span key={`-${x}`} className="source-skill__del">
                        −{x}{' '}
                      </span>
                    ))}
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section aria-label={`Scan of ${s.name}`}>
            <h4 className="source-skill__label">Scan</h4>
            {!s.scan ? (
              <p className="muted">Not scanned.</p>
            ) : findings.length === 0 ? (
              <p className="source-skill__clean">
                <Icon name="check" /> Nothing suspicious found.
              </p>
            ) : (
              <>
                {high.length > 0 && (
                  <div className="callout callout--error" role="alert">
                    <Icon name="alert" />
                    <ul className="source-skill__findings">
                      {high.map((f) => (
                        <li key={`${f.rule}${f.where}`}>
                          <span className="source-skill__sev is-high">High</span> {f.message} ({f.where}):{' '}
                          <code>{f.excerpt}</code>
                        </li>
                      ))}
                    </ul>
                  </div>
                )}
                {others.length > 0 && (
                  <ul className="source-skill__findings">
                    {others.map((f) => (
                      <li key={`${f.rule}${f.where}`}>
                        <span className={`source-skill__sev is-${f.severity}`}>
                          {SEVERITY_LABEL[f.severity]}
                        </span>{' '}
                        {f.message} ({f.where}){f.excerpt && <code> {f.excerpt}</code>}
                      </li>
                    ))}
                  </ul>
                )}
              </>
            )}
            {s.review && (
              <p className="source-skill__note">
                Model review ({s.review.model}):{' '}
                {s.review.verdict
                  ? `${s.review.verdict}${s.review.reasons.length ? ` — ${s.review.reasons.join('; ')}` : ''}`
                  : `no verdict (${s.review.error})`}
              </p>
            )}
          </section>
          {s.diff && s.status !== 'added' && changed && (
            <details className="source-skill__diff" open={s.status === 'changed'}>
              <summary>What changed</summary>
              <DiffView diff={s.diff} />
            </details>
          )}
        </div>
      )}
      {review && (
        <div className="source-skill__actions">
          {s.needs_risk_acceptance && (
            <label className="checkbox-row">
              <input
                type="checkbox"
                checked={Boolean(store.riskAccepted[key])}
                onChange={(e) => store.setRiskAccepted(source.scope, source.id, s.name, e.target.checked)}
              />
              I have read the findings and accept the risk
            </label>
          )}
          <button
            type="button"
            className="btn btn--small"
            disabled={busy || !riskOk}
            onClick={() => void store.accept(source.scope, source.id, [s.name])}
          >
            <Icon name="check" /> Accept {s.name}
          </button>
        </div>
      )}
    </li>
  );
}

/** Subscribe to a source: a URL (or absolute path), an optional branch or tag, and the store. */
function AddSourceForm({ store }: { store: SourcesStore }) {
  const [url, setUrl] = useState('');
  const [ref, setRef] = useState('');
  const [scope, setScope] = useState<'account' | 'workspace'>('account');
  const ids = { url: useId(), ref: useId(), scope: useId() };
  const submit = async () => {
    if (!url.trim() || store.adding) return;
    if (await store.add({ url, ref, scope })) {
      setUrl('');
      setRef('');
    }
  };
  return (
    <form
      className="source-add"
      aria-label="Add a source"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <div className="field source-add__url">
        <label htmlFor={ids.url}>Repository or catalog</label>
        <input
          id={ids.url}
          className="input"
          type="text"
          value={url}
          placeholder="https://github.com/you/skills.git, /path/to/repo or https://…/index.json"
          onChange={(e) => setUrl(e.target.value)}
          spellCheck={false}
        />
      </div>
      <div className="field">
        <label htmlFor={ids.ref}>Branch or tag</label>
        <input
          id={ids.ref}
          className="input"
          type="text"
          value={ref}
          placeholder="default branch"
          onChange={(e) => setRef(e.target.value)}
          spellCheck={false}
        />
      </div>
      <div className="field">
        <label htmlFor={ids.scope}>Store</label>
        <div className="select">
          <select
            id={ids.scope}
            value={scope}
            onChange={(e) => setScope(e.target.value as 'account' | 'workspace')}
          >
            <option value="account">Account</option>
            <option value="workspace">Workspace</option>
          </select>
          <Icon name="chevronDown" />
        </div>
      </div>
      <button type="submit" className="btn btn--small" disabled={!url.trim() || store.adding}>
        <Icon name="plus" /> {store.adding ? 'Fetching…' : 'Add source'}
      </button>
      {store.addError && (
        <div className="callout callout--error" role="alert">
          <Icon name="alert" />
          <p>{store.addError.message}</p>
        </div>
      )}
    </form>
  );
}

/** Settings → Sources: what each subscribed source would change, accepted all at once or per skill. */
export function SourcesCard() {
  const { client } = useStores();
  const [api] = useState(() => createSourcesStore(client));
  const store = useStore(api);
  useEffect(() => {
    void api.getState().load();
  }, [api]);
  const list = store.list;
  return (
    // Focusable so the sidebar's sources notice can bring the keyboard here.
    <section id="sources-card" className="card" aria-labelledby="sources-title" tabIndex={-1}>
      <h2 id="sources-title" className="card__title">
        Sources
      </h2>
      <p className="card__text">
        Git repositories and catalogs you subscribed to. Nothing from them is installed until you accept it;
        each skill is scanned and its permissions listed first.
      </p>
      {store.loadError && (
        <div className="callout callout--error" role="alert">
          <Icon name="alert" />
          <p>
            {store.loadError.message}{' '}
            <button type="button" className="btn btn--small" onClick={() => void store.load()}>
              Try again
            </button>
          </p>
        </div>
      )}
      {list && (
        <label className="checkbox-row">
          <input
            type="checkbox"
            checked={list.background_checks}
            onChange={(e) => void store.setBackground(e.target.checked)}
          />
          Check sources when the app starts and every 6 hours
        </label>
      )}
      {list && list.sources.length === 0 && (
        <p className="card__text">
          No sources yet. Add a git repository or a catalog below (or from a terminal with{' '}
          <code>skilldesk sources add URL</code>); you will see what it would install before anything is.
        </p>
      )}
      {list?.sources.map(({ source, last_check }) => {
        const key = sourceKey(source.scope, source.id);
        const waiting = last_check?.skills.filter(pending) ?? [];
        const outcome = store.outcome[key];
        return (
          <article key={key} className="source" aria-label={`Source ${source.id}`}>
            <header className="source__head">
              <strong>{source.id}</strong>{' '}
              <span className={`badge badge--${source.scope}`}>{source.scope}</span> <code>{source.url}</code>
              {source.ref && <span> @ {source.ref}</span>}
              <button
                type="button"
                className="btn btn--small btn--ghost"
                aria-label={`Forget source ${source.id}`}
                title="Forget this source; the skills it installed stay"
                disabled={Boolean(store.busy[key])}
                onClick={() => void store.remove(source.scope, source.id)}
              >
                <Icon name="trash" /> Forget
              </button>
              <button
                type="button"
                className="btn btn--small"
                disabled={Boolean(store.busy[key])}
                onClick={() => void store.check(source.scope, source.id)}
              >
                <Icon name="refresh" /> {store.busy[key] === 'checking' ? 'Checking…' : 'Check now'}
              </button>
            </header>
            {source.check_error && (
              <div className="callout callout--warn" role="status">
                <Icon name="unplug" />
                <p>Could not reach it ({source.check_error}). What is installed is kept; try again later.</p>
              </div>
            )}
            {outcome?.error && (
              <div className="callout callout--error" role="alert">
                <Icon name="alert" />
                <p>{outcome.error.message}</p>
              </div>
            )}
            {outcome?.result && outcome.result.needs_risk_acceptance.length > 0 && (
              <div className="callout callout--warn" role="alert">
                <Icon name="alert" />
                <p>
                  Nothing was installed: tick “accept the risk” for{' '}
                  {outcome.result.needs_risk_acceptance.map((n) => n.name).join(', ')}, or accept the others
                  one by one.
                </p>
              </div>
            )}
            {outcome?.result && outcome.result.held_for_review.length > 0 && (
              <div className="callout callout--warn" role="alert">
                <Icon name="alert" />
                <div>
                  {outcome.result.held_for_review.map((h) => (
                    <p key={h.name}>
                      {h.name} {h.version_after} was held for review: it makes the skill fire less reliably
                      (trigger recall {pct(h.recall_before)} → {pct(h.recall_after)}, precision{' '}
                      {pct(h.precision_before)} → {pct(h.precision_after)}
                      {h.failing.length > 0
                        ? `; now wrong on ${h.failing.map((f) => `“${f.query}”`).join(', ')}`
                        : ''}
                      ).
                    </p>
                  ))}
                  <button
                    type="button"
                    className="btn btn--small"
                    onClick={() =>
                      void store.accept(
                        source.scope,
                        source.id,
                        outcome.result!.held_for_review.map((h) => h.name),
                        { acceptRegression: true },
                      )
                    }
                  >
                    Install anyway
                  </button>
                </div>
              </div>
            )}
            {outcome?.result && outcome.result.installed.length > 0 && (
              <div className="callout callout--success" role="status">
                <Icon name="check" />
                <p>Installed {outcome.result.installed.map((i) => `${i.name} ${i.version}`).join(', ')}.</p>
              </div>
            )}
            {!last_check ? (
              <p className="card__text">Not checked yet.</p>
            ) : (
              <>
                <p className="card__text">
                  {waiting.length === 0
                    ? 'Up to date.'
                    : `${waiting.length} update${waiting.length === 1 ? '' : 's'} waiting for you.`}
                </p>
                {waiting.length > 1 && (
                  <button
                    type="button"
                    className="btn btn--small btn--primary"
                    disabled={Boolean(store.busy[key])}
                    onClick={() => void store.accept(source.scope, source.id, null)}
                  >
                    <Icon name="check" /> Accept all
                  </button>
                )}
                <ul className="source__skills">
                  {last_check.skills
                    .filter((s) => s.status !== 'unchanged' || s.tampered)
                    .map((s) => (
                      <SkillRow key={s.name} s={s} source={source} store={store} />
                    ))}
                </ul>
              </>
            )}
          </article>
        );
      })}
      {list && <AddSourceForm store={store} />}
    </section>
  );
}

/** A trigger rate as a percentage, or a dash when there is none. */
function pct(x: number | null): string {
  return x === null ? '–' : `${Math.round(x * 100)}%`;
}
