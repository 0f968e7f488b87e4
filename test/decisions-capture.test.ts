// Decisions and memory writes as events from the adapters: Claude Code's approved ExitPlanMode and
// CLAUDE.md writes, Codex leaving plan mode after a <proposed_plan>, Hermes's `memory` tool. The
// recorded corpus has no instance of any of these (its sessions ran without plan mode or memory
// tools), so each case appends hand-made records in the client's own format to a copy of a real
// corpus session; rejected plans, failed writes and plain edits must produce nothing.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { claude } from '../adapters/claude/index.js';
import { codex } from '../adapters/codex/index.js';
import { hermes } from '../adapters/hermes/index.js';
import type { SpEvent } from '../lib/core/event.js';
import { createValidator } from '../lib/core/schema.js';
import { captureAll } from './contract/testAdapter.js';
import { copyDb, Database, locator, S1 as HERMES_S1 } from './hermes/support.js';

const F = new URL('../fixtures/', import.meta.url).pathname;
const CLAUDE_S1 = `${F}claude/corpus/S1-feature/.claude/projects/-home-alice-acme-api/e05d2652-6a94-447f-8b60-cded66e4199a.jsonl`;
const CODEX_S1 = `${F}codex/corpus/S1-feature/sessions/2026/11/30/rollout-2026-11-30T05-06-52-01a22ad9-47d0-73f1-b186-11146d50904a.jsonl`;

type Json = Record<string, any>;
const payload = (e: SpEvent): Json => e.payload as Json;
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `sp-decide-${name}-`));

/** Checks every new event is schema-valid and points back at an earlier event of the stream. */
async function checkDerived(events: SpEvent[], types: string[]): Promise<SpEvent[]> {
  const validator = await createValidator();
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  const found = events.filter((e) => types.includes(e.type));
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  for (const e of found) {
    expect(validator.validate(e), JSON.stringify(e.payload)).toEqual([]);
    expect(e.derived_from).toBeTypeOf('number');
    expect(e.derived_from!).toBeLessThan(e.seq);
    expect(bySeq.has(e.derived_from!)).toBe(true);
  }
  return found;
}

describe('claude: ExitPlanMode and memory files', () => {
  const lines = readFileSync(CLAUDE_S1, 'utf8').split('\n').filter((l) => l !== '');
  const last = JSON.parse(lines.filter((l) => JSON.parse(l).uuid).at(-1)!);
  const base = { isSidechain: false, userType: 'external', cwd: '/home/alice/acme-api', sessionId: last.sessionId, version: '2.1.197' };
  let parent = last.uuid as string;
  let n = 0;
  const line = (fields: Json) => {
    n += 1;
    const uuid = `0000000${n}-aaaa-4bbb-8ccc-dddddddddddd`.slice(-36);
    const out = JSON.stringify({ parentUuid: parent, ...base, ...fields, uuid, timestamp: `2026-11-30T06:00:0${n}.000Z` });
    parent = uuid;
    return out;
  };
  const call = (id: string, name: string, input: Json) =>
    line({ type: 'assistant', message: { id: `msg_${id}`, type: 'message', role: 'assistant', model: 'claude-opus-4-8', content: [{ type: 'tool_use', id, name, input }], stop_reason: 'tool_use' } });
  const result = (id: string, content: string, toolUseResult: unknown, isError = false) =>
    line({ type: 'user', message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content, ...(isError ? { is_error: true } : {}) }] }, toolUseResult });

  const plan = '# Add PATCH /todos/:id\n\n1. Add an update handler\n2. Test it';
  const edited = '# Add PATCH /todos/:id with validation\n\n1. Add an update handler that rejects empty titles\n2. Test it';
  const extra = [
    // Rejected: the user said no, nothing was decided.
    call('toolu_plan_no', 'ExitPlanMode', { plan }),
    result('toolu_plan_no', "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.", 'Error: The user doesn\'t want to proceed with this tool use.', true),
    // Approved after the user edited it: the edited plan is the decision.
    call('toolu_plan_ok', 'ExitPlanMode', { plan }),
    result(
      'toolu_plan_ok',
      `User has approved your plan. You can now start coding. Start with updating your todo list if applicable\n\nYour plan has been saved to: /home/alice/.claude/plans/quiet-plan.md\nYou can refer back to it if needed during implementation.\n\n## Approved Plan (edited by user):\n${edited}`,
      { plan: edited, isAgent: false, filePath: '/home/alice/.claude/plans/quiet-plan.md' },
    ),
    // A project memory file written, one in the user's home edited, and an ordinary file written.
    call('toolu_mem_w', 'Write', { file_path: '/home/alice/acme-api/CLAUDE.md', content: 'Run npm test before committing.\n' }),
    result('toolu_mem_w', 'File created successfully at: /home/alice/acme-api/CLAUDE.md', { type: 'create', filePath: '/home/alice/acme-api/CLAUDE.md', content: 'Run npm test before committing.\n', structuredPatch: [] }),
    call('toolu_mem_e', 'Edit', { file_path: '/home/alice/.claude/CLAUDE.md', old_string: 'tabs', new_string: 'two spaces', replace_all: false }),
    result('toolu_mem_e', 'The file /home/alice/.claude/CLAUDE.md has been updated.', {
      filePath: '/home/alice/.claude/CLAUDE.md', oldString: 'tabs', newString: 'two spaces', originalFile: 'Indent with tabs\n', userModified: false, replaceAll: false,
      structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-Indent with tabs', '+Indent with two spaces'] }],
    }),
    call('toolu_plain', 'Write', { file_path: '/home/alice/acme-api/NOTES.md', content: 'notes\n' }),
    result('toolu_plain', 'File created successfully at: /home/alice/acme-api/NOTES.md', { type: 'create', filePath: '/home/alice/acme-api/NOTES.md', content: 'notes\n', structuredPatch: [] }),
    // A failed memory write is no memory.
    call('toolu_mem_x', 'Edit', { file_path: '/home/alice/acme-api/CLAUDE.md', old_string: 'absent', new_string: 'x' }),
    result('toolu_mem_x', '<tool_use_error>String to replace not found in file.</tool_use_error>', 'Error: String to replace not found in file.', true),
  ];

  it('an approved plan is a decision with the plan as approved; a rejected one is none', async () => {
    const dir = tmp('claude');
    const file = join(dir, basename(CLAUDE_S1));
    writeFileSync(file, [...lines, ...extra].join('\n') + '\n');
    const { events, diagnostics } = await captureAll(claude, file);
    expect(diagnostics).toEqual([]);
    const [decision] = (await checkDerived(events, ['decision'])).map((e) => [e, payload(e)] as const);
    expect(events.filter((e) => e.type === 'decision')).toHaveLength(1);
    const [event, p] = decision;
    expect(p).toEqual({
      decision: 'Approved plan: Add PATCH /todos/:id with validation',
      kind: 'plan',
      approved_by: 'user',
      plan: edited,
      tool: 'ExitPlanMode',
      edited_by_user: true,
      plan_file: '/home/alice/.claude/plans/quiet-plan.md',
    });
    const from = events.find((e) => e.seq === event.derived_from)!;
    expect([from.type, payload(from).call_id]).toEqual(['tool.call', 'toolu_plan_ok']);

    const memory = (await checkDerived(events, ['memory.write'])).map((e) => payload(e));
    expect(memory).toEqual([
      { key: '/home/alice/acme-api/CLAUDE.md', value: 'Run npm test before committing.\n', scope: 'project', tool: 'Write' },
      { key: '/home/alice/.claude/CLAUDE.md', value: 'two spaces', scope: 'user', tool: 'Edit' },
    ]);
    // The file.edit events are still there, one per successful write (memory or not).
    expect(events.filter((e) => e.type === 'file.edit' && e.seq > events.find((x) => payload(x).call_id === 'toolu_plan_no')!.seq)).toHaveLength(3);
  });
});

describe('codex: leaving plan mode after a proposed plan', () => {
  const rollout = readFileSync(CODEX_S1, 'utf8').split('\n').filter((l) => l !== '');
  const meta = rollout[0];
  const turn = (mode: string, t: string) =>
    JSON.stringify({ timestamp: `2026-11-30T06:00:${t}.000Z`, type: 'turn_context', payload: { turn_id: `turn-${t}`, cwd: '/home/bob/acme-api', approval_policy: 'never', model: 'gpt-5.5', collaboration_mode: { mode, settings: { model: 'gpt-5.5', reasoning_effort: null, developer_instructions: null } }, summary: 'none', sandbox_policy: { type: 'danger-full-access' } } });
  const message = (role: string, text: string, t: string) =>
    JSON.stringify({ timestamp: `2026-11-30T06:00:${t}.000Z`, type: 'response_item', payload: { type: 'message', id: `msg_${t}`, role, content: [{ type: role === 'user' ? 'input_text' : 'output_text', text }] } });
  const proposal = 'Here is the plan.\n\n<proposed_plan>\n# Soft-delete todos\n\n1. Add a deleted flag\n2. Filter deleted todos in list()\n</proposed_plan>';

  async function run(lines: string[]): Promise<SpEvent[]> {
    const dir = join(tmp('codex'), 'sessions/2026/11/30');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, basename(CODEX_S1));
    writeFileSync(file, [meta, ...lines].join('\n') + '\n');
    const { events, diagnostics } = await captureAll(codex, file);
    expect(diagnostics).toEqual([]);
    return events;
  }

  it('plan → default after a <proposed_plan> is the user taking that plan', async () => {
    const events = await run([
      turn('plan', '01'), message('user', 'Plan soft deletes.', '02'), message('assistant', proposal, '03'),
      turn('default', '04'), message('user', 'Go ahead.', '05'),
    ]);
    const decisions = await checkDerived(events, ['decision']);
    expect(decisions).toHaveLength(1);
    expect(payload(decisions[0])).toMatchObject({ decision: 'Approved plan: Soft-delete todos', kind: 'plan', approved_by: 'user', next_mode: 'default' });
    expect(payload(decisions[0]).plan).toBe('# Soft-delete todos\n\n1. Add a deleted flag\n2. Filter deleted todos in list()');
    const from = events.find((e) => e.seq === decisions[0].derived_from)!;
    expect(from.type).toBe('message.assistant');
  });

  it('no decision: staying in plan mode, leaving it without a plan, or a plan outside plan mode', async () => {
    const staying = await run([turn('plan', '01'), message('assistant', proposal, '02'), turn('plan', '03'), message('user', 'More detail.', '04')]);
    const noPlan = await run([turn('plan', '01'), message('assistant', 'What should the plan cover?', '02'), turn('default', '03')]);
    const outside = await run([turn('default', '01'), message('assistant', proposal, '02'), turn('default', '03')]);
    for (const events of [staying, noPlan, outside]) expect(events.filter((e) => e.type === 'decision')).toEqual([]);
  });
});

describe('hermes: the memory tool', () => {
  it('add/replace/remove → memory.write; a failed call → nothing', async () => {
    const db = copyDb();
    const h = new Database(db);
    const session = HERMES_S1;
    const max = (h.prepare('SELECT max(timestamp) AS t FROM messages WHERE session_id = ?').get(session) as { t: number }).t;
    const insert = h.prepare('INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, tool_name, timestamp) VALUES (?,?,?,?,?,?,?)');
    let t = max;
    const calls: Array<[string, Json, Json]> = [
      ['m1', { action: 'add', target: 'memory', content: 'acme-api tests run with npm test' }, { success: true, message: 'Entry added.' }],
      ['m2', { action: 'replace', target: 'user', old_text: 'prefers tabs', content: 'prefers two-space indents' }, { success: true, message: 'Entry replaced.' }],
      ['m3', { action: 'remove', target: 'memory', old_text: 'stale note' }, { success: true, message: 'Entry removed.' }],
      ['m4', { action: 'add', target: 'memory', content: 'too big' }, { success: false, error: 'Memory is full.' }],
    ];
    h.prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?,?,?,?)').run(session, 'user', 'Remember how tests run.', (t += 1));
    for (const [id, args, out] of calls) {
      insert.run(session, 'assistant', '', JSON.stringify([{ id, type: 'function', function: { name: 'memory', arguments: JSON.stringify(args) } }]), null, null, (t += 1));
      insert.run(session, 'tool', JSON.stringify(out), null, id, 'memory', (t += 1));
    }
    h.close();
    const { events, diagnostics } = await captureAll(hermes, locator(db, session));
    expect(diagnostics).toEqual([]);
    const writes = (await checkDerived(events, ['memory.write'])).map((e) => payload(e));
    expect(writes).toEqual([
      { key: 'memory', value: 'acme-api tests run with npm test', scope: 'agent', action: 'add', tool: 'memory' },
      { key: 'user', value: 'prefers two-space indents', scope: 'user', action: 'replace', tool: 'memory', old_text: 'prefers tabs' },
      { key: 'memory', value: '', scope: 'agent', action: 'remove', tool: 'memory', old_text: 'stale note' },
    ]);
  });
});
