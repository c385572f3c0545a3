import { useId, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { languageOfKind } from '../../../electron/contract/kinds.js';
import { ARTIFACT_KINDS, type ArtifactKindName } from '../../../electron/contract/skills.js';
import { useComposerStore } from '../../stores.js';
import { KIND_HELP, KIND_LABELS, KindChip } from '../../ui/badges.js';
import { Icon } from '../../ui/Icon.js';
import { CodeEditor, type CodeLanguage, type EditorProblem } from './CodeEditor.js';
import { type EditorDoc, templateMessage } from './composer-state.js';
import { artifactIssues, fieldIssues, issueTarget, isTemplate, templateVariables } from './draft.js';
import { FIRST_ADDED, KIND_EDITORS } from './kind-editors.js';
import { FieldIssues } from './PackageForm.js';

/** Artifact fields whose problems are said under the field itself. */
const SHOWN_AT_FIELD = new Set(['name', 'model_variant', 'content', 'metadata']);

/** The language each kind's content is written in. */
export function languageOf(kind: ArtifactKindName, name: string): CodeLanguage {
  return languageOfKind(kind, name);
}

/** The artifact list (add, remove, reorder) and the selected artifact's editors. */
export function ArtifactsEditor({ doc }: { doc: EditorDoc }) {
  const s = useComposerStore(
    useShallow((st) => ({
      selected: st.selected,
      issues: st.validation.issues,
      templates: st.validation.templates,
      variables: st.validation.variables,
      warnings: st.validation.warnings,
      select: st.selectArtifact,
      add: st.addArtifact,
      addVariant: st.addVariant,
      remove: st.removeArtifact,
      move: st.moveArtifact,
      change: st.changeArtifact,
    })),
  );
  const [adding, setAdding] = useState<ArtifactKindName>(FIRST_ADDED);
  const [compareKey, setCompareKey] = useState<string | null>(null);
  const arts = doc.draft.artifacts;
  const index = arts.findIndex((a) => a.key === s.selected);
  const a = index >= 0 ? arts[index]! : null;
  const ids = useId();
  const tplError = a ? s.templates[a.key] : undefined;
  const problems = useMemo<EditorProblem[]>(
    () => (tplError ? [{ message: tplError.message, line: tplError.line, column: tplError.column }] : []),
    [tplError],
  );
  const editor = a ? KIND_EDITORS[a.kind] : null;
  // Other model variants of the selected artifact, to edit side by side (where its kind has them).
  const siblings =
    a && editor?.variants
      ? arts.filter((x) => x.key !== a.key && x.kind === a.kind && x.name === a.name)
      : [];
  const other = siblings.find((x) => x.key === compareKey) ?? null;
  const otherError = other ? s.templates[other.key] : undefined;
  const otherProblems = useMemo<EditorProblem[]>(
    () =>
      otherError ? [{ message: otherError.message, line: otherError.line, column: otherError.column }] : [],
    [otherError],
  );
  const serverVars = a ? s.variables[a.key] : undefined;
  const vars = useMemo(
    () => (a && isTemplate(a) ? (serverVars ?? templateVariables(a.content)) : []),
    [a, serverVars],
  );

  const opaque = a ? (editor?.opaque?.(a) ?? null) : null;
  const Bar = editor?.Bar;

  return (
    <section className="sc-card sc-arts" aria-label="Artifacts">
      <div className="sc-card__head">
        <h2 className="sc-h2">Artifacts</h2>
        <div className="sc-row">
          <label className="sc-select">
            <span className="visually-hidden">Kind of the new artifact</span>
            <select value={adding} onChange={(e) => setAdding(e.target.value as ArtifactKindName)}>
              {ARTIFACT_KINDS.map((k) => (
                <option key={k} value={k}>
                  {KIND_LABELS[k]} — {KIND_HELP[k]}
                </option>
              ))}
            </select>
            <Icon name="chevronDown" />
          </label>
          <button type="button" className="btn btn--small" onClick={() => s.add(adding)}>
            <Icon name="plus" />
            Add artifact
          </button>
        </div>
      </div>
      <FieldIssues issues={fieldIssues(s.issues, 'artifacts')} />
      <ol className="sc-artlist" aria-label="Artifacts of this skill">
        {arts.map((x, i) => {
          const bad = artifactIssues(s.issues, i).length > 0 || s.templates[x.key] !== undefined;
          return (
            <li
              key={x.key}
              className={`sc-art${x.key === s.selected ? ' is-on' : ''}${bad ? ' is-invalid' : ''}`}
            >
              <button
                type="button"
                className="sc-art__pick"
                aria-pressed={x.key === s.selected}
                onClick={() => s.select(x.key)}
              >
                <span className="sc-art__ord">{i + 1}</span>
                <KindChip kind={x.kind} />
                <span className="sc-art__name">{x.name || 'Unnamed'}</span>
                {x.model_variant && <span className="pill pill--mono">{x.model_variant}</span>}
                {bad && <Icon name="alert" label="Has problems" />}
              </button>
              <span className="sc-art__tools">
                <button
                  type="button"
                  className="btn btn--icon btn--small"
                  disabled={i === 0}
                  onClick={() => s.move(x.key, -1)}
                  aria-label={`Move ${x.name} up`}
                  title="Move up"
                >
                  <Icon name="chevronDown" size={14} />
                </button>
                <button
                  type="button"
                  className="btn btn--icon btn--small sc-flip"
                  disabled={i === arts.length - 1}
                  onClick={() => s.move(x.key, 1)}
                  aria-label={`Move ${x.name} down`}
                  title="Move down"
                >
                  <Icon name="chevronDown" size={14} />
                </button>
                <button
                  type="button"
                  className="btn btn--icon btn--small"
                  disabled={arts.length === 1}
                  onClick={() => s.remove(x.key)}
                  aria-label={`Remove ${x.name}`}
                  title={arts.length === 1 ? 'A skill needs at least one artifact' : 'Remove'}
                >
                  <Icon name="trash" size={14} />
                </button>
              </span>
            </li>
          );
        })}
      </ol>
      {a && (
        <div className="sc-artedit" key={a.key}>
          <div className="sc-form sc-form--3">
            <div className={`sc-field${artifactIssues(s.issues, index, 'name').length ? ' is-invalid' : ''}`}>
              <label htmlFor={`${ids}-name`}>Artifact name</label>
              <input
                id={`${ids}-name`}
                className="sc-input"
                value={a.name}
                onChange={(e) => s.change(a.key, { name: e.target.value })}
              />
              <FieldIssues issues={artifactIssues(s.issues, index, 'name')} />
            </div>
            <div className="sc-field">
              <label htmlFor={`${ids}-kind`}>Kind</label>
              <label className="sc-select sc-select--block">
                <select
                  id={`${ids}-kind`}
                  value={a.kind}
                  onChange={(e) => s.change(a.key, { kind: e.target.value as ArtifactKindName })}
                >
                  {ARTIFACT_KINDS.map((k) => (
                    <option key={k} value={k}>
                      {KIND_LABELS[k]}
                    </option>
                  ))}
                </select>
                <Icon name="chevronDown" />
              </label>
            </div>
            <div
              className={`sc-field${artifactIssues(s.issues, index, 'model_variant').length ? ' is-invalid' : ''}`}
            >
              <label htmlFor={`${ids}-variant`}>Model variant</label>
              <input
                id={`${ids}-variant`}
                className="sc-input sc-input--mono"
                placeholder="any model"
                value={a.model_variant}
                onChange={(e) => s.change(a.key, { model_variant: e.target.value })}
              />
              <FieldIssues issues={artifactIssues(s.issues, index, 'model_variant')} />
            </div>
          </div>
          <FieldIssues
            issues={artifactIssues(s.issues, index).filter((i) => {
              const t = issueTarget(i.path);
              return t.at === 'artifact' && !SHOWN_AT_FIELD.has(t.field);
            })}
          />
          <div className="sc-codehead">
            <span className="sc-label">{editor?.content_label}</span>
            {vars.length > 0 && (
              <span className="sc-vars" title="Variables the template reads">
                {vars.map((v) => (
                  <code key={v}>{v}</code>
                ))}
              </span>
            )}
          </div>
          {Bar && <Bar a={a} skill={doc.origin?.name ?? null} />}
          {editor?.variants && (
            <div className="sc-variants">
              <button type="button" className="btn btn--small" onClick={() => s.addVariant(a.key)}>
                <Icon name="copy" />
                Add model variant
              </button>
              {siblings.length > 0 && (
                <label className="sc-select">
                  <span className="visually-hidden">Compare with another variant</span>
                  <select value={other?.key ?? ''} onChange={(e) => setCompareKey(e.target.value || null)}>
                    <option value="">Side by side with…</option>
                    {siblings.map((x) => (
                      <option key={x.key} value={x.key}>
                        {x.model_variant || 'any model'}
                      </option>
                    ))}
                  </select>
                  <Icon name="chevronDown" />
                </label>
              )}
            </div>
          )}
          <div className={other ? 'sc-sidebyside' : undefined}>
            <div className="sc-pane">
              {other && <p className="sc-pane__label">{a.model_variant || 'any model'}</p>}
              <div
                className={`sc-code${tplError || artifactIssues(s.issues, index, 'content').length ? ' is-invalid' : ''}`}
              >
                {opaque ? (
                  <p className="sc-binary">{opaque}</p>
                ) : (
                  <CodeEditor
                    value={a.content}
                    onChange={(v) => s.change(a.key, { content: v })}
                    language={languageOf(a.kind, a.name)}
                    label={`Content of ${a.name}`}
                    problems={problems}
                    testId="artifact-content"
                  />
                )}
              </div>
              {tplError && (
                <p className="sc-issues sc-issues--tpl" role="status">
                  <Icon name="alert" /> {templateMessage(tplError)}
                </p>
              )}
            </div>
            {other && (
              <div className="sc-pane">
                <p className="sc-pane__label">
                  {other.model_variant || 'any model'}
                  <button type="button" className="linkish" onClick={() => s.select(other.key)}>
                    Edit its settings
                  </button>
                </p>
                <div className={`sc-code${otherError ? ' is-invalid' : ''}`}>
                  <CodeEditor
                    key={other.key}
                    value={other.content}
                    onChange={(v) => s.change(other.key, { content: v })}
                    language={languageOf(other.kind, other.name)}
                    label={`Content of ${other.name} (${other.model_variant || 'any model'})`}
                    problems={otherProblems}
                  />
                </div>
                {otherError && (
                  <p className="sc-issues sc-issues--tpl" role="status">
                    <Icon name="alert" /> {templateMessage(otherError)}
                  </p>
                )}
              </div>
            )}
          </div>
          <FieldIssues issues={artifactIssues(s.issues, index, 'content')} />
          <div className="sc-codehead">
            <span className="sc-label">Metadata (JSON)</span>
            <span className="sc-field__help">limits, assertions, fallback_artifact, tool declaration</span>
          </div>
          <div
            className={`sc-code sc-code--meta${artifactIssues(s.issues, index, 'metadata').length ? ' is-invalid' : ''}`}
          >
            <CodeEditor
              value={a.metadata}
              onChange={(v) => s.change(a.key, { metadata: v })}
              language="json"
              label={`Metadata of ${a.name}`}
              placeholder='{ "assertions": [] }'
            />
          </div>
          <FieldIssues issues={artifactIssues(s.issues, index, 'metadata')} />
          <FieldIssues issues={artifactIssues(s.warnings, index)} tone="warning" />
        </div>
      )}
    </section>
  );
}
