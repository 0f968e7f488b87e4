// sp-compile on the recorded corpus. The expectations below were written by reading the fixtures
// (fixtures/<agent>/corpus/<scenario>, their scenario.json and the native lines), not taken from
// the compiler's output: the goal, every open plan step, the last failing command and its error
// line, the decision and its reason, the edited files. Each handoff is checked in the section it
// belongs to, at the default budget and for two targets, and its provenance is checked against the
// events: every quoted text is in the event its first seq names.
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS, captureFile, compileFile, eventStrings, parseLines } from './support/compile.js';
import { runBin, tempDir } from './support/streams.js';
import type { SpEvent } from '../lib/core/event.js';

interface Expect {
  first?: string;
  latest: string;
  /** Plan steps or todos that are open at the end (none in the finished recordings). */
  open: string[];
  done: string[];
  failing?: { cmd: string; error: string[]; resolved: boolean };
  /** Other errors that must be listed under commands. */
  errors?: string[];
  decisions: string[];
  constraints?: string[];
  files: string[];
  /** Text that must not be in the handoff (an abandoned branch). */
  absent?: string[];
  pointers?: string[];
}

const DELETE_PLAN_CLAUDE = ['Add DELETE /todos/:id handler', 'Add a test for DELETE /todos/:id', 'Run the test suite'];
const DELETE_PLAN_CODEX = ['Add deleteTodo handler and DELETE /todos/:id route', 'Add a test for DELETE /todos/:id', 'Run npm test'];

const EXPECT: Record<string, Expect> = {
  // 60 lines: TaskCreate ×3, TaskUpdate ×6 (all three completed; tasks/1-3.json say "completed"),
  // Edit ×5 on two files, npm test passes twice.
  'claude/S1-feature': {
    first: 'Add a DELETE /todos/:id endpoint with a test.',
    latest: 'Also return 404 when the id is unknown.',
    open: [],
    done: DELETE_PLAN_CLAUDE,
    decisions: [],
    files: ['src/routes/todos.js', 'test/todos.test.js'],
  },
  // CJK prompt with an image; npm test fails (404 !== 200), Read of src/store.js fails, the
  // decision line, one Edit, npm test passes, a commit on request.
  'claude/S2-debug': {
    first: '测试失败了，帮我看看 test/todos.test.js 为什么报错',
    latest: '好的，谢谢。顺便把这个修复提交一下吧。',
    open: [],
    done: [],
    failing: { cmd: 'npm test', error: ['AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:', '404 !== 200'], resolved: true },
    errors: ['File does not exist.'],
    decisions: ['keep the in-memory store; switching to SQLite is out of scope because the failure is a string-vs-number key mismatch in the route, not a storage problem'],
    files: ['src/routes/todos.js'],
  },
  // 9 prompts, an Explore subagent, TodoWrite (all completed), /compact, edits on five files, one
  // of them created (test/server.test.js).
  'claude/S3-long': {
    first: 'Give me a quick overview of this repo: what endpoints exist and how is it tested? Use a subagent if that helps.',
    latest: 'Great, commit that too.',
    open: [],
    done: ['Add update() and the PATCH /todos/:id route', 'Add tests for PATCH (update and unknown id)', 'Run the test suite'],
    decisions: [],
    files: ['src/routes/todos.js', 'test/todos.test.js', 'src/server.js', 'README.md', 'test/server.test.js'],
    pointers: ['Explore', 'compacted its context'],
  },
  // update_plan ×4 ending with all three steps completed; apply_patch ×4; npm test passes twice.
  'codex/S1-feature': {
    first: 'Add a DELETE /todos/:id endpoint with a test.',
    latest: 'Also return 404 when the id is unknown.',
    open: [],
    done: DELETE_PLAN_CODEX,
    decisions: [],
    files: ['src/routes/todos.js', 'test/todos.test.js'],
  },
  'codex/S1-feature-paginated': {
    first: 'Add a DELETE /todos/:id endpoint with a test.',
    latest: 'Also return 404 when the id is unknown.',
    open: [],
    done: DELETE_PLAN_CODEX,
    decisions: [],
    files: ['src/routes/todos.js', 'test/todos.test.js'],
  },
  // npm test fails (TypeError in normalizeTitle), then `cat src/db.js` fails (exit 1): the last
  // failing command. The decision line, one apply_patch, npm test passes, a commit.
  'codex/S2-debug': {
    first: '测试失败了，帮我看看 test/todos.test.js 为什么报错',
    latest: '好的，谢谢！帮我把这个修复提交一下。',
    open: [],
    done: [],
    failing: { cmd: 'cat src/db.js', error: ['cat: src/db.js: No such file or directory'], resolved: false },
    errors: ["Cannot read properties of undefined (reading 'trim')"],
    decisions: ['keep the in-memory store; switching to SQLite is out of scope because the failure is a field-name typo from the last commit'],
    files: ['src/routes/todos.js'],
  },
  // 10 turns, update_plan (all completed), npm test fails after createdAt (deep-equal) and passes
  // after the test fix, auto-compaction, CHANGELOG.md added last and left uncommitted.
  'codex/S3-long': {
    first: "Give me a quick tour of this repo: what's here and how do I run it?",
    latest: "Thanks, that's all for today.",
    open: [],
    done: ['Add updateTodo handler and PATCH /todos/:id route', 'Add tests for PATCH', 'Run npm test'],
    failing: { cmd: 'npm test', error: ['Expected values to be strictly deep-equal'], resolved: true },
    decisions: [],
    files: ['src/routes/todos.js', 'test/todos.test.js', 'README.md', 'CHANGELOG.md'],
    pointers: ['compacted its context'],
  },
  // A text plan, re-posted with every box checked; edits on two files; npm test passes.
  'pi/S1-feature': {
    first: 'Add a DELETE /todos/:id endpoint with a test.',
    latest: 'Also return 404 when the id is unknown.',
    open: [],
    done: ['Add a `DELETE /todos/:id` branch to `handle()` in `src/routes/todos.js` (204, empty body)', 'Add a test for it in `test/todos.test.js`', 'Run `npm test` — 5/5 passing'],
    decisions: [],
    files: ['src/routes/todos.js', 'test/todos.test.js'],
  },
  // npm test fails (test 5, 404 !== 200), read of src/store.js fails (ENOENT), decision, one edit.
  'pi/S2-debug': {
    first: '测试失败了，帮我看看 test/todos.test.js 为什么报错',
    latest: '好的，帮我提交一下',
    open: [],
    done: [],
    failing: { cmd: 'npm test', error: ['not ok 5 - PATCH /todos/:id toggles done', '404 !== 200'], resolved: true },
    errors: ['ENOENT: no such file or directory'],
    decisions: ['keep the in-memory store; switching to SQLite is out of scope because the failure is a string-vs-number key lookup in the PATCH handler'],
    files: ['src/routes/todos.js'],
  },
  // 10 prompts; the SQLite question and the store sketch (seq 32–41) are an abandoned branch; the
  // user's "don't touch the Run or Storage sections"; compaction with Key Decisions; six files.
  'pi/S3-long': {
    first: 'Give me a quick tour of this repo: layout, how requests reach the handlers, and how the tests run.',
    latest: 'Bump package.json to 0.4.0 and commit everything.',
    open: [],
    done: [],
    decisions: ['No SQLite for now'],
    constraints: ["don't touch the Run or Storage sections", "Let's not do SQLite for now."],
    files: ['src/routes/todos.js', 'test/todos.test.js', 'src/server.js', 'README.md', 'CHANGELOG.md', 'package.json'],
    absent: ['Should we move the store to SQLite now?', 'OK, sketch the store interface for it.'],
    pointers: ['Abandoned branch: seq 32–41', 'compacted its context'],
  },
};

/** The body of a `## Heading` section of a rendered handoff ('' when there is none). */
export function section(text: string, heading: string): string {
  const parts = text.split(/^## /m);
  const part = parts.find((p) => p.startsWith(heading));
  return part ? part.slice(heading.length) : '';
}

const compiled = new Map<string, Awaited<ReturnType<typeof compileFile>>>();
async function handoff(name: string, target: 'claude' | 'codex') {
  const key = `${name}:${target}`;
  let r = compiled.get(key);
  if (!r) {
    const session = CORPUS.find((s) => s.name === name)!;
    r = await compileFile(captureFile(session), { target });
    compiled.set(key, r);
  }
  return r;
}

describe('sp-compile on the recorded corpus', () => {
  it('covers every corpus session', () => {
    expect(CORPUS.map((s) => s.name).sort()).toEqual(Object.keys(EXPECT).sort());
  });

  for (const [name, want] of Object.entries(EXPECT)) {
    describe(name, () => {
      it.each(['claude', 'codex'] as const)('hands the work to %s with the goal, open steps, failure, decisions and files', async (target) => {
        const { event } = await handoff(name, target);
        const text = event.payload.text as string;
        const goal = section(text, 'Goal');
        expect(goal).toContain(want.latest);
        if (want.first) expect(goal).toContain(want.first);

        const open = section(text, 'Open plan steps and todos');
        if (want.open.length === 0) expect(open).toContain('None: no open todo or plan step.');
        for (const step of want.open) expect(open).toContain(step);
        const done = section(text, 'Done');
        for (const step of want.done) {
          expect(done).toContain(step);
          expect(open).not.toContain(step);
        }

        const problems = section(text, 'Open problems');
        if (want.failing) {
          const line = problems.split('\n').find((l) => l.startsWith('- Last failing command'));
          expect(line, problems).toContain(`\`${want.failing.cmd}\``);
          for (const e of want.failing.error) expect(problems).toContain(e);
          expect(problems).toContain(want.failing.resolved ? 'the same command succeeded later' : 'not run successfully since');
        } else {
          expect(problems).not.toContain('Last failing command');
        }
        for (const e of want.errors ?? []) expect(section(text, 'Recent commands')).toContain(e);

        const decisions = section(text, 'Decisions and their reasons');
        for (const d of want.decisions) expect(decisions).toContain(d);
        if (want.decisions.length === 0) expect(decisions).toBe('');
        for (const c of want.constraints ?? []) expect(section(text, 'Constraints the user stated')).toContain(c);

        const files = section(text, 'Files changed');
        for (const f of want.files) expect(files).toContain(`\`${f}\``);
        expect(files.split('\n').filter((l) => l.startsWith('- ')).length).toBe(want.files.length);

        for (const a of want.absent ?? []) expect(text).not.toContain(a);
        for (const p of want.pointers ?? []) expect(section(text, 'Pointers')).toContain(p);
        expect(event.payload.tokens).toBeLessThanOrEqual(event.payload.budget as number);
      });
    });
  }

  it('splits the decision from its reason', async () => {
    const { event } = await handoff('claude/S2-debug', 'codex');
    const items = event.payload.items as Array<Record<string, unknown>>;
    const decision = items.find((i) => i.kind === 'decision' && String(i.quote).startsWith('keep the in-memory store'))!;
    expect(decision.decision).toBe('keep the in-memory store; switching to SQLite is out of scope');
    expect(String(decision.reason)).toMatch(/^the failure is a string-vs-number key mismatch in the route, not a storage problem/);
  });

  it('lists the abandoned branch and what is not carried in dropped, with reasons', async () => {
    const { event } = await handoff('pi/S3-long', 'claude');
    const dropped = event.payload.dropped as Array<Record<string, unknown>>;
    expect(dropped).toContainEqual(expect.objectContaining({ kind: 'branch', count: 10, seqs: [[32, 41]] }));
    expect(dropped).toContainEqual(expect.objectContaining({ kind: 'thinking', reason: expect.stringContaining('not carried') }));
    const claude = await handoff('claude/S2-debug', 'claude');
    expect(claude.event.payload.dropped).toContainEqual(expect.objectContaining({ kind: 'image', count: 1 }));
    expect(claude.event.payload.text).toContain('1 image');
  });

  it('says in the relay header that it is another agent’s session, that tool calls are history, and what cannot be seen', async () => {
    const { event } = await handoff('claude/S3-long', 'codex');
    const text = event.payload.text as string;
    const header = text.split('\n## ')[0];
    expect(header).toContain("another coding agent's session");
    expect(header).toContain('Claude Code session `fedfe4e3-0d75-4e8a-ae44-125dd06bbf71`');
    expect(header).toContain('Codex CLI');
    expect(header).toContain('They are history: do not re-run them');
    expect(header).toMatch(/Not carried by this handoff, so you cannot see it here: the verbatim transcript .*private reasoning \(3 thinking blocks\).*the transcript of the Explore subagent/);
  });

  it('points every item at events that hold its quoted text', async () => {
    for (const session of CORPUS) {
      for (const target of ['claude', 'codex'] as const) {
        const { event, output } = await handoff(session.name, target);
        const events = parseLines(readFileSync(captureFile(session), 'utf8'));
        const bySeq = new Map(events.map((e) => [`${e.session}:${e.seq}`, e]));
        const items = event.payload.items as Array<{ id: string; session?: string; seqs: number[]; quote?: string }>;
        let quoted = 0;
        for (const item of items) {
          const sessionId = item.session ?? event.session;
          for (const seq of item.seqs) expect(bySeq.has(`${sessionId}:${seq}`), `${session.name} ${item.id} seq ${seq}`).toBe(true);
          if (!item.quote) continue;
          const haystack = eventStrings(bySeq.get(`${sessionId}:${item.seqs[0]}`)).replace(/\s+/g, ' ');
          for (const piece of item.quote.split('\n').map((l) => l.replace(/\s+/g, ' ').trim()).filter(Boolean)) {
            expect(haystack, `${session.name} ${item.id}`).toContain(piece);
          }
          quoted++;
        }
        expect(quoted).toBeGreaterThan(3);
        // And the [seq N] in the text are real events of the session.
        for (const m of (event.payload.text as string).matchAll(/\[seq ([\d, –…]+)\]/g)) {
          for (const n of m[1].split(/[^\d]+/).filter(Boolean)) expect(bySeq.has(`${event.session}:${n}`), `${session.name} seq ${n}`).toBe(true);
        }
        expect(output.endsWith('\n')).toBe(true);
      }
    }
  });

  it('appends one chained context.compiled event: the stream still verifies', async () => {
    const dir = tempDir('sp-compile-verify-');
    for (const session of CORPUS) {
      const { output } = await handoff(session.name, 'codex');
      const input = readFileSync(captureFile(session), 'utf8');
      expect(output.startsWith(input)).toBe(true);
      const added = parseLines(output.slice(input.length));
      expect(added.map((e) => e.type)).toEqual(['context.compiled']);
      const file = join(dir, `${session.name.replace('/', '-')}.ndjson`);
      writeFileSync(file, output);
      const r = runBin('sp-verify', [file]);
      expect(r.code, `${session.name}: ${r.stdout}${r.stderr}`).toBe(0);
      const last = added[0] as SpEvent;
      const before = parseLines(input).filter((e) => e.session === last.session);
      expect(last.seq).toBe(Math.max(...before.map((e) => e.seq)) + 1);
    }
  });
});

describe('sp-compile in the middle of the work', () => {
  /** The capture cut after `seq` of its first session (a prefix of a chain still verifies). */
  function prefix(name: string, seq: number): string {
    const session = CORPUS.find((s) => s.name === name)!;
    const lines = readFileSync(captureFile(session), 'utf8').split('\n').filter(Boolean);
    const first = (JSON.parse(lines[0]) as SpEvent).session;
    const kept = lines.filter((l) => {
      const e = JSON.parse(l) as SpEvent;
      return e.session === first && e.seq <= seq;
    });
    const file = join(tempDir('sp-compile-prefix-'), `${name.replace('/', '-')}-${seq}.ndjson`);
    writeFileSync(file, kept.join('\n') + '\n');
    return file;
  }

  it('Claude S1 at seq 41: task 2 in progress, task 3 pending, task 1 done, the request not finished', async () => {
    // Read from the fixture: TaskUpdate #1 completed (seq 33/36), #2 in_progress (34/38), #3 untouched.
    const { event } = await compileFile(prefix('claude/S1-feature', 41), { target: 'codex' });
    const text = event.payload.text as string;
    const open = section(text, 'Open plan steps and todos');
    expect(open).toContain('- [ ] Add a test for DELETE /todos/:id — in progress');
    expect(open).toContain('- [ ] Run the test suite — pending');
    expect(open).not.toContain('Add DELETE /todos/:id handler');
    expect(section(text, 'Done')).toContain('- [x] Add DELETE /todos/:id handler — completed');
    expect(section(text, 'Open problems')).toContain('was not finished');
    expect(section(text, 'What to do now')).toContain('continue with it and the open plan steps');
  });

  it('Claude S1 at seq 54: the npm test call has no result yet', async () => {
    const { event } = await compileFile(prefix('claude/S1-feature', 54), { target: 'claude' });
    const problems = section(event.payload.text as string, 'Open problems');
    expect(problems).toContain('- Tool call without a recorded result [seq 54]: Bash `npm test`');
  });

  it('Codex S1 at seq 37: plan step 2 in progress and step 3 pending', async () => {
    const { event } = await compileFile(prefix('codex/S1-feature', 37), { target: 'claude' });
    const open = section(event.payload.text as string, 'Open plan steps and todos');
    expect(open).toContain('Add a test for DELETE /todos/:id — in progress');
    expect(open).toContain('Run npm test — pending');
  });

  it('Pi S1 at seq 17: the three unchecked steps of the text plan', async () => {
    const { event } = await compileFile(prefix('pi/S1-feature', 17), { target: 'codex' });
    const open = section(event.payload.text as string, 'Open plan steps and todos');
    expect(open).toContain('- [ ] Add a `DELETE /todos/:id` branch to `handle()` in `src/routes/todos.js` (204, empty body)');
    expect(open).toContain('- [ ] Add a test for it in `test/todos.test.js`');
    expect(open).toContain('- [ ] Run `npm test`');
  });
});
