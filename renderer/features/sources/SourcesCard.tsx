import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import type { CheckResult, SkillCheck } from '../../../electron/contract/sources.js';
import { useStores } from '../../stores.js';
import './sources.css';
import { Icon } from '../../ui/Icon.js';
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
  const high = s.scan?.findings.filter((f) => f.severity === 'high') ?? [];
  const others = s.scan?.findings.filter((f) => f.severity !== 'high') ?? [];
  return (
    <li className="source-skill" aria-label={`${s.name}: ${STATUS_LABEL[s.status]}`}>
      <div className="source-skill__head">
        <strong>{s.name}</strong> <span className="badge">{STATUS_LABEL[s.status]}</span>
        {s.tampered && <span className="badge badge--overridden">Changed since accepted</span>}
        {s.installed_version && s.upstream_version && s.installed_version !== s.upstream_version && (
          <span className="source-skill__versions">
            {s.installed_version} → {s.upstream_version}
          </span>
        )}
      </div>
      {s.note && <p className="card__text">{s.note}</p>}
      {high.length > 0 && (
        <div className="callout callout--error" role="alert">
          <Icon name="alert" />
          <ul>
            {high.map((f) => (
              <li key={`${f.rule}${f.where}`}>
                {f.message} ({f.where}): <code>{f.excerpt}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {others.length > 0 && (
        <ul className="source-skill__findings">
          {others.map((f) => (
            <li key={`${f.rule}${f.where}`}>
              {f.severity}: {f.message} ({f.where})
            </li>
          ))}
        </ul>
      )}
      {s.permission_changes.length > 0 && (
        <ul className="source-skill__perms" aria-label={`Permission changes of ${s.name}`}>
          {s.permission_changes.map((c) => (
            <li key={c.permission}>
              {c.permission.replace(/_/g, ' ')}:{' '}
              {[...c.added.map((x) => `+${x}`), ...c.removed.map((x) => `−${x}`)].join(' ')}
            </li>
          ))}
        </ul>
      )}
      {s.diff && s.status !== 'added' && (
        <details>
          <summary>Diff</summary>
          <pre className="source-skill__diff">
            {s.diff.artifacts
              .filter((a) => a.change !== 'unchanged')
              .map((a) => `${a.name} (${a.change})\n${a.patch}`)
              .join('\n\n')}
          </pre>
        </details>
      )}
      {pending(s) && (
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
      <label>
        Repository or catalog
        <input
          type="text"
          value={url}
          placeholder="https://github.com/you/skills.git, /path/to/repo or https://…/index.json"
          onChange={(e) => setUrl(e.target.value)}
        />
      </label>
      <label>
        Branch or tag
        <input
          type="text"
          value={ref}
          placeholder="default branch"
          onChange={(e) => setRef(e.target.value)}
        />
      </label>
      <label>
        Store
        <select value={scope} onChange={(e) => setScope(e.target.value as 'account' | 'workspace')}>
          <option value="account">Account</option>
          <option value="workspace">Workspace</option>
        </select>
      </label>
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
