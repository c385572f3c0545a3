import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { DiffVersionsRes } from '../../../electron/contract/skills.js';
import { useComposerStore } from '../../stores.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { Icon } from '../../ui/Icon.js';
import type { ComposerState } from './composer-state.js';

function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

const ORIGIN: Record<string, string> = {
  import: 'replaced by an import',
  save: 'replaced by a save',
  restore: 'replaced by a restore',
  delete: 'deleted',
  seed: 'replaced by an update',
  fork: 'forked',
};

/** A unified diff as coloured lines. */
export function Patch({ text }: { text: string }) {
  const lines = text
    .split('\n')
    .filter((l) => !l.startsWith('Index:') && !/^={3,}$/.test(l) && !l.startsWith('\\ No newline'));
  return (
    <pre className="sc-diff">
      {lines.map((l, i) => {
        const cls =
          l.startsWith('+++') || l.startsWith('---')
            ? 'is-file'
            : l.startsWith('@@')
              ? 'is-hunk'
              : l.startsWith('+')
                ? 'is-add'
                : l.startsWith('-')
                  ? 'is-del'
                  : '';
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines of a fixed text
          <span key={i} className={`sc-diff__line ${cls}`}>
            {l || ' '}
          </span>
        );
      })}
    </pre>
  );
}

function show(v: unknown): string {
  if (v === undefined || v === null) return '—';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** What changed between two packages: the fields in a table, each changed artifact as a patch. */
export function DiffView({ diff }: { diff: Pick<DiffVersionsRes, 'fields' | 'artifacts'> }) {
  const changed = diff.artifacts.filter((a) => a.change !== 'unchanged');
  if (diff.fields.length === 0 && changed.length === 0) {
    return <p className="sc-empty-line">These two versions hold the same package.</p>;
  }
  return (
    <div className="sc-diffs">
      {diff.fields.length > 0 && (
        <table className="sc-fields">
          <thead>
            <tr>
              <th>Field</th>
              <th>From</th>
              <th>To</th>
            </tr>
          </thead>
          <tbody>
            {diff.fields.map((f) => (
              <tr key={f.field}>
                <td className="mono">{f.field}</td>
                <td className="sc-fields__from">{show(f.from)}</td>
                <td className="sc-fields__to">{show(f.to)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {changed.map((a) => (
        <section
          key={`${a.name}:${a.model_variant ?? ''}`}
          className="sc-diffart"
          aria-label={`Changes to ${a.name}`}
        >
          <header>
            <strong>{a.name}</strong>
            {a.model_variant && <span className="pill pill--mono">{a.model_variant}</span>}
            <span className={`sc-change sc-change--${a.change}`}>{a.change}</span>
            {a.metadata_changed.length > 0 && (
              <span className="sc-field__help">metadata: {a.metadata_changed.join(', ')}</span>
            )}
          </header>
          {a.patch.trim() && <Patch text={a.patch} />}
        </section>
      ))}
    </div>
  );
}

/** The kept versions of the open skill, a diff of any two, and restore. */
export function HistoryPanel() {
  const s = useComposerStore(
    useShallow((st) => ({ h: st.history, compare: st.compare, restore: st.restore, load: st.loadHistory })),
  );
  return <VersionsView {...s} />;
}

/**
 * A skill's kept versions, a diff of any two, and restore: the Composer's History tab and the
 * Skills view's Versions section, each over its own state.
 */
export function VersionsView(s: {
  h: ComposerState['history'];
  compare: (from: string, to: string) => Promise<void>;
  restore: (version: string) => Promise<void>;
  load: () => Promise<void>;
}) {
  const [confirm, setConfirm] = useState<{ number: number; version: string } | null>(null);
  const { h } = s;
  if (h.status === 'loading' && !h.data) {
    return (
      <p className="sc-wait">
        <span className="spinner" /> Loading the history…
      </p>
    );
  }
  if (h.status === 'error' && !h.data) {
    return (
      <div className="callout callout--error">
        <Icon name="alert" />
        <div>
          <p>{h.error?.message}</p>
          <button type="button" className="btn btn--small" onClick={() => void s.load()}>
            Try again
          </button>
        </div>
      </div>
    );
  }
  if (!h.data) return null;
  const rows = [
    ...(h.data.current
      ? [
          {
            ref: 'current',
            label: 'Current',
            version: h.data.current.version,
            at: h.data.current.updated_at,
            origin: 'in use now',
            number: 0,
          },
        ]
      : []),
    ...[...h.data.versions].reverse().map((v) => ({
      ref: String(v.number),
      label: `#${v.number}`,
      version: v.version,
      at: v.created_at,
      origin: ORIGIN[v.origin] ?? v.origin,
      number: v.number,
      note: v.note,
    })),
  ];
  const pick = (which: 'from' | 'to', ref: string) => {
    const from = which === 'from' ? ref : (h.from ?? ref);
    const to = which === 'to' ? ref : (h.to ?? 'current');
    void s.compare(from, to);
  };

  return (
    <div className="sc-history">
      <section className="sc-card" aria-label="Versions">
        <div className="sc-card__head">
          <h2 className="sc-h2">Versions</h2>
          <span className="sc-field__help">
            Every save keeps the version it replaces. Pick two to compare.
          </span>
        </div>
        {rows.length === 1 && (
          <p className="sc-empty-line">No earlier versions yet: the next save keeps this one here.</p>
        )}
        <table className="sc-versions">
          <thead>
            <tr>
              <th>From</th>
              <th>To</th>
              <th>Version</th>
              <th>Kept</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr
                key={r.ref}
                className={h.from === r.ref || h.to === r.ref ? 'is-picked' : ''}
                data-ref={r.ref}
              >
                <td>
                  <input
                    type="radio"
                    name="diff-from"
                    aria-label={`Compare from ${r.label}`}
                    checked={h.from === r.ref}
                    onChange={() => pick('from', r.ref)}
                  />
                </td>
                <td>
                  <input
                    type="radio"
                    name="diff-to"
                    aria-label={`Compare to ${r.label}`}
                    checked={h.to === r.ref}
                    onChange={() => pick('to', r.ref)}
                  />
                </td>
                <td>
                  <strong>{r.label}</strong> <span className="mono">{r.version}</span>
                </td>
                <td className="sc-versions__when">
                  {when(r.at)} <span className="muted">· {r.origin}</span>
                </td>
                <td className="sc-versions__act">
                  {r.ref !== 'current' && (
                    <button
                      type="button"
                      className="btn btn--small"
                      disabled={h.restoring}
                      onClick={() => setConfirm({ number: r.number, version: r.version })}
                    >
                      Restore
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {h.from && h.to && (
        <section className="sc-card" aria-label="Differences">
          <div className="sc-card__head">
            <h2 className="sc-h2">
              {h.from === 'current' ? 'Current' : `#${h.from}`} →{' '}
              {h.to === 'current' ? 'Current' : `#${h.to}`}
            </h2>
            {h.diffStatus === 'loading' && <span className="spinner spinner--tiny" />}
          </div>
          {h.diffStatus === 'error' && <p className="sc-issues">{h.error?.message}</p>}
          {h.diff && <DiffView diff={h.diff} />}
        </section>
      )}
      {confirm && (
        <ConfirmDialog
          title={`Restore version #${confirm.number}?`}
          confirmLabel="Restore"
          busy={h.restoring}
          onCancel={() => setConfirm(null)}
          onConfirm={() => {
            void s.restore(String(confirm.number)).then(() => setConfirm(null));
          }}
        >
          <p>
            {confirm.version} becomes the current version. The current one is kept in the history, so this can
            be undone.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
