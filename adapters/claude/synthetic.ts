// Synthetic canonical sessions for benchmarks and tests: realistic mixes of event types with
// payloads from 200 B to 20 KB of code, prose and CJK text. Deterministic for a given seed. They
// are recorded as Claude Code's (its meta keys, models, tool names and call ids), so they live with
// its adapter; `agent` relabels them.
import { Chainer } from '../../lib/core/chain.js';
import { canonicalSessionId, type SpEvent } from '../../lib/core/event.js';
import { random } from '../../lib/core/random.js';

export { random } from '../../lib/core/random.js';

const PROSE =
  'The handler reads the todo list from the in-memory store, filters it by the query, and returns the page. ' +
  'We keep the store in memory because switching to SQLite is out of scope for this change. ';
const CODE =
  "export async function removeTodo(req, res) {\n  const id = Number(req.params.id);\n  const index = todos.findIndex((t) => t.id === id);\n" +
  "  if (index === -1) return res.status(404).json({ error: 'not found' });\n  todos.splice(index, 1);\n  res.status(204).end();\n}\n";
const CJK = '测试失败了，帮我看看为什么报错。我们保留内存存储；切换到 SQLite 不在本次范围内。日本語のテキストも含みます。';

function text(rand: () => number, bytes: number): string {
  const sources = [PROSE, CODE, CJK];
  let out = '';
  while (Buffer.byteLength(out) < bytes) out += sources[Math.floor(rand() * sources.length)];
  return out.slice(0, Math.max(1, Math.floor(out.length * (bytes / Buffer.byteLength(out)))));
}

/** A payload size between 200 B and 20 KB, skewed towards small (most events are short). */
function size(rand: () => number): number {
  return Math.floor(200 + Math.pow(rand(), 3) * 19_800);
}

export interface SyntheticOptions {
  events: number;
  seed?: number;
  /** Interleave this many sessions (default 1). */
  sessions?: number;
  agent?: string;
}

/** Unchained synthetic events: session.start, then turns of user, thinking, assistant and tool pairs. */
export function* syntheticEvents(options: SyntheticOptions): Generator<SpEvent> {
  const rand = random(options.seed ?? 1);
  const agent = options.agent ?? 'claude';
  const count = Math.max(1, options.sessions ?? 1);
  const sessions = Array.from({ length: count }, (_, i) => ({ id: canonicalSessionId(agent, `synthetic-${options.seed ?? 1}-${i}`), seq: 0, call: 0 }));
  let ts = 1_790_000_000;
  for (let n = 0; n < options.events; n++) {
    const s = sessions[n % count];
    ts += rand() * 3;
    const base = { session: s.id, seq: s.seq++, ts: Math.round(ts * 1000) / 1000, agent };
    if (base.seq === 0) {
      yield { ...base, type: 'session.start', actor: 'system', level: 2, payload: { native_id: s.id.slice(5), cwd: '/home/alice/acme-api', model: 'claude-opus-4-8' } };
      continue;
    }
    const pick = rand();
    const message_id = `msg_${Math.floor(n / 4)}`;
    if (pick < 0.15) {
      yield { ...base, type: 'message.user', actor: 'user', level: 0, payload: { content: [{ type: 'text', text: text(rand, size(rand)) }] } };
    } else if (pick < 0.3) {
      yield { ...base, type: 'message.thinking', actor: `agent:${agent}`, level: 1, payload: { text: text(rand, size(rand)), visibility: 'visible', signature: 'c2lnbmF0dXJl', provider: 'anthropic', message_id } };
    } else if (pick < 0.5) {
      yield { ...base, type: 'message.assistant', actor: `agent:${agent}`, level: 0, payload: { content: [{ type: 'text', text: text(rand, size(rand)) }], message_id, model: 'claude-opus-4-8' } };
    } else if (pick < 0.75) {
      s.call += 1;
      yield { ...base, type: 'tool.call', actor: `agent:${agent}`, level: 0, payload: { call_id: `toolu_${s.call}`, name: 'Bash', input: { command: `npm test -- ${text(rand, 40)}` }, message_id } };
    } else {
      yield { ...base, type: 'tool.result', actor: 'tool', level: 0, payload: { call_id: `toolu_${s.call}`, content: text(rand, size(rand)), is_error: rand() < 0.1 } };
    }
  }
}

/** The same, chained: a stream that verifies. */
export function* syntheticChained(options: SyntheticOptions): Generator<SpEvent> {
  const chainer = new Chainer();
  for (const event of syntheticEvents(options)) yield chainer.chain(event);
}

export interface WorkSessionOptions {
  events: number;
  seed?: number;
  agent?: string;
}

const FILES = ['src/routes/todos.js', 'src/server.js', 'test/todos.test.js', 'README.md', 'src/store.js', 'package.json', 'CHANGELOG.md', 'test/server.test.js'];
const PROMPTS = [
  'Add a DELETE /todos/:id endpoint with a test.',
  'Titles longer than 200 characters should be rejected with a 400.',
  'Never touch the deployment config in deploy/, and keep the API backwards compatible.',
  '测试失败了，帮我看看 test/todos.test.js 为什么报错',
  'Update the README endpoint table and run the tests again.',
  'Remember: no new runtime dependencies in this project.',
];
const DECISIONS = [
  'keep the in-memory store; switching to SQLite is out of scope because the failure is a key mismatch, not a storage problem.',
  'validate titles in the route, not in the store, because the store is shared with the import job.',
  'return 404 with a JSON body for unknown ids because every other handler does so.',
  'no new runtime dependency because the service ships as a single file.',
];
const FAILURE =
  '> acme-api@0.3.0 test\n> node --test\n\n✔ GET /todos starts empty (3.1ms)\n✖ GET /todos/:id returns the todo (10.5ms)\n' +
  '  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n  404 !== 200\n\n      at TestContext.<anonymous> (/home/alice/acme-api/test/todos.test.js:30:10)\n' +
  'ℹ tests 5\nℹ pass 4\nℹ fail 1\n';
const SUCCESS = '> acme-api@0.3.0 test\n> node --test\n\n✔ GET /todos starts empty (3.1ms)\n✔ GET /todos/:id returns the todo (0.5ms)\nℹ tests 5\nℹ pass 5\nℹ fail 0\n';

/**
 * Unchained events of a working session with the mix and sizes of the recorded corpus (about 1 KB
 * per event): prompts (some with constraints), thinking, replies (some stating a decision), shell
 * commands that pass or fail, edits with diffs, plan updates, and metadata. Deterministic per seed.
 */
export function* workSessionEvents(options: WorkSessionOptions): Generator<SpEvent> {
  let n = 0;
  for (const event of workSession(options)) {
    if (n++ >= options.events) return;
    yield event;
  }
}

function* workSession(options: WorkSessionOptions): Generator<SpEvent> {
  const rand = random(options.seed ?? 1);
  const agent = options.agent ?? 'claude';
  const session = canonicalSessionId(agent, `work-${options.seed ?? 1}`);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  let seq = 0;
  let ts = 1_790_000_000;
  let call = 0;
  let todo = 0;
  let plan: Array<{ id: string; status: string }> = [];
  const base = (type: string, actor: SpEvent['actor'], payload: Record<string, unknown>, extra: Partial<SpEvent> = {}): SpEvent => {
    ts += rand() * 2;
    return { session, seq: seq++, ts: Math.round(ts * 1000) / 1000, agent, type, actor, level: 0, payload, ...extra };
  };
  yield base('session.start', 'system', { native_id: session.slice(5), cwd: '/home/alice/acme-api', git_branch: 'main', model: 'claude-opus-4-8', title: 'Synthetic work session' });
  while (seq < options.events) {
    yield base('message.user', 'user', { content: [{ type: 'text', text: `${pick(PROMPTS)} ${text(rand, 60 + Math.floor(rand() * 300))}` }] });
    yield base('meta', 'system', { key: 'claude.file-history-snapshot', value: { files: [pick(FILES)] } });
    const steps = 2 + Math.floor(rand() * 6);
    for (let s = 0; s < steps && seq < options.events; s++) {
      const r = rand();
      if (r < 0.2) yield base('message.thinking', `agent:${agent}`, { text: text(rand, 150 + Math.floor(rand() * 800)), visibility: 'visible' });
      const id = `toolu_${++call}`;
      if (r < 0.45) {
        const failed = rand() < 0.2;
        const cmd = pick(['npm test', 'git status --short', 'node --test test/server.test.js', 'npm run lint']);
        const c = base('tool.call', `agent:${agent}`, { call_id: id, name: 'Bash', input: { command: cmd } });
        yield c;
        const output = failed ? FAILURE : SUCCESS + text(rand, Math.floor(rand() * 1500));
        yield base('tool.result', 'tool', { call_id: id, content: output, is_error: failed });
        yield base('command.run', 'tool', { cmd, exit_code: failed ? 1 : 0, stdout_head: output.slice(0, 1200) }, { derived_from: c.seq });
      } else if (r < 0.75) {
        const path = `/home/alice/acme-api/${pick(FILES)}`;
        const added = 1 + Math.floor(rand() * 12);
        const diff = `--- a\n+++ b\n@@ -1,3 +1,${added + 2} @@\n${Array.from({ length: added }, () => `+${text(rand, 40 + Math.floor(rand() * 60)).replace(/\n/g, ' ')}`).join('\n')}\n-  return res;\n`;
        const c = base('tool.call', `agent:${agent}`, { call_id: id, name: 'Edit', input: { file_path: path, old_string: '  return res;', new_string: diff.slice(0, 400) } });
        yield c;
        yield base('tool.result', 'tool', { call_id: id, content: `The file ${path} has been updated successfully.` });
        yield base('file.edit', 'tool', { path, diff, kind: 'modify', added, removed: 1 }, { derived_from: c.seq });
      } else if (r < 0.85) {
        // A plan per turn: three steps added together, then worked off one update at a time.
        const c = base('tool.call', `agent:${agent}`, { call_id: id, name: 'TodoWrite', input: { todos: [] } });
        yield c;
        yield base('tool.result', 'tool', { call_id: id, content: 'Todos have been modified successfully.' });
        if (plan.length === 0) {
          for (let k = 0; k < 3; k++) {
            plan.push({ id: `todo-${++todo}`, status: 'pending' });
            yield base('todo.add', 'tool', { id: `todo-${todo}`, content: `Step ${todo}: ${text(rand, 50).replace(/\n/g, ' ')}`, status: 'pending' }, { derived_from: c.seq });
          }
        } else {
          const open = plan.find((t) => t.status !== 'completed');
          if (open) {
            open.status = open.status === 'pending' ? 'in_progress' : 'completed';
            yield base('todo.update', 'tool', { id: open.id, status: open.status }, { derived_from: c.seq });
          }
        }
      } else {
        const c = base('tool.call', `agent:${agent}`, { call_id: id, name: 'Read', input: { file_path: `/home/alice/acme-api/${pick(FILES)}` } });
        yield c;
        yield base('tool.result', 'tool', { call_id: id, content: text(rand, 300 + Math.floor(rand() * 2500)) });
      }
      if (rand() < 0.3) yield base('meta', 'system', { key: 'claude.token_count', value: { input_tokens: Math.floor(rand() * 1e5), output_tokens: Math.floor(rand() * 1e4) } });
    }
    // A turn ends with its plan done; a few turns state one of a handful of decisions.
    for (const t of plan) {
      if (t.status === 'completed') continue;
      t.status = 'completed';
      yield base('todo.update', 'tool', { id: t.id, status: 'completed' });
    }
    plan = [];
    const decision = rand() < 0.05 ? `\n\nDecision: ${pick(DECISIONS)}` : '';
    yield base('message.assistant', `agent:${agent}`, { content: [{ type: 'text', text: `${text(rand, 100 + Math.floor(rand() * 700))}${decision}` }] });
  }
}
