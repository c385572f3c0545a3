import { describe, expect, it } from 'vitest';
import { splitBlocks } from './markdown-blocks.js';

describe('splitBlocks', () => {
  it('cuts paragraphs, headings and tables at blank lines', () => {
    expect(splitBlocks('# T\n\nOne\ntwo\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nEnd')).toEqual([
      '# T',
      'One\ntwo',
      '| a | b |\n|---|---|\n| 1 | 2 |',
      'End',
    ]);
  });

  it('never cuts inside a fence or a display-math block', () => {
    const code = '```py\na = 1\n\n\nb = 2\n```';
    const math = '$$\nx^2\n\ny\n$$';
    expect(splitBlocks(`Intro\n\n${code}\n\n${math}\n\nAfter`)).toEqual(['Intro', code, math, 'After']);
    // An unclosed fence (still streaming) keeps everything after it.
    expect(splitBlocks('A\n\n```\nx\n\ny')).toEqual(['A', '```\nx\n\ny']);
    expect(splitBlocks('$$ a $$\n\nB')).toEqual(['$$ a $$', 'B']);
  });

  it('keeps a loose list and its indented continuations together', () => {
    const list = '1. one\n\n2. two\n\n   more of two\n\n- [x] done';
    expect(splitBlocks(`${list}\n\nAfter`)).toEqual([list, 'After']);
  });

  it('keeps texts with reference links or footnotes whole', () => {
    const t = 'See [x][1].\n\n[1]: https://x.test';
    expect(splitBlocks(t)).toEqual([t]);
    expect(splitBlocks('A[^n]\n\n[^n]: note')).toHaveLength(1);
  });

  it('drops nothing but blank lines', () => {
    const t = 'a\n\n\n\nb\n\n  \n\nc';
    expect(splitBlocks(t).join('\n\n')).toBe('a\n\nb\n\nc');
  });
});
