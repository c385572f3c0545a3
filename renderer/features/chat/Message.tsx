import { Icon } from '../../ui/Icon.js';
import { Markdown } from '../../ui/Markdown.js';
import type { UiMessage } from './chat-store.js';
import { describeReplyError } from './reply-errors.js';
import { SkillActivity } from './SkillActivity.js';

/** Model, tokens and cost of a reply; none for a reply that never started (nothing was used). */
export function usageLine(m: UiMessage): string | null {
  if (!m.model_id) return null;
  const used = (m.input_tokens ?? 0) + (m.output_tokens ?? 0) > 0;
  if (!used && m.estimated_cost == null) return null;
  const model = m.model_id.split(':').slice(1).join(':') || m.model_id;
  const parts = [model];
  if (used) parts.push(`${m.input_tokens ?? 0} in / ${m.output_tokens ?? 0} out`);
  if (m.estimated_cost != null)
    parts.push(
      m.estimated_cost < 0.01 ? `~$${m.estimated_cost.toFixed(5)}` : `~$${m.estimated_cost.toFixed(3)}`,
    );
  return parts.join(' · ');
}

/** A failed reply in words, with the next steps as buttons and the provider's own words folded away. */
function ReplyError(props: { m: UiMessage; onRetry: () => void; onSettings: () => void }) {
  const error = props.m.error!;
  const view = describeReplyError(error);
  return (
    <div className="callout callout--error msg__error" role="alert">
      <Icon name="alert" />
      <div className="msg__error-body">
        <p className="msg__error-title">{view.title}</p>
        <p>{view.advice}</p>
        <div className="msg__error-actions">
          {view.retry && (
            <button type="button" className="btn btn--small btn--primary" onClick={props.onRetry}>
              <Icon name="refresh" /> Retry
            </button>
          )}
          {view.settings && (
            <button type="button" className="btn btn--small" onClick={props.onSettings}>
              <Icon name="settings" /> Open Settings
            </button>
          )}
        </div>
        <details className="msg__error-details">
          <summary>Details</summary>
          <p className="mono">{error.message}</p>
        </details>
      </div>
    </div>
  );
}

/** One message: the user's as a bubble, a reply as Markdown with its skill activity and usage. */
export function Message(props: {
  m: UiMessage;
  onTrace: (id: string) => void;
  onSettings: () => void;
  onRetry: (replyId: string) => void;
}) {
  const { m } = props;
  if (m.role === 'user') {
    return (
      <div className="msg msg--user">
        <div className="msg__bubble">{m.content}</div>
      </div>
    );
  }
  const noModel = m.status === 'complete' && m.model_id === null;
  const usage = usageLine(m);
  const streaming = m.status === 'streaming';
  return (
    <article className={`msg msg--assistant${streaming ? ' is-streaming' : ''}`} aria-busy={streaming}>
      <div className="msg__avatar" aria-hidden="true">
        <Icon name="sparkle" />
      </div>
      <div className="msg__body">
        <SkillActivity calls={m.tool_calls} onTrace={props.onTrace} />
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
            <Icon name="stop" />{' '}
            {m.content
              ? 'Stopped — the reply above is what had arrived.'
              : 'Stopped before the reply began: nothing had arrived yet.'}
          </p>
        )}
        {m.status === 'error' && m.error && (
          <ReplyError m={m} onRetry={() => props.onRetry(m.id)} onSettings={props.onSettings} />
        )}
        {noModel && (
          <button type="button" className="btn btn--small" onClick={props.onSettings}>
            <Icon name="settings" /> Set up a provider
          </button>
        )}
        {usage && !streaming && <p className="msg__usage">{usage}</p>}
      </div>
    </article>
  );
}
