import { Icon } from '../../ui/Icon.js';
import { LocalServers } from '../settings/LocalServers.js';

const SUGGESTIONS = [
  {
    title: 'Summarize',
    text: 'Summarize this: the team agreed to ship on Friday, pending the security review.',
  },
  { title: 'Translate', text: 'Translate to French: good morning, see you at the meeting.' },
  {
    // The notes come along, so Meeting Action Items has something to work on (no workspace needed).
    title: 'Action items',
    text: 'List the action items from these meeting notes:\nPriya sends the budget by Thursday. Leo books the venue. We should revisit pricing next quarter.',
    shown: 'List the action items from these meeting notes: Priya sends the budget by Thursday…',
  },
  {
    // The data comes along, so the suggestion works as it is (CSV Statistics runs on it in the sandbox).
    title: 'Crunch a CSV',
    text: 'Compute statistics for the columns of this CSV:\ncity,temp\nOslo,4\nLima,19\nCairo,27',
    shown: 'Compute statistics for the columns of this CSV: city,temp · Oslo,4 · Lima,19 · Cairo,27',
  },
];

/** The new-chat screen: what SkillDesk does, a first step when no model is set, and suggestions. */
export function EmptyState(props: {
  configured: boolean | null;
  onPick: (text: string) => void;
  onSettings: () => void;
}) {
  return (
    <div className="hero">
      <div className="hero__mark">
        <Icon name="sparkle" size={30} />
      </div>
      <h2 className="hero__title">
        {props.configured === false ? 'Welcome to SkillDesk' : 'What are you working on?'}
      </h2>
      {props.configured === false ? (
        <>
          <p className="hero__text">
            Pick a provider in Settings, or try the built-in skills: Summarize, Translate, Meeting Action
            Items, CSV Statistics… Without a model, SkillDesk still shows which skills your message activates.
          </p>
          <LocalServers title="A model server is running on this computer — use it in one click" />
          <button type="button" className="btn btn--primary hero__cta" onClick={props.onSettings}>
            <Icon name="key" /> Pick a provider
          </button>
        </>
      ) : (
        <p className="hero__text">
          Your skills are matched to each message first, on this machine. The model can then read and apply
          them — you’ll see each skill it runs, with its trace.
        </p>
      )}
      <div className="suggestions">
        {SUGGESTIONS.map((sug) => (
          <button key={sug.title} type="button" className="suggestion" onClick={() => props.onPick(sug.text)}>
            <span className="suggestion__title">{sug.title}</span>
            <span className="suggestion__text">{'shown' in sug ? sug.shown : sug.text}</span>
          </button>
        ))}
      </div>
    </div>
  );
}
