import { describe, expect, it } from 'vitest';
import type { RunCodeRes } from '../contract/code.js';
import { AppError } from '../contract/errors.js';
import { runOne } from './sandbox-commands.js';

const okRun: RunCodeRes = {
  ok: true,
  result: null,
  submitted: false,
  stdout: 'b\n',
  stderr: '',
  error: null,
  duration_ms: 5,
  llm: { calls: 0, input_tokens: 0, output_tokens: 0, models: [] },
};

describe('run-code when the sandbox cannot run a file', () => {
  it('records that file as failed (SandboxFault with the code) and the next one still runs', async () => {
    let t = 0;
    const clock = () => (t += 7);
    const calls: string[] = [];
    const run = (file: string, fail: unknown) => () => {
      calls.push(file);
      return fail ? Promise.reject(fail) : Promise.resolve(okRun);
    };
    const a = await runOne(
      run(
        'a.py',
        new AppError('SANDBOX_FAILED', 'the sandbox process exited while starting (signal SIGKILL)'),
      ),
      clock,
    );
    const b = await runOne(run('b.py', null), clock);
    const c = await runOne(run('c.py', new Error('spawn ENOMEM')), clock);
    expect(calls).toEqual(['a.py', 'b.py', 'c.py']);
    expect(a).toMatchObject({
      ok: false,
      error: {
        type: 'SandboxFault',
        code: 'SANDBOX_FAILED',
        message: expect.stringContaining('while starting'),
      },
      duration_ms: 7,
    });
    expect(b).toEqual(okRun);
    expect(c).toMatchObject({
      ok: false,
      error: { code: 'SANDBOX_FAILED', message: 'the sandbox failed: spawn ENOMEM' },
    });
  });
});
