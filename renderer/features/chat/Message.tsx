import { useState } from 'react';
import { Icon } from '../../ui/Icon.js';
import { Markdown } from '../../ui/Markdown.js';
import type { UiMessage, UiToolCall } from './chat-store.js';

/** A short description of a tool call's arguments. */
function argsLabel(c: UiToolCall): string {
  const a = (c.args && typeof c.args === 'object' ? c.args : {}) as Record<string, unknown>;
  const bits = [c.skill ?? a.name, a.query, a.artifact].filter((x): x is string => typeof x === 'string');
  return bits.join(' · ');
}

/** Skill activity inline in a reply: "⚙ apply_skill Summarize → ok", expanding to artifacts and traces. */
export function ToolChip({ call, onTrace }: { call: UiToolCall; onTrace: (id: string) => void }) {
  const [open, setOpen] = useState(false);
  const outcome = call.status === 'running' ? 'running…' : call.status === 'ok' ? 'ok' : 'failed';
  const traces = call.trace_ids ?? [];
  const hasMore = Boolean(call.artifacts?.length || traces.length);
  return (
    <div className={`tool tool--${call.status}${open ? ' is-open' : ''}`}>
      <button
        type="button"
        className="tool__chip"
        aria-expanded={hasMore ? open : undefined}
        onClick={() => hasMore && setOpen((v) => !v)}
      >
        <span aria-hidden="true">⚙</span>
        <span className="tool__name">{call.name}</span>
        {argsLabel(call) && <span className="tool__args">{argsLabel(call)}</span>}
        <span className="tool__arrow" aria-hidden="true">
          →
        </span>
        <span className="tool__outcome">
          {call.status === 'running' && <span className="spinner spinner--tiny" aria-hidden="true" />}
          {outcome}
        </span>
        {hasMore && <Icon name={open ? 'chevronDown' : 'chevronRight'} />}
      </button>
      {open && hasMore && (
        <div className="tool__more">
          {call.artifacts?.length ? (
            <p>
              <span className="muted">Artifacts</span> {call.artifacts.join(', ')}
            </p>
          ) : null}
          {traces.length > 0 && (
            <p className="tool__traces">
              <span className="muted">Traces</span>
              {traces.map((id) => (
                <button key={id} type="button" className="trace-link mono" onClick={() => onTrace(id)}>
                  <Icon name="activity" /> {id.slice(0, 8)}
                </button>
              ))}
            </p>
          )}
        </div>
      )}
    </div>
  );
}

function usageLine(m: UiMessage): string | null {
  if (!m.model_id) return null;
  const model = m.model_id.split(':').slice(1).join(':') || m.model_id;
  const parts = [model];
  if (m.input_tokens != null) parts.push(`${m.input_tokens} in / ${m.output_tokens ?? 0} out`);
  if (m.estimated_cost != null)
    parts.push(
      m.estimated_cost < 0.01 ? `~$${m.estimated_cost.toFixed(5)}` : `~$${m.estimated_cost.toFixed(3)}`,
    );
  return parts.join(' · ');
}

/** One message: the user's as a bubble, a reply as Markdown with its skill activity and usage. */
export function Message(props: { m: UiMessage; onTrace: (id: string) => void; onSettings: () => void }) {
  const { m } = props;
  if (m.role === 'user') {
    return (
      <div className="msg msg--user">
        <div className="msg__bubble">{m.content}</div>
      </div>
    );
  }
  const needsSettings =
    m.error?.code === 'LLM_MISSING_KEY' ||
    m.error?.code === 'LLM_NOT_CONFIGURED' ||
    (m.status === 'complete' && m.model_id === null);
  const usage = usageLine(m);
  const streaming = m.status === 'streaming';
  return (
    <article className={`msg msg--assistant${streaming ? ' is-streaming' : ''}`} aria-busy={streaming}>
      <div className="msg__avatar" aria-hidden="true">
        <Icon name="sparkle" />
      </div>
      <div className="msg__body">
        {m.tool_calls.length > 0 && (
          <section className="tools" aria-label="Skill activity">
            {m.tool_calls.map((c) => (
              <ToolChip key={c.id} call={c} onTrace={props.onTrace} />
            ))}
          </section>
        )}
        {m.content ? (
          <Markdown text={m.content} />
        ) : streaming ? (
          <p className="msg__thinking" title="Thinking">
            <span />
            <span />
            <span />
          </p>
        ) : null}
        {streaming && m.content && <span className="msg__cursor" aria-hidden="true" />}
        {m.status === 'partial' && (
          <p className="msg__note">
            <Icon name="stop" /> Stopped — the reply above is what had arrived.
          </p>
        )}
        {m.status === 'error' && m.error && (
          <div className="callout callout--error msg__error" role="alert">
            <Icon name="alert" />
            <div>
              <p>{m.error.message}</p>
              {needsSettings && (
                <button type="button" className="btn btn--small btn--primary" onClick={props.onSettings}>
                  <Icon name="key" /> Open Settings → Providers
                </button>
              )}
            </div>
          </div>
        )}
        {m.status === 'complete' && needsSettings && (
          <button type="button" className="btn btn--small" onClick={props.onSettings}>
            <Icon name="settings" /> Set up a provider
          </button>
        )}
        {usage && !streaming && <p className="msg__usage">{usage}</p>}
      </div>
    </article>
  );
}
