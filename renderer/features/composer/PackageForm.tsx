import { type ReactNode, useId } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ValidationIssue } from '../../../electron/contract/skills.js';
import { useComposerStore } from '../../stores.js';
import type { DraftField, EditorDoc } from './composer-state.js';
import { fieldIssues } from './draft.js';

/** The problems validation found at one field, said under it. */
export function FieldIssues({
  issues,
  id,
  tone,
}: {
  issues: readonly ValidationIssue[];
  id?: string;
  /** Warnings are said in amber and never block a save. */
  tone?: 'warning';
}) {
  if (issues.length === 0) return null;
  return (
    <ul className={`sc-issues${tone ? ' sc-issues--warn' : ''}`} id={id}>
      {issues.map((i) => (
        <li key={`${i.path}:${i.message}`}>
          {tone && <span className="visually-hidden">Warning: </span>}
          <code>{i.path}</code> {i.message}
        </li>
      ))}
    </ul>
  );
}

function Field(props: {
  label: string;
  help?: string;
  issues: readonly ValidationIssue[];
  wide?: boolean;
  children: (id: string, describedBy: string | undefined, invalid: boolean) => ReactNode;
}) {
  const id = useId();
  const errId = `${id}-err`;
  const invalid = props.issues.length > 0;
  return (
    <div className={`sc-field${props.wide ? ' sc-field--wide' : ''}${invalid ? ' is-invalid' : ''}`}>
      <label htmlFor={id}>{props.label}</label>
      {props.children(id, invalid ? errId : undefined, invalid)}
      {props.help && !invalid && <span className="sc-field__help">{props.help}</span>}
      <FieldIssues issues={props.issues} id={errId} />
    </div>
  );
}

/** Bump the last number of a version: 1.2.3 → 1.2.4. */
export function bumpVersion(v: string): string {
  const m = /^(\d+(?:\.\d+)*)(.*)$/.exec(v.trim());
  if (!m) return '1.0.0';
  const parts = m[1]!.split('.').map(Number);
  while (parts.length < 3) parts.push(0);
  parts[parts.length - 1]! += 1;
  return parts.join('.');
}

/** Every field of the package (the artifacts have their own editor). */
export function PackageForm({ doc }: { doc: EditorDoc }) {
  const s = useComposerStore(
    useShallow((st) => ({
      issues: st.validation.issues,
      setField: st.setField,
      setScope: st.setScope,
      ws: st.workspaceOpen,
    })),
  );
  const d = doc.draft;
  const at = (f: string) => fieldIssues(s.issues, f);
  const text = (
    field: DraftField,
    label: string,
    opts: { help?: string; wide?: boolean; placeholder?: string } = {},
  ) => (
    <Field label={label} help={opts.help} issues={at(field)} wide={opts.wide}>
      {(id, desc, invalid) => (
        <input
          id={id}
          className="sc-input"
          value={d[field] as string}
          placeholder={opts.placeholder}
          aria-describedby={desc}
          aria-invalid={invalid || undefined}
          onChange={(e) => s.setField(field, e.target.value)}
        />
      )}
    </Field>
  );
  const lines = (field: DraftField, label: string, help: string) => (
    <Field label={label} help={help} issues={at(field)}>
      {(id, desc, invalid) => (
        <textarea
          id={id}
          className="sc-input sc-input--area"
          rows={3}
          value={d[field] as string}
          aria-describedby={desc}
          aria-invalid={invalid || undefined}
          onChange={(e) => s.setField(field, e.target.value)}
        />
      )}
    </Field>
  );

  return (
    <section className="sc-card" aria-label="Package">
      <div className="sc-form">
        <Field label="Name" issues={at('name')}>
          {(id, desc, invalid) => (
            <input
              id={id}
              className="sc-input"
              value={d.name}
              aria-describedby={desc}
              aria-invalid={invalid || undefined}
              onChange={(e) => s.setField('name', e.target.value)}
            />
          )}
        </Field>
        <Field label="Version" issues={at('version')}>
          {(id, desc, invalid) => (
            <div className="sc-row">
              <input
                id={id}
                className="sc-input sc-input--mono"
                value={d.version}
                aria-describedby={desc}
                aria-invalid={invalid || undefined}
                onChange={(e) => s.setField('version', e.target.value)}
              />
              <button
                type="button"
                className="btn btn--small"
                title="Raise the last number of the version"
                onClick={() => s.setField('version', bumpVersion(d.version))}
              >
                Bump
              </button>
            </div>
          )}
        </Field>
        <Field label="Description" issues={at('description')} wide>
          {(id, desc, invalid) => (
            <textarea
              id={id}
              className="sc-input sc-input--area"
              rows={2}
              value={d.description}
              aria-describedby={desc}
              aria-invalid={invalid || undefined}
              onChange={(e) => s.setField('description', e.target.value)}
            />
          )}
        </Field>
        {text('tags', 'Tags', { help: 'Comma-separated', placeholder: 'writing, email' })}
        {text('author', 'Author')}
        {lines('trigger_phrases', 'Trigger phrases', 'One per line; a verbatim match activates the skill')}
        {lines('intent_patterns', 'Intent patterns', 'One per line')}
        {text('when', 'When', { wide: true, placeholder: 'The user asks for…' })}
        <Field label="Source" issues={at('source')}>
          {(id) => (
            <label className="sc-select sc-select--block">
              <select
                id={id}
                value={d.source}
                onChange={(e) => s.setField('source', e.target.value)}
                disabled={d.source === 'system'}
              >
                {d.source === 'system' && <option value="system">Built-in</option>}
                <option value="user">User</option>
                <option value="community">Community</option>
                <option value="">Not set</option>
              </select>
            </label>
          )}
        </Field>
        <Field label="Save to" issues={[]} help={doc.origin ? 'A saved skill stays in its store' : undefined}>
          {(id) => (
            <label className="sc-select sc-select--block">
              <select
                id={id}
                value={doc.scope}
                disabled={doc.origin !== null}
                onChange={(e) => s.setScope(e.target.value as EditorDoc['scope'])}
              >
                <option value="account">Account</option>
                <option value="workspace" disabled={!s.ws}>
                  Workspace{s.ws ? '' : ' (none open)'}
                </option>
              </select>
            </label>
          )}
        </Field>
        {text('modalities', 'Modalities', { help: 'Comma-separated: text, image…' })}
        {text('requires', 'Requires', { help: 'Comma-separated: llm, python…' })}
        <div className="sc-field sc-field--wide">
          <label className="sc-check">
            <input
              type="checkbox"
              checked={d.always_on}
              onChange={(e) => s.setField('always_on', e.target.checked)}
            />
            <span>
              Always on{' '}
              <span className="sc-field__help">— injected in every chat, not only when matched</span>
            </span>
          </label>
        </div>
        <details className="sc-field--wide sc-more">
          <summary>Agent Skills fields</summary>
          <div className="sc-form">
            {text('license', 'License')}
            {text('compatibility', 'Compatibility')}
            {text('allowed_tools', 'Allowed tools', { wide: true, placeholder: 'Bash(git:*) Read' })}
          </div>
        </details>
      </div>
    </section>
  );
}
