import { type AttachmentInput, base64Bytes } from '../../../electron/contract/chat.js';
import type { SkillListItem } from '../../../electron/contract/skills.js';
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
  return items
    .filter((s) => !s.overridden && s.name.toLowerCase().includes(q))
    .sort((a, b) => Number(!a.name.toLowerCase().startsWith(q)) - Number(!b.name.toLowerCase().startsWith(q)))
    .slice(0, 8);
}

/** The `/` menu: skills by name; ↑↓ move, Enter or Tab picks, Esc closes. */
export function SlashMenu(props: {
  items: SkillListItem[];
  cursor: number;
  onPick: (s: SkillListItem) => void;
}) {
  if (props.items.length === 0)
    return (
      <div className="slash" role="status">
        <p className="slash__empty">No skill by that name. Keep typing to send it as text.</p>
      </div>
    );
  return (
    <div className="slash">
      <p className="slash__head">Run a skill</p>
      <div className="slash__list" role="listbox" id="slash-menu" aria-label="Skills">
        {props.items.map((s, i) => (
          <div
            key={`${s.scope}:${s.name}`}
            tabIndex={-1}
            id={`slash-${i}`}
            role="option"
            aria-selected={i === props.cursor}
            className={`slash__item${i === props.cursor ? ' is-on' : ''}`}
            onMouseDown={(e) => {
              e.preventDefault();
              props.onPick(s);
            }}
          >
            <span className="slash__name">{s.name}</span>
            <span className="slash__desc">{s.description}</span>
          </div>
        ))}
      </div>
    </div>
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

/** Files waiting to go with the next message, each removable; refusals said in words. */
export function PendingAttachments(props: {
  files: AttachmentInput[];
  errors: string[];
  onRemove: (name: string) => void;
  onDismissErrors: () => void;
}) {
  if (props.files.length === 0 && props.errors.length === 0) return null;
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
                  ? `${f.name}: the model sees this image; skills receive text files only`
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
                {fileSize(f.data !== undefined ? base64Bytes(f.data) : new Blob([f.text ?? '']).size)}
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
