import { Fragment } from 'react';
import { type AttachmentInput, base64Bytes } from '../../../electron/contract/chat.js';
import type { SkillListItem } from '../../../electron/contract/skills.js';
import type { McpPromptView } from '../../../electron/contract/tools.js';
import type { Client } from '../../bridge/client.js';
import { Icon } from '../../ui/Icon.js';
import { fileSize, useImageUrl } from './Message.js';

// Keys the harness fills for every skill run: never asked of the user.
const HARNESS_KEYS = new Set(['session_id', 'attachments', 'workspace']);

/** The variables a skill's templates read (prompt and code templates), harness keys left out. */
export async function skillVariables(client: Client, name: string): Promise<string[]> {
  const { skill } = await client.invoke('skills/get', { name });
  const templates = skill.artifacts.filter((a) => a.kind === 'prompt_template' || a.kind === 'code_template');
  const found = new Set<string>();
  for (const t of templates) {
    const r = await client.call('skills/validate', { kind: 'template', source: t.content, name: t.name });
    if (r.ok && r.value.ok) for (const v of r.value.variables ?? []) if (!HARNESS_KEYS.has(v)) found.add(v);
  }
  return [...found];
}

/** Skills whose name matches what follows `/`: names starting with it first. */
export function slashMatches(items: SkillListItem[], query: string): SkillListItem[] {
  const q = query.toLowerCase();
  // The app's own skills (the Composer's, the eval judge's) are not the user's to run from chat;
  // nor is one whose SKILL.md says `user-invocable: false` (Claude Code's: the model's to use), nor
  // one the user switched off (name-only stays: started by name is what it is for).
  const offered = (s: SkillListItem) =>
    !s.overridden && !s.internal && s.user_invocable !== false && s.switch !== 'off';
  return items
    .filter((s) => offered(s) && s.name.toLowerCase().includes(q))
    .sort((a, b) => Number(!a.name.toLowerCase().startsWith(q)) - Number(!b.name.toLowerCase().startsWith(q)))
    .slice(0, 8);
}

/** A line of the `/` menu: a skill to run, or a prompt of a connected MCP server. */
export type SlashItem = { kind: 'skill'; skill: SkillListItem } | { kind: 'prompt'; prompt: McpPromptView };

/** MCP prompts whose name or title matches what follows `/`: names starting with it first. */
export function promptMatches(items: McpPromptView[], query: string): McpPromptView[] {
  const q = query.toLowerCase();
  const starts = (p: McpPromptView) =>
    p.name.toLowerCase().startsWith(q) || (p.title ?? '').toLowerCase().startsWith(q);
  return items
    .filter((p) => p.name.toLowerCase().includes(q) || (p.title ?? '').toLowerCase().includes(q))
    .sort((a, b) => Number(!starts(a)) - Number(!starts(b)))
    .slice(0, 6);
}

/** The `/` menu's lines: skills first, then the servers' prompts. */
export function slashItems(skills: SkillListItem[], prompts: McpPromptView[], query: string): SlashItem[] {
  return [
    ...slashMatches(skills, query).map((skill) => ({ kind: 'skill' as const, skill })),
    ...promptMatches(prompts, query).map((prompt) => ({ kind: 'prompt' as const, prompt })),
  ];
}

/** The `/` menu: skills by name, then MCP prompts; ↑↓ move, Enter or Tab picks, Esc closes. */
export function SlashMenu(props: { items: SlashItem[]; cursor: number; onPick: (s: SlashItem) => void }) {
  if (props.items.length === 0)
    return (
      <div className="slash" role="status">
        <p className="slash__empty">No skill or prompt by that name. Keep typing to send it as text.</p>
      </div>
    );
  const line = (item: SlashItem, i: number) => (
    <div
      tabIndex={-1}
      id={`slash-${i}`}
      role="option"
      aria-selected={i === props.cursor}
      className={`slash__item${i === props.cursor ? ' is-on' : ''}`}
      onMouseDown={(e) => {
        e.preventDefault();
        props.onPick(item);
      }}
    >
      {item.kind === 'skill' ? (
        <>
          <span className="slash__name">
            {item.skill.name}
            {item.skill.argument_hint && <span className="slash__hint"> {item.skill.argument_hint}</span>}
          </span>
          <span className="slash__desc">{item.skill.description}</span>
        </>
      ) : (
        <>
          <span className="slash__name">{item.prompt.title ?? item.prompt.name}</span>
          <span className="slash__desc">
            {item.prompt.server}
            {item.prompt.description ? ` · ${item.prompt.description}` : ''}
          </span>
        </>
      )}
    </div>
  );
  const skills = props.items.filter((x) => x.kind === 'skill');
  return (
    <div className="slash">
      <p className="slash__head">{skills.length > 0 ? 'Run a skill' : 'MCP prompts'}</p>
      <div className="slash__list" role="listbox" id="slash-menu" aria-label="Skills">
        {props.items.map((item, i) => (
          <Fragment
            key={
              item.kind === 'skill'
                ? `s:${item.skill.scope}:${item.skill.name}`
                : `p:${item.prompt.server}:${item.prompt.name}`
            }
          >
            {item.kind === 'prompt' && i === skills.length && i > 0 && (
              <p className="slash__head" role="presentation">
                MCP prompts
              </p>
            )}
            {line(item, i)}
          </Fragment>
        ))}
      </div>
    </div>
  );
}

/** An MCP prompt picked from the `/` menu: its arguments to fill before it becomes the message. */
export interface PickedPrompt {
  prompt: McpPromptView;
  values: Record<string, string>;
  busy: boolean;
  error: string | null;
}

/**
 * The text a filled prompt puts in the message box: its messages, in order (a prompt written as
 * a conversation keeps who said what).
 */
export function promptText(messages: Array<{ role: 'user' | 'assistant'; text: string }>): string {
  if (messages.every((m) => m.role === 'user')) return messages.map((m) => m.text).join('\n\n');
  return messages.map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${m.text}`).join('\n\n');
}

/** A form with a field per argument of the picked prompt; *Use prompt* puts it in the message box. */
export function PromptPanel(props: {
  picked: PickedPrompt;
  onChange: (values: Record<string, string>) => void;
  onUse: () => void;
  onRemove: () => void;
}) {
  const { prompt, values } = props.picked;
  const label = prompt.title ?? prompt.name;
  const missing = prompt.arguments.filter((a) => a.required && !(values[a.name] ?? '').trim());
  return (
    <form
      className="skillrun"
      aria-label={`Prompt ${label} of ${prompt.server}`}
      onSubmit={(e) => {
        e.preventDefault();
        if (missing.length === 0 && !props.picked.busy) props.onUse();
      }}
    >
      <div className="skillrun__head">
        <Icon name="sparkle" />
        <span>
          Prompt <strong>{label}</strong> from {prompt.server}
        </span>
        <button
          type="button"
          className="btn btn--icon btn--small"
          aria-label={`Close ${label}`}
          onClick={props.onRemove}
        >
          <Icon name="close" />
        </button>
      </div>
      {prompt.description && <p className="muted skillrun__note">{prompt.description}</p>}
      {props.picked.error && (
        <p className="skillrun__error" role="alert">
          {props.picked.error}
        </p>
      )}
      {prompt.arguments.length > 0 && (
        <div className="skillrun__vars">
          {prompt.arguments.map((a) => (
            <div key={a.name} className="skillrun__var">
              <label htmlFor={`prompt-arg-${a.name}`} className="mono">
                {a.title ?? a.name}
                {a.required ? ' *' : ''}
              </label>
              <textarea
                id={`prompt-arg-${a.name}`}
                rows={1}
                required={a.required}
                value={values[a.name] ?? ''}
                placeholder={a.description ?? (a.required ? 'Required' : 'Optional')}
                onChange={(e) => props.onChange({ ...values, [a.name]: e.target.value })}
              />
            </div>
          ))}
        </div>
      )}
      <div className="skillrun__head">
        <button type="submit" className="btn btn--small" disabled={missing.length > 0 || props.picked.busy}>
          {props.picked.busy ? 'Getting the prompt…' : 'Use prompt'}
        </button>
        {missing.length > 0 && (
          <span className="muted">Fill {missing.map((a) => a.title ?? a.name).join(', ')}</span>
        )}
      </div>
    </form>
  );
}

/** A skill picked from the `/` menu: its variables to fill (a field can take an attached file's text). */
export interface PickedSkill {
  name: string;
  /** Null while the variables load. */
  variables: string[] | null;
  values: Record<string, string>;
  error: string | null;
}

/** The picked skill with a field per variable; the message sent with it runs the skill first. */
export function SkillPanel(props: {
  skill: PickedSkill;
  attachments: AttachmentInput[];
  onChange: (values: Record<string, string>) => void;
  onRemove: () => void;
}) {
  const { skill } = props;
  return (
    <section className="skillrun" aria-label={`Run ${skill.name}`}>
      <div className="skillrun__head">
        <Icon name="sparkle" />
        <span>
          Runs <strong>{skill.name}</strong> before the reply
        </span>
        <button
          type="button"
          className="btn btn--icon btn--small"
          aria-label={`Don’t run ${skill.name}`}
          onClick={props.onRemove}
        >
          <Icon name="close" />
        </button>
      </div>
      {skill.error && <p className="skillrun__error">{skill.error}</p>}
      {skill.variables === null ? (
        <p className="muted skillrun__note">Reading its variables…</p>
      ) : skill.variables.length === 0 ? (
        <p className="muted skillrun__note">It needs no variables; attached text files reach it too.</p>
      ) : (
        <div className="skillrun__vars">
          {skill.variables.map((v) => (
            <div key={v} className="skillrun__var">
              <label htmlFor={`var-${v}`} className="mono">
                {v}
              </label>
              <textarea
                id={`var-${v}`}
                rows={1}
                value={props.skill.values[v] ?? ''}
                placeholder={
                  props.attachments.some((a) => a.text !== undefined)
                    ? 'Type a value or use a file →'
                    : 'Value'
                }
                onChange={(e) => props.onChange({ ...skill.values, [v]: e.target.value })}
              />
              {props.attachments
                .filter((a) => a.text !== undefined)
                .map((a) => (
                  <button
                    key={a.name}
                    type="button"
                    className="btn btn--small"
                    onClick={() => props.onChange({ ...skill.values, [v]: a.text ?? '' })}
                    title={`Fill ${v} with the text of ${a.name}`}
                  >
                    <Icon name="file" /> Use {a.name}
                  </button>
                ))}
            </div>
          ))}
        </div>
      )}
    </section>
  );
}

/** The thumbnail of an image waiting to be sent. */
function ChipThumb(props: { name: string; media_type: string; data: string }) {
  const src = useImageUrl(props.media_type, props.data);
  return src ? <img className="attach-chip__thumb" src={src} alt={props.name} /> : <Icon name="file" />;
}

/**
 * Files waiting to go with the next message, each removable; refusals said in words, and what a
 * file left out (`notes`: a long PDF's later pages); PDFs still being read (`reading`).
 */
export function PendingAttachments(props: {
  files: AttachmentInput[];
  errors: string[];
  notes?: string[];
  reading?: string[];
  onRemove: (name: string) => void;
  onDismissErrors: () => void;
}) {
  const notes = props.notes ?? [];
  const reading = props.reading ?? [];
  if (props.files.length === 0 && props.errors.length === 0 && reading.length === 0) return null;
  return (
    <div className="attach-bar">
      {props.files.length > 0 && (
        <ul className="attach-list" aria-label="Files to send">
          {props.files.map((f) => (
            <li
              key={f.name}
              className={f.data !== undefined ? 'attach-chip attach-chip--image' : 'attach-chip'}
              title={
                f.data !== undefined
                  ? `${f.name}: the model sees this image; skills' scripts get it as inputs/${f.name}`
                  : f.media_type === 'application/pdf'
                    ? `${f.name}: the model reads its text, page by page; skills' scripts get the PDF itself as inputs/${f.name}`
                    : f.text === undefined
                      ? `${f.name}: kept as a file; the model is told it is there, skills' scripts get it as inputs/${f.name}`
                      : `${f.name}: the model and skills read this file`
              }
            >
              {f.data !== undefined ? (
                <ChipThumb name={f.name} media_type={f.media_type} data={f.data} />
              ) : (
                <Icon name="file" />
              )}{' '}
              <span className="attach-chip__name">{f.name}</span>
              <span className="attach-chip__size">
                {f.media_type === 'application/pdf'
                  ? (/, (\d+ pages?);/.exec(f.text?.slice(0, 400) ?? '')?.[1] ?? 'PDF')
                  : f.text === undefined && f.data === undefined
                    ? 'file'
                    : fileSize(f.data !== undefined ? base64Bytes(f.data) : new Blob([f.text ?? '']).size)}
              </span>
              <button
                type="button"
                className="attach-chip__x"
                aria-label={`Remove ${f.name}`}
                onClick={() => props.onRemove(f.name)}
              >
                <Icon name="close" />
              </button>
            </li>
          ))}
        </ul>
      )}
      {reading.length > 0 && (
        <p className="muted attach-reading" role="status">
          Reading the text of {reading.join(', ')}…
        </p>
      )}
      {notes.length > 0 && (
        <ul className="attach-notes muted" aria-label="Left out of attached files">
          {notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
      {props.errors.length > 0 && (
        <div className="callout callout--error attach-errors" role="alert">
          <Icon name="alert" />
          <ul>
            {props.errors.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
          <button
            type="button"
            className="btn btn--icon btn--small"
            aria-label="Dismiss"
            onClick={props.onDismissErrors}
          >
            <Icon name="close" />
          </button>
        </div>
      )}
    </div>
  );
}
