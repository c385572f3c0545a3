import { describe, expect, it } from 'vitest';
import { runPythonDescription, toolOutputs } from './builtin-tools.js';

describe('a tool’s kept outputs', () => {
  it('are the files a run_script result serves, with its run id; other tools and odd results have none', () => {
    const result = {
      run_id: 'r1',
      files: [
        {
          path: 'out/a.pdf',
          media_type: 'application/pdf',
          size: 10,
          uri: 'skilldesk://script-output/r1/out/a.pdf',
        },
        { path: 'out/b.txt', size: 3, uri: 'https://example.com/b.txt' },
        { path: 'out/c.txt', uri: 'skilldesk://script-output/r1/out/c.txt' },
      ],
    };
    expect(toolOutputs('run_script', result)).toEqual([
      {
        run_id: 'r1',
        path: 'out/a.pdf',
        media_type: 'application/pdf',
        size: 10,
        uri: 'skilldesk://script-output/r1/out/a.pdf',
      },
    ]);
    expect(toolOutputs('run_python', result)).toEqual([]);
    expect(toolOutputs('constructor', result)).toEqual([]);
    expect(toolOutputs('run_script', null)).toEqual([]);
    expect(toolOutputs('run_script', { files: result.files })).toEqual([]);
  });
});

describe('run_python’s description', () => {
  it('names the host programs Full Python may start, with how to convert a document; Pyodide none', () => {
    const full = runPythonDescription('full', ['pandas==2.3.3'], [], ['soffice', 'libreoffice', 'pdftoppm']);
    expect(full).toContain(
      'Programs you may start with subprocess: soffice, libreoffice, pdftoppm; no other program runs.',
    );
    expect(full).toContain(
      "subprocess.run(['soffice', '--headless', '--convert-to', 'pdf', '--outdir', 'out', 'report.docx'])",
    );
    expect(runPythonDescription('full', [], [], ['pdftoppm'])).not.toContain('--convert-to');
    expect(runPythonDescription('full')).not.toContain('Programs you may start');
    expect(runPythonDescription('pyodide', [], [], ['soffice'])).not.toContain('Programs you may start');
  });
});
