import { toJsxRuntime } from 'hast-util-to-jsx-runtime';
import { useMemo, useState } from 'react';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import { highlightTree, type Lang } from './highlight.js';

const COLLAPSED_LINES = 18;

/**
 * Monospace, highlighted, line-numbered content; long content starts collapsed. `wrap` wraps long
 * lines (narrow places such as the trace drawer), without line numbers.
 */
export function CodeBlock(props: { text: string; lang: Lang; label: string; wrap?: boolean }) {
  const { text, lang, label } = props;
  // Prose (templates, instructions) wraps like text; code keeps its lines and numbers them.
  const prose = lang === 'template' || lang === 'plain' || Boolean(props.wrap);
  const lines = useMemo(() => text.split('\n').length, [text]);
  const long = lines > COLLAPSED_LINES + 4;
  const [expanded, setExpanded] = useState(false);
  const shown = long && !expanded ? text.split('\n').slice(0, COLLAPSED_LINES).join('\n') : text;
  const body = useMemo(
    () => toJsxRuntime(highlightTree(shown, lang), { Fragment, jsx, jsxs }),
    [shown, lang],
  );
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
        <code>{body}</code>
      </pre>
      {long && (
        <button type="button" className="code__more" onClick={() => setExpanded((v) => !v)}>
          {expanded ? 'Show less' : `Show all ${lines} lines`}
        </button>
      )}
    </figure>
  );
}
