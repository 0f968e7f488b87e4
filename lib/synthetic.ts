// Synthetic canonical sessions for benchmarks and tests: realistic mixes of event types with
// payloads from 200 B to 20 KB of code, prose and CJK text. Deterministic for a given seed.
import { Chainer } from './chain.js';
import { canonicalSessionId, type SpEvent } from './event.js';

const PROSE =
  'The handler reads the todo list from the in-memory store, filters it by the query, and returns the page. ' +
  'We keep the store in memory because switching to SQLite is out of scope for this change. ';
const CODE =
  "export async function removeTodo(req, res) {\n  const id = Number(req.params.id);\n  const index = todos.findIndex((t) => t.id === id);\n" +
  "  if (index === -1) return res.status(404).json({ error: 'not found' });\n  todos.splice(index, 1);\n  res.status(204).end();\n}\n";
const CJK = '测试失败了，帮我看看为什么报错。我们保留内存存储；切换到 SQLite 不在本次范围内。日本語のテキストも含みます。';

/** A small deterministic PRNG (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
