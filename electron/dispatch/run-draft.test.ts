// `skills/run` with a package: the Composer's unsaved draft runs as it is held (the loopback model
// receives the edited template), results say a draft ran, and nothing is saved.
import { describe, expect, it } from 'vitest';
import { AppError } from '../contract/errors.js';
import { loopbackHost } from '../test-support/index.js';

const saved = {
  name: 'Tea Note',
  description: 'Writes a short note about a tea.',
  version: '1.0.0',
  source: 'user',
  artifacts: [{ kind: 'prompt_template', name: 'Note', content: 'Write a note about {{ tea }}.' }],
};

async function hostWith(turns: unknown[]) {
  const { host, provider, ctx } = await loopbackHost(turns as never);
  await host.handlers['skills/import-package']({ package: saved }, ctx);
  return { host, provider, ctx };
}

describe('skills/run with a draft package', () => {
  it('runs the edited template, says a draft ran, and saves nothing', async () => {
    const { host, provider, ctx } = await hostWith([
      { text: '**Sencha** is grassy.', expect: { last_user_contains: 'in one line, in French' } },
      { text: 'A saved-version note.' },
    ]);
    const draft = {
      ...saved,
      version: '1.0.1',
      artifacts: [
        {
          kind: 'prompt_template',
          name: 'Note',
          content: 'Write a note about {{ tea }} in one line, in French.',
        },
      ],
    };
    const r = await host.handlers['skills/run'](
      { name: 'Tea Note', context: { tea: 'sencha' }, package: draft, session_id: 'composer' },
      ctx,
    );
    expect(provider.requests[0]!.expectation_error).toBeUndefined();
    expect(r).toMatchObject({ ran: 'draft', ok: true, version: '1.0.1', scope: 'account' });
    expect(r.results[0]).toMatchObject({ artifact: 'Note', text: '**Sencha** is grassy.' });
    const trace = await host.handlers['traces/get']({ id: r.results[0]!.trace_id }, ctx);
    expect(trace.trace.rendered_input).toContain('Write a note about sencha in one line, in French.');

    // The store still holds the saved version, with no new history entry.
    const detail = await host.handlers['skills/get']({ name: 'Tea Note' }, ctx);
    expect(detail.skill.version).toBe('1.0.0');
    expect(detail.skill.artifacts[0]!.content).toBe('Write a note about {{ tea }}.');
    // The draft's trace is listed under the stored skill.
    expect(trace.trace.skill_id).toBe(detail.skill.id);

    const again = await host.handlers['skills/run']({ name: 'Tea Note', context: { tea: 'sencha' } }, ctx);
    expect(again).toMatchObject({ ran: 'saved', version: '1.0.0' });
    const t2 = await host.handlers['traces/get']({ id: again.results[0]!.trace_id }, ctx);
    expect(t2.trace.rendered_input).not.toContain('French');
  });

  it('runs a skill that was never saved', async () => {
    const { host, ctx } = await hostWith([{ text: 'ok' }]);
    const r = await host.handlers['skills/run'](
      {
        name: 'Fresh Idea',
        package: {
          name: 'Fresh Idea',
          description: 'Not saved yet.',
          version: '0.1.0',
          artifacts: [{ kind: 'prompt_template', name: 'Ask', content: 'Say {{ word }}.' }],
        },
        context: { word: 'hi' },
      },
      ctx,
    );
    expect(r).toMatchObject({ ran: 'draft', ok: true, skill: 'Fresh Idea' });
    const list = await host.handlers['skills/list']({}, ctx);
    expect(list.skills.map((s) => s.name)).not.toContain('Fresh Idea');
  });

  it('refuses an invalid draft naming the JSON path, and a draft under another name', async () => {
    const { host, ctx } = await hostWith([]);
    const bad = {
      ...saved,
      artifacts: [{ kind: 'prompt_template', name: 'Note', content: 'x {{ ' }],
      version: 'x',
    };
    const refused = (req: Parameters<(typeof host.handlers)['skills/run']>[0]) =>
      Promise.resolve()
        .then(() => host.handlers['skills/run'](req, ctx))
        .then(
          () => {
            throw new Error('expected a refusal');
          },
          (e: AppError) => e,
        );
    const e1 = await refused({ name: 'Tea Note', package: bad });
    expect(e1).toBeInstanceOf(AppError);
    expect(e1.code).toBe('INVALID_INPUT');
    expect(JSON.stringify(e1.details?.issues)).toMatch(/version|artifacts\[0\]/);
    const e2 = await refused({ name: 'Other', package: saved });
    expect(e2.code).toBe('INVALID_INPUT');
    expect(e2.message).toContain('"Tea Note"');
  });
});
