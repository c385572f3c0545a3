// A folder the user gives a script: its tree with hidden files, links kept inside it, and the bounds
// that refuse a folder too large by name.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/index.js';
import { scanInputFolder } from './input-folder.js';
import { readScriptInputs, SCRIPT_INPUTS_DIR } from './scripts.js';

function tree() {
  const root = tempDir();
  const data = join(root, 'data');
  mkdirSync(join(data, 'sub', '.cache'), { recursive: true });
  writeFileSync(join(data, 'a.csv'), 'x,y\n');
  writeFileSync(join(data, '.hidden'), 'h');
  writeFileSync(join(data, 'sub', 'b.txt'), 'bb');
  writeFileSync(join(data, 'sub', '.cache', 'c'), 'ccc');
  writeFileSync(join(root, 'secret.txt'), 'outside');
  symlinkSync(join(root, 'secret.txt'), join(data, 'out-abs'));
  symlinkSync('../secret.txt', join(data, 'out-rel'));
  symlinkSync('sub/b.txt', join(data, 'in-link'));
  symlinkSync(root, join(data, 'loop'));
  symlinkSync('sub', join(data, 'dir-link'));
  symlinkSync('nowhere', join(data, 'dangling'));
  return { root, data };
}

describe('scanInputFolder', () => {
  it('walks the tree with hidden files, never following a link out of the folder', () => {
    const { data } = tree();
    const { files, bytes } = scanInputFolder(data);
    expect(files.map((f) => f.rel)).toEqual(['.hidden', 'a.csv', 'in-link', 'sub/.cache/c', 'sub/b.txt']);
    expect(files.find((f) => f.rel === 'in-link')!.path).toBe(join(data, 'sub', 'b.txt'));
    expect(bytes).toBe(1 + 4 + 2 + 3 + 2);
  });

  it('refuses a folder past its bounds with TOO_LARGE naming the bound and what to do', () => {
    const { data } = tree();
    const err = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e;
      }
      throw new Error('expected a refusal');
    };
    expect(err(() => scanInputFolder(data, { files: 3, bytes: 1e9 }))).toMatchObject({
      code: 'TOO_LARGE',
      message: expect.stringMatching(/more than 3 files.*give a smaller folder/),
      details: { limit: 'script_input_folder_files', max: 3 },
    });
    expect(err(() => scanInputFolder(data, { files: 100, bytes: 5 }))).toMatchObject({
      code: 'TOO_LARGE',
      message: expect.stringMatching(/more than 5 bytes.*give a smaller folder/),
      details: { limit: 'script_input_bytes', max: 5 },
    });
  });

  it('refuses what is not a readable folder', () => {
    const { root, data } = tree();
    expect(() => scanInputFolder(join(root, 'nope'))).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => scanInputFolder(join(data, 'a.csv'))).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringContaining('is not a folder') }),
    );
  });

  it("becomes the Pyodide run's files under inputs/<name>/, beside plain inputs", () => {
    const { root, data } = tree();
    const staged = readScriptInputs([
      { name: 'secret.txt', path: join(root, 'secret.txt') },
      { name: 'data', path: data, folder: true },
    ]);
    expect(staged.map((f) => [f.path, Buffer.from(f.bytes).toString()])).toEqual([
      [`${SCRIPT_INPUTS_DIR}/secret.txt`, 'outside'],
      [`${SCRIPT_INPUTS_DIR}/data/.hidden`, 'h'],
      [`${SCRIPT_INPUTS_DIR}/data/a.csv`, 'x,y\n'],
      [`${SCRIPT_INPUTS_DIR}/data/in-link`, 'bb'],
      [`${SCRIPT_INPUTS_DIR}/data/sub/.cache/c`, 'ccc'],
      [`${SCRIPT_INPUTS_DIR}/data/sub/b.txt`, 'bb'],
    ]);
    // The folder shares the run's input budget with the other inputs.
    expect(() =>
      readScriptInputs(
        [
          { name: 'secret.txt', path: join(root, 'secret.txt') },
          { name: 'data', path: data, folder: true },
        ],
        10,
      ),
    ).toThrow(expect.objectContaining({ code: 'TOO_LARGE' }));
    expect(() =>
      readScriptInputs([
        { name: 'data', path: join(root, 'secret.txt') },
        { name: 'data', path: data, folder: true },
      ]),
    ).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringContaining('two inputs') }),
    );
  });
});
