import { type FormEvent, useId, useState } from 'react';
import type { MatchExplanationView, SkillVerdictView } from '../../../electron/contract/skills.js';
import { useStores } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';
import './turn-candidates.css';

/** How many phase-1 candidates a turn shows. */
const SHOWN = 5;

const FIELD_LABELS: Record<string, string> = {
  name: 'name',
  description: 'description',
  tags: 'tags',
  intent_patterns: 'intents',
  trigger_phrases: 'triggers',
  instructions: 'instructions',
};

/** A named skill's phase-1 verdict in words: its rank and why it was or was not chosen. */
export function describeVerdict(v: SkillVerdictView, shown = SHOWN): string {
  switch (v.reason) {
    case 'matched':
      return `${v.name} was chosen: rank ${v.rank} of the top ${shown}.`;
    case 'lower_score':
      return `${v.name} ranked ${v.rank}: ${v.above} ${v.above === 1 ? 'skill' : 'skills'} scored higher, so it was not in the top ${shown}. Add words from your request to its description or trigger phrases, or name it.`;
    case 'no_term_overlap':
      return `${v.name} shares no word (nor synonym) with this message and is not close enough to it in meaning, so phase 1 never considered it. In the Composer (Ctrl 3), add a trigger phrase or an intent pattern in the words you used.`;
    case 'overridden':
      return `${v.name} in your account is hidden by the workspace skill of the same name.`;
    case 'switched_off':
      return `${v.name} is switched off or to name-only, so it is never matched for a message. Switch it on in the Skills view to let it fire.`;
    case 'not_found':
      return `No skill is named “${v.name}”. Check the name in the Composer (Ctrl 3).`;
  }
}

/** The matched words of a candidate, per field, in one line ("name: pdf · description: merg"). */
export function fieldsLine(fields: MatchExplanationView['candidates'][number]['fields']): string {
  return Object.entries(fields)
    .filter(([, terms]) => terms && terms.length > 0)
    .map(([f, terms]) => `${FIELD_LABELS[f] ?? f}: ${terms!.join(' ')}`)
    .join(' · ');
}

/**
 * Why a candidate was considered, in the user's own words: the message's words it matched
 * ("matched on “CSV”, “statistics”"), as typed rather than as stems, a trigger phrase found
 * verbatim, and "close in meaning" for a skill the words alone did not bring.
 */
export function plainWhy(
  c: MatchExplanationView['candidates'][number],
  terms: MatchExplanationView['query_terms'],
  message: string,
): string {
  const tokens = message.match(/[\p{L}\p{N}][\p{L}\p{N}'_-]*/gu) ?? [];
  // The message's word a query term stands for, spelt as the user typed it.
  const asTyped = (from: string) => {
    const f = from.toLowerCase();
    return (
      tokens.find((t) => t.toLowerCase() === f) ??
      tokens.find((t) => t.toLowerCase().startsWith(f.split(' ')[0] ?? f)) ??
      from
    );
  };
  const matched = new Set(Object.values(c.fields).flatMap((t) => t ?? []));
  // Only the message's own words (or their spelling fixed) matched "on" a word: a synonym that
  // matched stands for a word the skill does not contain, so saying "matched on “haiku”" for a
  // skill that only has "poem" would be false.
  const words: string[] = [];
  const related: string[] = [];
  for (const q of terms) {
    if (!matched.has(q.term)) continue;
    if (q.source === 'synonym') {
      if (!related.includes(q.term)) related.push(q.term);
      continue;
    }
    const w = asTyped(q.from);
    if (!words.some((x) => x.toLowerCase() === w.toLowerCase())) words.push(w);
  }
  // In the order the message has them.
  const at = (w: string) => {
    const i = tokens.findIndex((t) => t.toLowerCase() === w.toLowerCase());
    return i < 0 ? tokens.length : i;
  };
  words.sort((a, b) => at(a) - at(b));
  const bits: string[] = [];
  if (c.exact_trigger) bits.push(`trigger phrase “${c.exact_trigger}”`);
  if (words.length > 0) bits.push(`matched on ${words.map((w) => `“${w}”`).join(', ')}`);
  else if (!c.exact_trigger) {
    bits.push(
      related.length > 0
        ? `close in meaning (it has ${related.map((w) => `“${w}”`).join(', ')}, related to your words)`
        : 'close in meaning',
    );
  }
  return bits.join(' · ');
}

/** What the model was shown of the catalog for a turn, in words. */
export function listingLine(l: { whole: boolean; unlisted: number }): string {
  if (l.whole)
    return 'Every enabled skill fit the listing budget, so the model saw the whole catalog (names and descriptions) and chose for itself.';
  if (l.unlisted === 0) return 'The model saw the matches below.';
  const n = l.unlisted.toLocaleString();
  return `The catalog is larger than the listing budget: the model saw the matches below, and ${n} other ${l.unlisted === 1 ? 'skill was' : 'skills were'} left out of its prompt (it can still search for them). Settings → Providers sets the budget.`;
}

type Load<T> =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'done'; value: T }
  | { state: 'error'; message: string };

/**
 * "Skills considered" under a user's message: phase 1's candidates for it (rank, score, the
 * fields and words that matched, the semantic similarity) and, for a skill the user names, its
 * rank and why it was or was not chosen. Ranked on demand against the current catalog (phase 1
 * is deterministic: the same catalog gives the turn's own ranking).
 */
export function TurnCandidates(props: { message: string; listing?: { whole: boolean; unlisted: number } }) {
  const { client } = useStores();
  const inputId = useId();
  const [open, setOpen] = useState(false);
  const [list, setList] = useState<Load<MatchExplanationView>>({ state: 'idle' });
  const [name, setName] = useState('');
  const [verdict, setVerdict] = useState<Load<SkillVerdictView>>({ state: 'idle' });

  const load = () => {
    setList({ state: 'loading' });
    void client.call('skills/match', { message: props.message, limit: SHOWN, explain: true }).then((r) => {
      if (r.ok && r.value.explain) setList({ state: 'done', value: r.value.explain });
      else setList({ state: 'error', message: r.ok ? 'No explanation came back.' : r.error.message });
    });
  };

  const ask = (e: FormEvent) => {
    e.preventDefault();
    const skill = name.trim();
    if (!skill) return;
    setVerdict({ state: 'loading' });
    void client
      .call('skills/match', { message: props.message, limit: SHOWN, explain: true, explain_skill: skill })
      .then((r) => {
        const v = r.ok ? r.value.explain?.skill : undefined;
        if (v) setVerdict({ state: 'done', value: v });
        else setVerdict({ state: 'error', message: r.ok ? 'No verdict came back.' : r.error.message });
      });
  };

  return (
    <details
      className="p1"
      open={open}
      onToggle={(e) => {
        const now = (e.currentTarget as HTMLDetailsElement).open;
        setOpen(now);
        if (now && list.state !== 'loading') load();
      }}
    >
      <summary className="p1__summary">
        <Icon name="skills" /> Skills considered
        {!!props.listing?.unlisted && (
          <span className="p1__unlisted">· {props.listing.unlisted.toLocaleString()} not listed</span>
        )}
      </summary>
      <div className="p1__body">
        {props.listing && <p className="muted p1__listing">{listingLine(props.listing)}</p>}
        {list.state === 'loading' && <p className="muted">Ranking…</p>}
        {list.state === 'error' && (
          <p className="p1__error" role="alert">
            Could not rank the catalog: {list.message}{' '}
            <button type="button" className="btn btn--small" onClick={load}>
              Try again
            </button>
          </p>
        )}
        {list.state === 'done' &&
          (list.value.candidates.length === 0 ? (
            <p className="muted p1__empty">
              No skill matched: none shares a word with this message, and none is close enough to it in
              meaning. To have a skill fire on requests like this one, add their words as trigger phrases or
              intent patterns in the Composer (Ctrl 3).
            </p>
          ) : (
            <ol className="p1__list" aria-label="Phase-1 candidates">
              {list.value.candidates.map((c) => (
                <li key={`${c.scope}:${c.name}`} className="p1__row">
                  <span className="p1__rank">{c.rank}</span>
                  <span className="p1__name">{c.name}</span>
                  <span className={`badge badge--${c.scope}`}>
                    {c.scope === 'workspace' ? 'Workspace' : 'Account'}
                  </span>
                  <span
                    className="p1__score"
                    title="Phase-1 score: [0, 1) from words and meaning; 1 and above for a trigger phrase"
                  >
                    {c.score.toFixed(2)}
                  </span>
                  <span
                    className="p1__why"
                    title={`Matched stems: ${fieldsLine(c.fields) || 'none'}${
                      c.semantic !== null && c.semantic !== undefined
                        ? ` · meaning ${c.semantic.toFixed(2)}`
                        : ''
                    }`}
                  >
                    {plainWhy(c, list.value.query_terms, props.message)}
                  </span>
                </li>
              ))}
            </ol>
          ))}
        <form className="p1__ask" onSubmit={ask}>
          <label htmlFor={inputId} className="p1__ask-label">
            Why not…
          </label>
          <input
            id={inputId}
            className="input p1__input"
            placeholder="a skill's name, then Enter"
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={200}
          />
          <button type="submit" className="btn btn--small" disabled={!name.trim()}>
            Explain
          </button>
        </form>
        {verdict.state === 'loading' && <p className="muted">Checking…</p>}
        {verdict.state === 'done' && (
          <p className={`p1__verdict p1__verdict--${verdict.value.reason}`} role="status">
            {describeVerdict(verdict.value)}
          </p>
        )}
        {verdict.state === 'error' && (
          <p className="p1__error" role="alert">
            {verdict.message}
          </p>
        )}
      </div>
    </details>
  );
}
