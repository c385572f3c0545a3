/**
 * Stands in for `hast-util-from-html-isomorphic` in the browser build (see vite.config.ts): its
 * browser version parses KaTeX's markup with the DOM, which applies the inline styles and trips
 * the CSP. parse5 reads the same markup into the same tree without touching the DOM; React then
 * sets those styles through the CSSOM, which the CSP allows.
 */
import type { Root } from 'hast';
import { fromHtml } from 'hast-util-from-html';

/** Parse HTML into a hast tree (a fragment unless `fragment` is false). */
export function fromHtmlIsomorphic(value: string, options?: { fragment?: boolean }): Root {
  return fromHtml(value, { fragment: options?.fragment });
}
