// A skill whose declared effects include the network or writing asks before apply_skill
// runs it, through the MCP tools' approval flow (server "skill", tool = the skill's name), via the
// chat slice with the loopback provider: deny reaches the model as a tool error and runs nothing,
// "this chat" sticks in the chat, "always" is remembered across a restart; a skill without effects
// never asks. The effects model itself: metadata, artifact metadata, allowed-tools, host functions.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventPayload, Result } from '../contract/channels.js';
import type { ApprovalRequestedEvent } from '../contract/tools.js';
import { createHost, type Host } from '../host.js';
import { type LoopbackScriptInput, startLoopbackProvider } from '../llm/index.js';
import { ApprovalBroker } from '../mcp/index.js';
import { quietLogger, smallPackage, tempDir } from '../test-support/index.js';
import { HOST_FUNCTION_EFFECTS, type SkillForEffects, skillEffects } from '../tools/index.js';
import { invokeChannel } from '../transport/dispatch.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function open(home: string) {
  const host: Host = createHost({ home, env: {}, mode: 'test', logger: quietLogger });
  let disposed = false;
  const dispose = async () => {
    if (disposed) return;
    disposed = true;
    await host.dispose();
  };
  cleanups.push(dispose);
  const ok = async <T = Record<string, unknown>>(channel: string, req: unknown): Promise<T> => {
    const r = (await invokeChannel(
      host.handlers,
      channel,
      req,
      { transport: 'in-process' },
      quietLogger,
    )) as Result<T>;
    if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
    return r.value;
  };
  const requested: ApprovalRequestedEvent[] = [];
  host.events.subscribe('tools/approval-requested', (e) => requested.push(e));
  const turn = async (message: string, session_id?: string) => {
    const done = new Promise<EventPayload<'chat/turn-finished'>>((resolve) => {
      const off = host.events.subscribe('chat/turn-finished', (p) => {
        off();
        resolve(p);
      });
    });
    const r = await ok<{ session_id: string }>('chat/send-message', {
      message,
      ...(session_id ? { session_id } : {}),
    });
    return { session_id: r.session_id, finished: done };
  };
  return { host, ok, requested, turn, dispose };
}

const apply = (name: string, who: string) => ({
  tool_calls: [{ name: 'apply_skill', arguments: { name, ctx: { who } } }],
});

describe('approval before a skill with side effects runs', () => {
  it('asks with server "skill"; deny, this chat and always (across a restart) apply; no effects, no question', async () => {
    const script: LoopbackScriptInput = [
      // 1: denied — nothing runs, the model reads a tool error
      apply('Web Lookup', 'Ada'),
      { text: 'It was denied.', expect: { tool_result_contains: 'the user denied this call' } },
      // 2: allowed for this chat — the prompt template's own model call, then the reply
      apply('Web Lookup', 'Bob'),
      { text: 'looked up Bob', expect: { last_user_contains: 'Hello Bob' } },
      { text: 'Done for Bob.', expect: { tool_result_contains: 'looked up Bob' } },
      // 3: same chat — runs without asking
      apply('Web Lookup', 'Cy'),
      { text: 'looked up Cy', expect: { last_user_contains: 'Hello Cy' } },
      { text: 'Done for Cy.' },
      // 4: a new chat asks again — always
      apply('Web Lookup', 'Di'),
      { text: 'looked up Di' },
      { text: 'Done for Di.' },
      // 5: a skill without declared effects never asks
      apply('Plain Greeting', 'Ed'),
      { text: 'hi Ed', expect: { last_user_contains: 'Hello Ed' } },
      { text: 'Greeted Ed.' },
      // 6: after a restart, a new chat: always was remembered
      apply('Web Lookup', 'Flo'),
      { text: 'looked up Flo', expect: { last_user_contains: 'Hello Flo' } },
      { text: 'Done for Flo.' },
    ];
    const provider = await startLoopbackProvider({ script });
    cleanups.push(() => provider.close());
    const home = tempDir();
    let app = open(home);
    await app.ok('settings/set-provider', { provider: 'openai', base_url: provider.url });
    await app.ok('settings/set-key', { provider: 'openai', key: 'sk-test' });
    await app.ok('skills/import-package', {
      package: smallPackage('Web Lookup', '1.0.0', { metadata: { effects: 'network' } }),
      scope: 'account',
    });
    await app.ok('skills/import-package', { package: smallPackage('Plain Greeting'), scope: 'account' });

    // 1: deny
    const t1 = await app.turn('Look up Ada');
    await expect.poll(() => app.requested.length).toBe(1);
    expect(app.requested[0]).toMatchObject({
      session_id: t1.session_id,
      tool: 'apply_skill',
      server: 'skill',
      server_tool: 'Web Lookup',
      args: { name: 'Web Lookup', ctx: { who: 'Ada' } },
      description: expect.stringMatching(/reach the network.*metadata effects/),
      annotations: { readOnlyHint: false, openWorldHint: true },
    });
    await app.ok('tools/answer-approval', { approval_id: app.requested[0]!.approval_id, decision: 'deny' });
    const e1 = await t1.finished;
    expect(e1).toMatchObject({ status: 'complete', text: 'It was denied.', trace_ids: [] });
    expect(JSON.stringify(provider.requests.at(-1)!.body)).not.toContain('Hello Ada');

    // 2: this chat
    const t2 = await app.turn('Look up Bob', t1.session_id);
    await expect.poll(() => app.requested.length).toBe(2);
    await app.ok('tools/answer-approval', { approval_id: app.requested[1]!.approval_id, decision: 'chat' });
    expect(await t2.finished).toMatchObject({
      status: 'complete',
      text: 'Done for Bob.',
      skills_used: ['Web Lookup'],
    });

    // 3: the same chat does not ask again
    const t3 = await app.turn('Look up Cy', t1.session_id);
    expect(await t3.finished).toMatchObject({ status: 'complete', text: 'Done for Cy.' });
    expect(app.requested).toHaveLength(2);
    // Deleting the chat drops its "this chat" approvals at once.
    const forget = vi.spyOn(ApprovalBroker.prototype, 'forgetChat');
    cleanups.push(() => forget.mockRestore());
    await app.ok('chat/delete-session', { session_id: t1.session_id });
    expect(forget).toHaveBeenCalledWith(t1.session_id);

    // 4: another chat asks; always
    const t4 = await app.turn('Look up Di');
    await expect.poll(() => app.requested.length).toBe(3);
    expect(app.requested[2]!.session_id).toBe(t4.session_id);
    await app.ok('tools/answer-approval', { approval_id: app.requested[2]!.approval_id, decision: 'always' });
    expect(await t4.finished).toMatchObject({ status: 'complete', text: 'Done for Di.' });
    expect(await app.ok('tools/list-approvals', {})).toMatchObject({
      remembered: [{ server: 'skill', tool: 'Web Lookup' }],
    });

    // 5: no declared effects, no question
    const t5 = await app.turn('Greet Ed');
    expect(await t5.finished).toMatchObject({ status: 'complete', text: 'Greeted Ed.' });
    expect(app.requested).toHaveLength(3);

    // 6: restart: always holds in a new chat
    await app.dispose();
    app = open(home);
    const t6 = await app.turn('Look up Flo');
    expect(await t6.finished).toMatchObject({ status: 'complete', text: 'Done for Flo.' });
    expect(app.requested).toHaveLength(0);
    expect(provider.remaining()).toBe(0);
  }, 60_000);
});

describe('declared effects', () => {
  const skill = (over: Partial<SkillForEffects> = {}): SkillForEffects => ({
    metadata: null,
    allowed_tools: null,
    artifacts: [{ name: 'Main', kind: 'prompt_template', content: 'Hello', metadata: null }],
    ...over,
  });

  it('reads package metadata, artifact metadata of the artifacts that run, and allowed-tools', () => {
    expect(skillEffects(skill())).toEqual({ effects: [], reasons: [] });
    expect(skillEffects(skill({ metadata: { effects: 'none' } })).effects).toEqual([]);
    expect(skillEffects(skill({ metadata: { effects: 'write, network' } }))).toEqual({
      effects: ['network', 'write'],
      reasons: ['write (metadata effects)', 'network (metadata effects)'],
    });
    // An unknown word is asked about, not ignored.
    expect(skillEffects(skill({ metadata: { effects: 'email' } }))).toEqual({
      effects: ['network', 'write'],
      reasons: ['network and write (metadata effects names unknown effect "email")'],
    });
    const two = skill({
      artifacts: [
        { name: 'Fetch', kind: 'code_template', content: 'submit(1)', metadata: { effects: ['network'] } },
        { name: 'Local', kind: 'code_template', content: 'submit(2)', metadata: null },
      ],
    });
    expect(skillEffects(two).effects).toEqual(['network']);
    expect(skillEffects(two, 'Local').effects).toEqual([]);
    expect(skillEffects(skill({ allowed_tools: 'Read Grep mcp__files__write_file' })).effects).toEqual([]);
    expect(skillEffects(skill({ allowed_tools: 'Read WebFetch' })).effects).toEqual(['network']);
    expect(skillEffects(skill({ allowed_tools: 'Bash(git:*)' }))).toEqual({
      effects: ['network', 'write'],
      reasons: ['network and write (allowed-tools Bash(git:*))'],
    });
  });

  it('derives effects from the host functions a code_template calls; only http_request has one', () => {
    expect(Object.entries(HOST_FUNCTION_EFFECTS).filter(([, effects]) => effects.length > 0)).toEqual([
      ['http_request', ['network']],
    ]);
    const code = skill({
      artifacts: [
        {
          name: 'Run',
          kind: 'code_template',
          content: 'from skilldesk import llm_query, get_page\nsubmit(llm_query(get_page("a")))',
          metadata: null,
        },
      ],
    });
    expect(skillEffects(code).effects).toEqual([]);
    const fetches = skill({
      artifacts: [
        {
          name: 'Fetch',
          kind: 'code_template',
          content: 'from skilldesk import http_request\nsubmit(http_request("GET", "https://example.org/"))',
          metadata: null,
        },
      ],
    });
    expect(skillEffects(fetches).effects).toEqual(['network']);
    // Were a host function to write, calling it would be a declared effect.
    expect(skillEffects(code, undefined, { ...HOST_FUNCTION_EFFECTS, get_page: ['write'] })).toEqual({
      effects: ['write'],
      reasons: ['write (artifact Run calls skilldesk.get_page)'],
    });
  });
});
