import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_VENV } from '../sidecar-client/test-lm.js';
import { runCli, skipWithout, tempDir } from '../test-support/index.js';

describe.skipIf(skipWithout(NO_VENV, 'skilldesk skills optimize'))(
  'skilldesk skills optimize (needs sidecar/.venv; run npm install)',
  () => {
    it('compiles few-shot demos into the stored state blob', async () => {
      const home = tempDir();
      const train = join(tempDir(), 'train.jsonl');
      writeFileSync(
        train,
        '{"claims": "1. A is 3. 2. A is 4.", "contradictions": "Claims 1 and 2 disagree."}\n{"claims": "1. B is red. 2. B is red.", "contradictions": "none"}\n',
      );
      const r = await runCli([
        '--home',
        home,
        '--json',
        'skills',
        'optimize',
        'Consistency Checker',
        '--artifact',
        'DSPy Checker',
        '--trainset',
        train,
        '--optimizer',
        'labeled_few_shot',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json().optimized).toMatchObject({
        name: 'Consistency Checker',
        artifact: 'DSPy Checker',
        examples: 2,
      });
      const exported = JSON.parse(
        (await runCli(['--home', home, 'skills', 'export', 'Consistency Checker'])).stdout,
      );
      const state = JSON.parse(Buffer.from(exported.artifacts[3].state_blob, 'base64').toString('utf8'));
      expect(JSON.stringify(state)).toContain('B is red');
    }, 120_000);

    it('refuses a bad training file with exit 2', async () => {
      const home = tempDir();
      const train = join(tempDir(), 'bad.jsonl');
      writeFileSync(train, 'not json\n');
      const r = await runCli([
        '--home',
        home,
        'skills',
        'optimize',
        'Consistency Checker',
        '--artifact',
        'DSPy Checker',
        '--trainset',
        train,
      ]);
      expect(r.code).toBe(2);
    });
  },
);
