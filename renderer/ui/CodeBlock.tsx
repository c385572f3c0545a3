import { useMemo, useState } from 'react';
import { type Lang, tokenize } from './highlight.js';

const COLLAPSED_LINES = 18;

/** Monospace, highlighted, line-numbered content; long content starts collapsed. */
export function CodeBlock({ text, lang, label }: { text: string; lang: Lang; label: string }) {
  // Prose (templates, instructions) wraps like text; code keeps its lines and numbers them.
  const prose = lang === 'template' || lang === 'plain';
  const lines = useMemo(() => text.split('\n').length, [text]);
  const long = lines > COLLAPSED_LINES + 4;
  const [expanded, setExpanded] = useState(false);
  const shown = long && !expanded ? text.split('\n').slice(0, COLLAPSED_LINES).join('\n') : text;
  const tokens = useMemo(() => tokenize(shown, lang), [shown, lang]);
  const count = long && !expanded ? COLLAPSED_LINES : lines;
  return (
    <figure
      aria-label={label}
      className={`code${prose ? ' code--prose' : ''}${long && !expanded ? ' code--collapsed' : ''}`}
    >
      <pre>
        {!prose && (
          <span className="code__gutter" aria-hidden="true">
            {Array.from({ length: count }, (_, i) => `${i + 1}\n`).join('')}
          </span>
        )}
        <code>
          {tokens.map((t, i) =>
            t.type === 'plain' ? (
              t.text
            ) : (
              // biome-ignore lint/suspicious/noArrayIndexKey: tokens have no identity beyond position
              <span key={i} className={`tok-${t.type}`}>
                {t.text}
              </span>
            ),
          )}
        </code>
      </pre>
      {long && (
        <button type="button" className="code__more" onClick={() => setExpanded((v) => !v)}>
          {expanded ? 'Show less' : `Show all ${lines} lines`}
        </button>
      )}
    </figure>
  );
}
