import { describe, expect, it } from 'vitest';
import { isAppError } from '../contract/errors.js';
import { assertPortablePaths, firstPathProblem, portablePathProblem } from './safe-path.js';

describe('portablePathProblem', () => {
  it('accepts ordinary bundled paths', () => {
    for (const p of [
      'references/FORMS.md',
      'scripts/extract.py',
      'console.md',
      'nullable.txt',
      'com10.txt',
      'lpt.md',
      'auxiliary/notes.md',
      'docs/con-tents.md',
      '.hidden',
      'a b/c d.txt',
      'résumé.md',
    ]) {
      expect(portablePathProblem(p), p).toBeNull();
    }
  });

  it.each([
    'CON',
    'con',
    'Prn.txt',
    'aux.md',
    'nul.txt',
    'NUL.tar.gz',
    'COM1.md',
    'com9',
    'LPT1.txt',
    'lpt9.log',
    'com\u00b9.txt',
    'docs/con',
    'docs/nul.txt',
    'aux/readme.md',
    'nul .txt',
    'conin$',
  ])('refuses the Windows device name in %j', (p) => {
    expect(portablePathProblem(p)).toMatch(/Windows reserves for the [A-Z0-9\u00b9\u00b2\u00b3$]+ device/);
  });

  it.each(['notes.', 'notes ', 'docs./a.md', 'docs /a.md', 'a/b..'])(
    'refuses %j, ending in a dot or space',
    (p) => {
      expect(portablePathProblem(p)).toMatch(/ends in a dot or a space/);
    },
  );

  it.each(['a:b.md', 'C:x', 'docs/a<b>.md', 'what?.md', 'star*.md', 'pipe|.md', 'quote".md', 'ctl\u0001.md'])(
    'refuses %j, holding a character Windows does not allow',
    (p) => {
      expect(portablePathProblem(p)).toMatch(/Windows does not allow|not a plain relative path/);
    },
  );

  it.each(['/etc/passwd', '../x', 'a/../b', 'a//b', 'a\\b', './a'])(
    'refuses %j, not a plain relative path',
    (p) => {
      expect(portablePathProblem(p)).toMatch(/not a plain relative path/);
    },
  );
});

describe('case collisions', () => {
  it('refuses two paths that differ only by case or width, naming both', () => {
    expect(firstPathProblem(['docs/Readme.md', 'docs/README.md'])).toEqual({
      path: 'docs/README.md',
      message: expect.stringMatching(/collides with "docs\/Readme\.md".*letter case/),
    });
    expect(firstPathProblem(['SKILL.md', 'skill.md'])?.path).toBe('skill.md');
    expect(firstPathProblem(['ﬁle.md', 'FILE.md'])?.path).toBe('FILE.md');
    expect(firstPathProblem(['Straße.md', 'STRASSE.md'])?.path).toBe('STRASSE.md');
  });

  it('refuses folders that differ only by case, and a file where a folder is', () => {
    expect(firstPathProblem(['Docs/a.md', 'docs/b.md'])?.message).toMatch(/the folder "Docs"/);
    expect(firstPathProblem(['docs', 'docs/b.md'])?.message).toMatch(/both a file and a folder/);
  });

  it('accepts the same path twice and distinct paths', () => {
    expect(firstPathProblem(['a.md', 'a.md', 'b/a.md', 'b/c.md'])).toBeNull();
  });

  it('throws UNSAFE_PATH naming where and the path', () => {
    let err: unknown;
    try {
      assertPortablePaths(['SKILL.md', 'nul.txt'], '/tmp/skill');
    } catch (e) {
      err = e;
    }
    expect(isAppError(err, 'UNSAFE_PATH')).toBe(true);
    expect((err as Error).message).toMatch(/^\/tmp\/skill: the bundled file "nul.txt" .*NUL device/);
  });
});
