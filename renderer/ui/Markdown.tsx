import 'katex/dist/katex.min.css';
import { type ComponentProps, memo, useMemo, useRef } from 'react';
import type { ExtraProps } from 'react-markdown';
import ReactMarkdown, { type Components, type Options } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import rehypeKatex from 'rehype-katex';
import rehypeSanitize, { defaultSchema } from 'rehype-sanitize';
import remarkBreaks from 'remark-breaks';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import { splitBlocks } from './markdown-blocks.js';

/**
 * GitHub's sanitising rules, plus the classes remark-math gives math so KaTeX can find it. The
 * sanitizer runs before KaTeX and the highlighter: it cleans what the model wrote, and the markup
 * those two add afterwards comes from the libraries, not from the model.
 */
const schema = {
  ...defaultSchema,
  attributes: {
    ...defaultSchema.attributes,
    code: [['className', /^language-./, 'math-inline', 'math-display']],
  },
};

// A single newline is a line break, as models mean it (a haiku's three lines, an address) and as
// ChatGPT and Claude show replies; CommonMark alone would join the lines into one.
const remarkPlugins: Options['remarkPlugins'] = [remarkGfm, remarkMath, remarkBreaks];
const rehypePlugins: Options['rehypePlugins'] = [
  [rehypeSanitize, schema],
  [rehypeKatex, { throwOnError: false, strict: 'ignore' }],
  [rehypeHighlight, { detect: false }],
];

function CodeFence(props: ComponentProps<'pre'> & ExtraProps) {
  const ref = useRef<HTMLPreElement>(null);
  const child = (props.node?.children[0] ?? null) as { properties?: { className?: unknown } } | null;
  const classes = Array.isArray(child?.properties?.className) ? child.properties.className : [];
  const lang = classes
    .map(String)
    .find((c) => c.startsWith('language-'))
    ?.slice('language-'.length);
  const copy = () => {
    const text = ref.current?.textContent ?? '';
    // Clipboard access can be refused (web mode without focus); the code stays selectable.
    void navigator.clipboard?.writeText(text).catch(() => undefined);
  };
  return (
    <div className="md-code">
      <div className="md-code__bar">
        <span>{lang || 'code'}</span>
        <button type="button" className="md-code__copy" onClick={copy} aria-label="Copy code">
          Copy
        </button>
      </div>
      <pre ref={ref}>{props.children}</pre>
    </div>
  );
}

const components: Components = {
  pre: CodeFence,
  // External links open outside the app (Electron routes new windows to the OS browser).
  a: ({ node: _n, ...p }) => <a {...p} target="_blank" rel="noopener noreferrer" title={p.href} />,
  // Remote images would reach out to any server a reply names (and the CSP blocks them): a link.
  img: ({ src, alt }) =>
    typeof src === 'string' && src ? (
      <a className="md-image" href={src} target="_blank" rel="noopener noreferrer" title={src}>
        {alt || 'Image'}
      </a>
    ) : null,
  table: ({ node: _n, ...p }) => (
    <div className="md-table">
      <table {...p} />
    </div>
  ),
  // A reply's headings sit below the chat's own.
  h1: ({ node: _n, ...p }) => <h3 {...p} />,
  h2: ({ node: _n, ...p }) => <h4 {...p} />,
  h3: ({ node: _n, ...p }) => <h5 {...p} />,
  h4: ({ node: _n, ...p }) => <h6 {...p} />,
  h5: ({ node: _n, ...p }) => <h6 {...p} />,
};

/** One top-level block; unchanged blocks of a streaming reply are not parsed again. */
const MarkdownBlock = memo(function MarkdownBlock({ text }: { text: string }) {
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
      {text}
    </ReactMarkdown>
  );
});

/**
 * Untrusted Markdown (a model's reply) as React elements: GFM (tables, strikethrough, task lists,
 * autolinks), math, highlighted code; raw HTML never reaches the DOM.
 */
export function Markdown({ text }: { text: string }) {
  const blocks = useMemo(() => splitBlocks(text), [text]);
  return (
    <div className="md">
      {blocks.map((b, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: blocks only grow at the end while a reply streams
        <MarkdownBlock key={i} text={b} />
      ))}
    </div>
  );
}
