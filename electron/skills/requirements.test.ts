// SkillDesk's own reading of requirements.txt: the subset it accepts, how it writes it back for
// pip, and every disguise it refuses with line and column.
import { describe, expect, it } from 'vitest';
import { AppError } from '../contract/errors.js';
import { hostileRequirementLines } from './hostile-requirements.js';
import { parseRequirements, requirementLine } from './requirements.js';

const H = 'a'.repeat(64);

describe('requirements.txt, accepted', () => {
  it('names, extras, specifiers, markers and hashes, written back in SkillDesk’s own spelling', () => {
    const text = [
      '\ufeff# tools',
      'pypdf>=5.0',
      'openpyxl == 3.1.5  # xlsx',
      'requests [ socks , Security ] ~=2.0, !=2.1.* ; python_version >= "3.8"',
      `Et_XmlFile --hash=sha256:${H.toUpperCase()}`,
      "attrs (>=22,<30) ; (sys_platform == 'linux' or platform_system=='Darwin') and implementation_name == \"cpython\"",
      '\tidna===3.7 ; "3.10" <= python_full_version',
      '',
    ].join('\r\n');
    const reqs = parseRequirements(text);
    expect(reqs.map((r) => [r.spec, r.name, r.hashes, r.line])).toEqual([
      ['pypdf>=5.0', 'pypdf', [], 2],
      ['openpyxl==3.1.5', 'openpyxl', [], 3],
      ['requests[socks,security]~=2.0,!=2.1.* ; python_version >= "3.8"', 'requests', [], 4],
      ['Et_XmlFile', 'et-xmlfile', [H], 5],
      [
        'attrs>=22,<30 ; (sys_platform == "linux" or platform_system == "Darwin") and implementation_name == "cpython"',
        'attrs',
        [],
        6,
      ],
      ['idna===3.7 ; "3.10" <= python_full_version', 'idna', [], 7],
    ]);
    expect(requirementLine(reqs[3]!)).toBe(`Et_XmlFile --hash=sha256:${H}`);
  });

  it('reads pip-compile --generate-hashes output: a backslash ends a line only to continue it', () => {
    const text = `certifi==2024.2.2 \\\n    --hash=sha256:${'b'.repeat(64)} \\\n    --hash=sha256:${'c'.repeat(64)}\n    # via requests\n`;
    expect(parseRequirements(text)).toMatchObject([
      { spec: 'certifi==2024.2.2', hashes: ['b'.repeat(64), 'c'.repeat(64)], line: 1 },
    ]);
  });

  it('a file of comments and blank lines declares nothing', () => {
    expect(parseRequirements('# nothing yet\n\n   \n')).toEqual([]);
  });
});

describe('requirements.txt, refused whole with file, line and column', () => {
  it('names the place and the character in visible form', () => {
    const refuse = (text: string) => {
      try {
        parseRequirements(text, 'pdf/scripts/requirements.txt');
      } catch (e) {
        expect(e).toBeInstanceOf(AppError);
        expect((e as AppError).code).toBe('INVALID_INPUT');
        return { message: (e as AppError).message, details: (e as AppError).details };
      }
      throw new Error(`accepted: ${JSON.stringify(text)}`);
    };
    const r = refuse('pypdf\nrt4pkg==1.0 ; python_version >= "3"\u2028--index-url http://x/simple/\n');
    expect(r.message).toMatch(
      /^pdf\/scripts\/requirements\.txt line 2, column 36: <U\+2028> \(a line separator\)/,
    );
    expect(r.details).toEqual({ file: 'pdf/scripts/requirements.txt', line: 2, column: 36 });
    // Columns count characters, not UTF-16 units, and a CRLF is one line end.
    expect(refuse('# 😀 ok\r\npkg==1.0 --pre\r\n').message).toMatch(
      /line 2, column 10: the pip option "--pre"/,
    );
    expect(refuse('pkg~=1').message).toMatch(/line 1, column 4: "~=1" is not a PEP 440 version specifier/);
  });

  it.each(hostileRequirementLines('http://127.0.0.1:9/simple'))('$label', ({ line, names }) => {
    expect(() => parseRequirements(`pypdf\n${line}\n`, 'x/requirements.txt')).toThrow(
      new RegExp(
        `^x/requirements\\.txt line \\d+, column \\d+: .*${names.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      ),
    );
  });
});
