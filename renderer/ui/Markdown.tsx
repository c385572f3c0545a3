import { type ReactNode, useMemo } from 'react';
import { type Block, type Inline, parseMarkdown } from './markdown.js';

function inlines(nodes: Inline[]): ReactNode[] {
  return nodes.map((n, i) => {
    switch (n.t) {
      case 'text':
        return n.v;
      case 'code':
        // biome-ignore lint/suspicious/noArrayIndexKey: parsed nodes have no identity beyond position
        return <code key={i}>{n.v}</code>;
      case 'strong':
        // biome-ignore lint/suspicious/noArrayIndexKey: as above
        return <strong key={i}>{inlines(n.c)}</strong>;
      case 'em':
        // biome-ignore lint/suspicious/noArrayIndexKey: as above
        return <em key={i}>{inlines(n.c)}</em>;
      case 'link':
        // External links open outside the app (Electron routes new windows to the OS browser).
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: as above
          <a key={i} href={n.href} target="_blank" rel="noopener noreferrer" title={n.href}>
            {inlines(n.c)}
          </a>
        );
      case 'br':
        // biome-ignore lint/suspicious/noArrayIndexKey: as above
        return <br key={i} />;
    }
    return null;
  });
}

function CodeFence({ lang, code }: { lang: string; code: string }) {
  const copy = () => {
    void navigator.clipboard?.writeText(code).catch(() => {});
  };
  return (
    <figure className="md-code">
      <figcaption className="md-code__bar">
        <span>{lang || 'code'}</span>
        <button type="button" className="md-code__copy" onClick={copy} aria-label="Copy code">
          Copy
        </button>
      </figcaption>
      <pre>
        <code>{code}</code>
      </pre>
    </figure>
  );
}

function blocks(nodes: Block[]): ReactNode[] {
  return nodes.map((b, i) => {
    switch (b.t) {
      case 'p':
        // biome-ignore lint/suspicious/noArrayIndexKey: parsed blocks have no identity beyond position
        return <p key={i}>{inlines(b.c)}</p>;
      case 'h': {
        const Tag = `h${Math.min(b.level + 2, 6)}` as 'h3';
        // biome-ignore lint/suspicious/noArrayIndexKey: as above
        return <Tag key={i}>{inlines(b.c)}</Tag>;
      }
      case 'code':
        // biome-ignore lint/suspicious/noArrayIndexKey: as above
        return <CodeFence key={i} lang={b.lang} code={b.v} />;
      case 'list': {
        const items = b.items.map((item, j) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: as above
          <li key={j}>{blocks(item)}</li>
        ));
        return b.ordered ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: as above
          <ol key={i} start={b.start === 1 ? undefined : b.start}>
            {items}
          </ol>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: as above
          <ul key={i}>{items}</ul>
        );
      }
      case 'quote':
        // biome-ignore lint/suspicious/noArrayIndexKey: as above
        return <blockquote key={i}>{blocks(b.c)}</blockquote>;
      case 'hr':
        // biome-ignore lint/suspicious/noArrayIndexKey: as above
        return <hr key={i} />;
    }
    return null;
  });
}

/** Untrusted Markdown (a model's reply) rendered as React elements: no raw HTML ever reaches the DOM. */
export function Markdown({ text }: { text: string }) {
  const tree = useMemo(() => parseMarkdown(text), [text]);
  return <div className="md">{blocks(tree)}</div>;
}
