import { useEffect, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { MatchFieldName, SkillMatchView } from '../../../electron/contract/skills.js';
import { useMatchStore, useSkillsStore, useStores } from '../../stores.js';
import { Kbd, ScopeBadge } from '../../ui/badges.js';
import { Icon } from '../../ui/Icon.js';
import { skillKey } from '../skills/skills-store.js';

const FIELD_LABELS: Record<MatchFieldName, string> = {
  exact_trigger: 'Exact trigger phrase',
  name: 'Name',
  description: 'Description',
  tags: 'Tags',
  intent_patterns: 'Intents',
  trigger_phrases: 'Triggers',
};

const SUGGESTIONS = [
  {
    title: 'Find contradictions',
    text: 'Are there any contradictions in my notes about the northern kingdom?',
  },
  { title: 'Summarize a meeting', text: 'Summarize this meeting transcript and list the action items' },
  { title: 'Review code', text: 'Can you review this Python function for bugs?' },
  { title: 'Crunch a CSV', text: 'Compute statistics for the columns of this CSV file' },
];

/** Relevance as a 0–100 bar: exact triggers fill it, BM25 scores scale within [0, 1). */
function strength(score: number): number {
  return score >= 1 ? 100 : Math.max(6, Math.round(score * 100));
}

function MatchRow(props: { m: SkillMatchView; rank: number; description?: string; onOpen: () => void }) {
  const { m, rank, onOpen } = props;
  return (
    <li className="match">
      <button type="button" className="match__button" onClick={onOpen} aria-label={`Open ${m.name}`}>
        <span className="match__rank">{rank}</span>
        <span className="match__body">
          <span className="match__top">
            <span className="match__name">{m.name}</span>
            <ScopeBadge scope={m.scope} />
            {m.matched_on.includes('exact_trigger') && (
              <span className="badge badge--exact">Trigger match</span>
            )}
          </span>
          {props.description && <span className="match__desc">{props.description}</span>}
          <span className="match__fields">
            {m.matched_on
              .filter((f) => f !== 'exact_trigger')
              .map((f) => (
                <span key={f} className="field-chip">
                  {FIELD_LABELS[f]}
                </span>
              ))}
          </span>
        </span>
        <span className="match__score" title={`Score ${m.score.toFixed(4)}`}>
          <span className="meter" aria-hidden="true">
            <span className="meter__fill" style={{ width: `${strength(m.score)}%` }} />
          </span>
          <span className="match__num">{m.score.toFixed(3)}</span>
        </span>
        <Icon name="arrowRight" />
      </button>
    </li>
  );
}

/**
 * A new conversation. Before any model is involved, SkillDesk ranks its skills for what you
 * type (phase-1 activation); this view shows that ranking live, so you learn which skills a
 * message would draw on.
 */
export function ChatView() {
  const m = useMatchStore(
    useShallow((s) => ({
      message: s.message,
      status: s.status,
      matches: s.matches,
      took_ms: s.took_ms,
      error: s.error,
      setMessage: s.setMessage,
    })),
  );
  const stores = useStores();
  const catalog = useSkillsStore((s) => s.list);
  const loadCatalog = useSkillsStore((s) => s.load);
  useEffect(() => {
    if (catalog.status === 'idle') void loadCatalog();
  }, [catalog.status, loadCatalog]);
  const describe = (match: SkillMatchView) =>
    catalog.items.find((i) => i.scope === match.scope && i.name === match.name)?.description;
  const inputRef = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    inputRef.current?.focus();
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the textarea grows with its text
  useEffect(() => {
    const el = inputRef.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 220)}px`;
  }, [m.message]);

  const openSkill = (match: SkillMatchView) => {
    stores.app.getState().navigate('skills');
    void stores.skills.getState().openSkill(skillKey(match));
  };
  const typed = m.message.trim() !== '';

  return (
    <div className="chat">
      <header className="chat__head">
        <h1 className="pane-title">New conversation</h1>
        <span className="pill">
          <Icon name="sparkle" /> Skill preview
        </span>
      </header>
      <div className="chat__scroll">
        {!typed ? (
          <div className="hero">
            <div className="hero__mark">
              <Icon name="sparkle" size={30} />
            </div>
            <h2 className="hero__title">What are you working on?</h2>
            <p className="hero__text">
              Every message you send is matched against your skills first — instantly, on this machine, before
              any model sees it. Start typing below to watch which skills would activate and why.
            </p>
            <div className="suggestions">
              {SUGGESTIONS.map((sug) => (
                <button
                  key={sug.title}
                  type="button"
                  className="suggestion"
                  onClick={() => {
                    void m.setMessage(sug.text);
                    inputRef.current?.focus();
                  }}
                >
                  <span className="suggestion__title">{sug.title}</span>
                  <span className="suggestion__text">{sug.text}</span>
                </button>
              ))}
            </div>
          </div>
        ) : (
          <section className="preview" aria-label="Skills that would activate" aria-live="polite">
            <header className="preview__head">
              <h2 className="preview__title">Skills that would activate</h2>
              {m.took_ms !== null && (
                <span className="preview__time">
                  ranked in {m.took_ms < 1 ? m.took_ms.toFixed(2) : m.took_ms.toFixed(1)} ms
                </span>
              )}
            </header>
            {m.status === 'error' && m.error ? (
              <div className="callout callout--error" role="alert">
                <Icon name="alert" />
                <p>{m.error.message}</p>
              </div>
            ) : m.matches.length === 0 && m.status === 'ready' ? (
              <div className="preview__none">
                <p>
                  <strong>No skill matches this message yet.</strong> It would go to the model on its own.
                </p>
                <p className="muted">
                  Skills match on their name, description, tags, intents and trigger phrases. Try words like
                  “summarize”, “translate” or “contradictions”, or add trigger phrases to a skill.
                </p>
              </div>
            ) : (
              <ol className="matches">
                {m.matches.map((match, i) => (
                  <MatchRow
                    key={skillKey(match)}
                    m={match}
                    rank={i + 1}
                    description={describe(match)}
                    onOpen={() => openSkill(match)}
                  />
                ))}
              </ol>
            )}
            <p className="preview__foot">
              The top matches are offered to the model as skills it can read and apply. Exact trigger phrases
              always rank first.
            </p>
          </section>
        )}
      </div>
      <div className="composer-wrap">
        <div className="composer">
          <label htmlFor="composer-input" className="visually-hidden">
            Message
          </label>
          <textarea
            id="composer-input"
            ref={inputRef}
            rows={1}
            placeholder="Type a message to see which skills would activate…"
            value={m.message}
            onChange={(e) => void m.setMessage(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey && m.matches[0]) {
                e.preventDefault();
                openSkill(m.matches[0]);
              } else if (e.key === 'Escape' && m.message) {
                e.preventDefault();
                void m.setMessage('');
              }
            }}
          />
        </div>
        <p className="composer__hint">
          <span>
            <Kbd>Enter</Kbd> open the top skill · <Kbd>Shift Enter</Kbd> new line · <Kbd>Esc</Kbd> clear
          </span>
          <span className="muted">Replies need a model provider; matching works without one.</span>
        </p>
      </div>
    </div>
  );
}
