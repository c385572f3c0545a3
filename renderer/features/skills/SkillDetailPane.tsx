import { useEffect, useRef, useState } from 'react';
import type { SkillArtifactView, SkillDetail, SkillSwitchState } from '../../../electron/contract/skills.js';
import { useSkillsStore, useStores } from '../../stores.js';
import { Kbd, KIND_HELP, KindChip, OverrideBadge, ScopeBadge } from '../../ui/badges.js';
import { CodeBlock } from '../../ui/CodeBlock.js';
import { downloadText } from '../../ui/download.js';
import { langFor } from '../../ui/highlight.js';
import { Icon } from '../../ui/Icon.js';
import { docKey } from '../composer/index.js';
import { SkillScripts } from './SkillScripts.js';
import { SkillVersions } from './SkillVersions.js';
import { skillKey } from './skills-store.js';

function formatDate(iso: string): string {
  const d = new Date(iso.includes('T') ? iso : `${iso.replace(' ', 'T')}Z`);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

function PhraseList({ items, quoted }: { items: string[]; quoted?: boolean }) {
  return (
    <ul className="phrases">
      {items.map((p) => (
        <li key={p} className="phrase">
          {quoted ? `“${p}”` : p}
        </li>
      ))}
    </ul>
  );
}

function ArtifactCard({ a }: { a: SkillArtifactView }) {
  const metadata = a.metadata && Object.keys(a.metadata).length > 0 ? a.metadata : null;
  return (
    <section className="artifact" aria-label={`${a.kind} artifact ${a.name}`}>
      <header className="artifact__head">
        <KindChip kind={a.kind} />
        <h4 className="artifact__name">{a.name}</h4>
        {a.model_variant && <span className="pill">{a.model_variant}</span>}
        <span className="artifact__size">
          {a.content.length.toLocaleString()} chars
          {a.state_blob_bytes ? ` · state ${a.state_blob_bytes.toLocaleString()} bytes` : ''}
        </span>
      </header>
      <p className="artifact__help">{KIND_HELP[a.kind]}</p>
      <CodeBlock text={a.content} lang={langFor(a.kind, a.name)} label={`${a.name} content`} />
      {metadata && (
        <details className="artifact__meta">
          <summary>Metadata</summary>
          <CodeBlock text={JSON.stringify(metadata, null, 2)} lang="json" label={`${a.name} metadata`} />
        </details>
      )}
    </section>
  );
}

/** The package lines of a skill's `requirements.txt` files (comments and blanks left out). */
export function requirementLines(skill: SkillDetail): string[] {
  return skill.artifacts
    .filter((a) => {
      const path = typeof a.metadata?.path === 'string' ? a.metadata.path : '';
      return /(^|\/)requirements\.txt$/.test(path) && a.metadata?.encoding !== 'base64';
    })
    .flatMap((a) => a.content.split('\n'))
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean);
}

type InstallState =
  | { status: 'idle' }
  | { status: 'installing' }
  | { status: 'done'; wheels: string[]; already: boolean }
  | { status: 'error'; message: string };

/**
 * The pure-Python packages a skill's scripts import (its `requirements.txt`): fetched by pip at
 * the user's request into the account's wheelhouse, never at run time (what `skilldesk skills
 * packages install` does).
 */
function SkillPackages({ skill, onInstalled }: { skill: SkillDetail; onInstalled: () => void }) {
  const stores = useStores();
  const [state, setState] = useState<InstallState>({ status: 'idle' });
  const lines = requirementLines(skill);
  if (lines.length === 0) return null;
  const install = async () => {
    setState({ status: 'installing' });
    try {
      const r = await stores.client.invoke('scripts/install-packages', { name: skill.name });
      setState({
        status: 'done',
        wheels: r.wheels.map((w) => `${w.name} ${w.version}`),
        already: r.already_installed,
      });
      onInstalled();
    } catch (e) {
      setState({ status: 'error', message: e instanceof Error ? e.message : String(e) });
    }
  };
  return (
    <section className="packages" aria-label="Python packages">
      <h3 className="section-title">
        Python packages <span className="count">{lines.length}</span>
      </h3>
      <p className="packages__help">
        Its scripts import these. They are fetched once, pinned by SHA-256, and only pure-Python wheels are
        accepted; nothing is downloaded while a script runs.
      </p>
      <PhraseList items={lines} />
      <div className="packages__actions">
        <button
          type="button"
          className="btn btn--small"
          disabled={state.status === 'installing'}
          onClick={() => void install()}
        >
          <Icon name="download" /> {state.status === 'installing' ? 'Installing…' : 'Install packages'}
        </button>
        <span role="status" className="packages__status">
          {state.status === 'done' &&
            `${state.already ? 'Already installed' : 'Installed'}: ${state.wheels.join(', ')}`}
        </span>
      </div>
      {state.status === 'error' && (
        <div className="callout callout--error" role="alert">
          <Icon name="alert" />
          <p>Packages not installed: {state.message}</p>
        </div>
      )}
    </section>
  );
}

const SWITCH_CHOICES: Array<{ state: SkillSwitchState; label: string; help: string }> = [
  { state: 'on', label: 'On', help: 'Matched for your messages and listed for the model.' },
  {
    state: 'name-only',
    label: 'Name only',
    help: 'Listed and started by name (the / menu, the model asking for it), never put into a prompt unasked.',
  },
  { state: 'off', label: 'Off', help: 'Gone for the model, matching, the MCP server and the / menu.' },
];

/**
 * On, name-only or off for this skill, kept in the open workspace when there is one (it may switch
 * an account skill there), else in the account: what `skilldesk skills set` does.
 */
function SkillSwitchControl({ skill }: { skill: SkillDetail }) {
  const stores = useStores();
  const [state, setState] = useState<SkillSwitchState>(skill.switch);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setState(skill.switch), [skill.switch]);
  const choose = async (next: SkillSwitchState) => {
    const was = state;
    setState(next);
    setError(null);
    try {
      const r = await stores.client.invoke('skills/set-switch', { name: skill.name, state: next });
      setState(r.effective);
    } catch (e) {
      setState(was);
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const help = SWITCH_CHOICES.find((c) => c.state === state)?.help;
  return (
    <fieldset className="skill-switch">
      <legend className="skill-switch__legend">Use in chats</legend>
      <div className="segmented" role="radiogroup" aria-label="Use in chats">
        {SWITCH_CHOICES.map((c) => (
          <label
            key={c.state}
            className={`segmented__option${state === c.state ? ' segmented__option--on' : ''}`}
          >
            <input
              type="radio"
              name={`switch-${skill.scope}-${skill.name}`}
              value={c.state}
              checked={state === c.state}
              onChange={() => void choose(c.state)}
            />
            {c.label}
          </label>
        ))}
      </div>
      <p className="skill-switch__help">{help}</p>
      {error && (
        <p className="skill-switch__error" role="alert">
          Not switched: {error}
        </p>
      )}
    </fieldset>
  );
}

/** The open skill: what it is, when it activates, and every artifact. */
export function SkillDetailPane() {
  const open = useSkillsStore((s) => s.open);
  const detail = useSkillsStore((s) => s.detail);
  const closeDetail = useSkillsStore((s) => s.closeDetail);
  const requestDelete = useSkillsStore((s) => s.requestDelete);
  const exportSkill = useSkillsStore((s) => s.exportSkill);
  const openSkill = useSkillsStore((s) => s.openSkill);
  const stores = useStores();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [exportError, setExportError] = useState<string | null>(null);
  // Installing declared packages can change how the scripts run: the Scripts section asks again.
  const [packagesInstalled, setPackagesInstalled] = useState(0);
  const skill: SkillDetail | null = detail.skill;

  useEffect(() => {
    if (detail.status === 'ready') headingRef.current?.focus({ preventScroll: true });
  }, [detail.status]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new skill starts without the old export error
  useEffect(() => setExportError(null), [open]);

  if (!open) {
    return (
      <div className="detail detail--empty">
        <div className="empty">
          <div className="empty__icon">
            <Icon name="skills" size={28} />
          </div>
          <h2 className="empty__title">Pick a skill to see inside it</h2>
          <p className="empty__text">
            A skill bundles instructions, prompts, Python, DSPy programs and files that chats draw on when
            your message calls for it. Open one to read it, see its versions, run it, or open it in the
            Composer.
          </p>
          <p className="empty__text">
            To add skills, drop <span className="mono">.json</span> packages,{' '}
            <span className="mono">.zip</span> files or Agent Skills folders anywhere on this view.
          </p>
          <ul className="hints">
            <li>
              <Kbd>↑</Kbd> <Kbd>↓</Kbd> move through the list
            </li>
            <li>
              <Kbd>Enter</Kbd> open · <Kbd>Esc</Kbd> close
            </li>
            <li>
              <Kbd>Ctrl K</Kbd> search from anywhere
            </li>
          </ul>
        </div>
      </div>
    );
  }
  if (detail.status === 'error' && detail.error) {
    return (
      <div className="detail detail--empty">
        <div className="callout callout--error" role="alert">
          <Icon name="alert" />
          <div>
            <strong>This skill could not be opened.</strong>
            <p>{detail.error.message}</p>
            <button type="button" className="btn btn--small" onClick={() => void openSkill(open)}>
              Try again
            </button>
          </div>
        </div>
      </div>
    );
  }
  if (!skill) {
    return (
      <div className="detail" aria-busy="true">
        <div className="skeleton skeleton--title" />
        <div className="skeleton skeleton--line" />
        <div className="skeleton skeleton--line short" />
        <div className="skeleton skeleton--block" />
      </div>
    );
  }
  const key = skillKey(skill);
  const onExport = async () => {
    setExportError(null);
    try {
      const res = await exportSkill(key);
      downloadText(res.file_name, res.text);
    } catch (e) {
      setExportError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <article className="detail" aria-labelledby="skill-title">
      <header className="detail__head">
        <div className="detail__titles">
          <h2 id="skill-title" ref={headingRef} tabIndex={-1} className="detail__title">
            {skill.name}
          </h2>
          <div className="detail__badges">
            <span className="pill pill--mono">v{skill.version}</span>
            <ScopeBadge scope={skill.scope} />
            <OverrideBadge overridden={skill.overridden} overrides={skill.overrides} />
            {skill.source === 'system' && <span className="badge badge--system">Built-in</span>}
            {skill.always_on && <span className="badge badge--overrides">Always on</span>}
          </div>
          <SkillSwitchControl skill={skill} />
        </div>
        <div className="detail__actions">
          <button
            type="button"
            className="btn btn--primary"
            title="Open it in the Composer's test panel, ready to run"
            onClick={() => {
              // The Composer asks first if it holds unsaved edits to another skill.
              void stores.composer.getState().openToRun(docKey(skill));
              stores.app.getState().navigate('composer');
            }}
          >
            <Icon name="send" /> Run
          </button>
          <button
            type="button"
            className="btn"
            onClick={() => {
              void stores.composer.getState().openSkill(docKey(skill));
              stores.app.getState().navigate('composer');
            }}
          >
            <Icon name="pencil" /> Open in Composer
          </button>
          <button
            type="button"
            className="btn"
            aria-label="Export"
            title="Export"
            onClick={() => void onExport()}
          >
            <Icon name="download" /> <span className="detail__action-label">Export</span>
          </button>
          <button
            type="button"
            className="btn btn--ghost-danger"
            aria-label="Delete"
            title="Delete"
            onClick={() => requestDelete(key)}
          >
            <Icon name="trash" /> <span className="detail__action-label">Delete</span>
          </button>
          <button
            type="button"
            className="btn btn--icon"
            onClick={closeDetail}
            aria-label="Close skill (Esc)"
            title="Close (Esc)"
          >
            <Icon name="close" />
          </button>
        </div>
      </header>
      {exportError && (
        <div className="callout callout--error" role="alert">
          <Icon name="alert" />
          <p>Export failed: {exportError}</p>
        </div>
      )}
      {skill.overridden && (
        <div className="callout callout--info">
          <Icon name="alert" />
          <p>
            A workspace skill named <strong>{skill.name}</strong> is used instead of this one. Delete the
            workspace copy to bring this one back.
          </p>
        </div>
      )}
      <p className="detail__desc">{skill.description}</p>
      {skill.when && (
        <div className="when">
          <span className="when__label">Use when</span>
          <p>{skill.when}</p>
        </div>
      )}
      <dl className="facts">
        {skill.trigger_phrases.length > 0 && (
          <div>
            <dt>Trigger phrases</dt>
            <dd>
              <PhraseList items={skill.trigger_phrases} quoted />
            </dd>
          </div>
        )}
        {skill.intent_patterns.length > 0 && (
          <div>
            <dt>Intents</dt>
            <dd>
              <PhraseList items={skill.intent_patterns} />
            </dd>
          </div>
        )}
        {skill.tags.length > 0 && (
          <div>
            <dt>Tags</dt>
            <dd>
              <PhraseList items={skill.tags.map((t) => `#${t}`)} />
            </dd>
          </div>
        )}
        {skill.requires.length > 0 && (
          <div>
            <dt>Needs</dt>
            <dd>{skill.requires.join(', ')}</dd>
          </div>
        )}
        {skill.author && (
          <div>
            <dt>Author</dt>
            <dd>{skill.author}</dd>
          </div>
        )}
        {skill.license && (
          <div>
            <dt>License</dt>
            <dd>{skill.license}</dd>
          </div>
        )}
        <div>
          <dt>Updated</dt>
          <dd>{formatDate(skill.updated_at)}</dd>
        </div>
      </dl>
      <SkillVersions key={`versions-${key}`} name={skill.name} scope={skill.scope} />
      <SkillScripts key={`scripts-${key}`} name={skill.name} reloadKey={packagesInstalled} />
      <SkillPackages key={key} skill={skill} onInstalled={() => setPackagesInstalled((n) => n + 1)} />
      <h3 className="section-title">
        Artifacts <span className="count">{skill.artifacts.length}</span>
      </h3>
      <div className="artifacts">
        {skill.artifacts.map((a) => (
          <ArtifactCard key={a.id} a={a} />
        ))}
      </div>
    </article>
  );
}
