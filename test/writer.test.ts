// lib/write/writer.ts: what every sp-materialize writer shares: which session of a stream is written, and
// when the --raw lines of a capture are the whole native file (byte-identical --same-id writes).
import { describe, expect, it } from 'vitest';
import type { SpEvent } from '../lib/core/event.js';
import { RawLineCheck, SessionPicker, capturedRawLines, lineChunks, selectSession } from '../lib/write/writer.js';
import { SpooledSession } from '../lib/write/spool.js';
import { from } from './support/canonical.js';

function event(session: string, seq: number, type: string, origin: Partial<NonNullable<SpEvent['origin']>> = {}, payload: Record<string, unknown> = {}): SpEvent {
  return { session, seq, ts: 1_790_000_000 + seq, agent: 'claude', type, payload, origin: { agent: 'claude', native_id: 'n', ...origin } };
}

/** Events of a file of `n` lines, one per line, each carrying its line with --raw. */
function lineEvents(n: number): SpEvent[] {
  return Array.from({ length: n }, (_, i) => event('s', i, 'meta', { native_seq: i + 1, raw: [`{"line":${i + 1}}`] }));
}

describe('SessionPicker / selectSession', () => {
  it('writes the session of the first session.start, not the session whose events come first', async () => {
    const stream = [event('a', 3, 'message.user'), event('b', 0, 'session.start', {}, { native_id: 'nb' }), event('a', 0, 'session.start', {}, { native_id: 'na' }), event('b', 1, 'message.user')];
    const selected = await selectSession(from(stream));
    expect(selected.session).toBe('b');
    expect(selected.others).toEqual(new Map([['a', { count: 2, nativeId: 'na' }]]));
  });

  it('without any session.start: the first session; events in seq order', async () => {
    const selected = await selectSession(from([event('a', 1, 'message.user'), event('a', 0, 'message.user'), event('b', 0, 'message.user')]));
    expect(selected.session).toBe('a');
    expect(selected.events.map((e) => e.seq)).toEqual([0, 1]);
  });

  it('--session names a session by canonical or native id', () => {
    const picker = new SessionPicker();
    for (const e of [event('a', 0, 'session.start', {}, { native_id: 'na' }), event('b', 0, 'session.start', {}, { native_id: 'nb' })]) picker.add(e);
    expect(picker.pick('b')).toBe('b');
    expect(picker.pick('nb')).toBe('b');
    expect(() => picker.pick('nc')).toThrow(/no session nc in the input/);
    expect(() => new SessionPicker().pick()).toThrow(/no events in the input/);
  });
});

describe('SpooledSession: the same session and order as selectSession', () => {
  /** What a writer reads from each, as JSON (the spooled view is read by index). */
  async function both(stream: SpEvent[], selector?: string): Promise<[string, string]> {
    const plain = await selectSession(from(stream), selector);
    const spooled = await SpooledSession.create(from(stream), selector);
    try {
      const read = Array.from({ length: spooled.events.length }, (_, i) => spooled.events[i]);
      expect([spooled.session, spooled.others]).toEqual([plain.session, plain.others]);
      return [JSON.stringify(read), JSON.stringify(plain.events)];
    } finally {
      spooled.remove();
    }
  }
  const withText = (e: SpEvent, text: string): SpEvent => ({ ...e, payload: { text } });

  it('one session in order (the stream is the view), with lines of different lengths and UTF-8', async () => {
    const stream = [event('a', 0, 'session.start'), withText(event('a', 1, 'message.user'), 'é€😀'.repeat(50)), event('a', 2, 'message.user'), withText(event('a', 3, 'message.user'), '')];
    const [spooled, plain] = await both(stream);
    expect(spooled).toBe(plain);
    expect(JSON.parse(spooled)).toHaveLength(4);
  });

  it('interleaved sessions, seqs out of order with ties: sorted stably, the others counted', async () => {
    const stream = [event('a', 5, 'message.user'), event('b', 0, 'session.start'), withText(event('a', 2, 'message.user'), 'first 2'), event('a', 0, 'session.start'), withText(event('a', 2, 'message.user'), 'second 2'), event('b', 1, 'message.user'), event('a', 1, 'message.user')];
    for (const selector of [undefined, 'a', 'b']) {
      const [spooled, plain] = await both(stream, selector);
      expect(spooled).toBe(plain);
    }
    const [a] = await both(stream, 'a');
    expect(JSON.parse(a).map((e: SpEvent) => [e.seq, (e.payload as { text?: string }).text])).toEqual([[0, undefined], [1, undefined], [2, 'first 2'], [2, 'second 2'], [5, undefined]]);
  });

  it('a seq that is not a number: the session keeps its stream order', async () => {
    const stream = [event('a', 3, 'message.user'), { ...event('a', 0, 'message.user'), seq: 'x' as unknown as number }, event('a', 1, 'message.user')];
    const [spooled, plain] = await both(stream);
    expect(spooled).toBe(plain);
    expect(JSON.parse(spooled).map((e: SpEvent) => e.seq)).toEqual([3, 'x', 1]);
  });
});

describe('capturedRawLines / RawLineCheck', () => {
  it('gives the lines of a complete capture in file order, whatever the stream order', () => {
    const events = lineEvents(4);
    expect(capturedRawLines(events)).toEqual(['{"line":1}', '{"line":2}', '{"line":3}', '{"line":4}']);
    expect(capturedRawLines([...events].reverse())).toEqual(['{"line":1}', '{"line":2}', '{"line":3}', '{"line":4}']);
  });

  it('other events of a line, and events that are no line of the file, do not count', () => {
    const events = lineEvents(3);
    events.splice(2, 0, event('s', 9, 'tool.call', { native_seq: 2 }), event('s', 10, 'todo.add', { path: '/tasks/1.json' }));
    expect(capturedRawLines(events)).toHaveLength(3);
  });

  it('is undefined when the lines are not the whole file', () => {
    const gap = lineEvents(4).filter((e) => e.origin!.native_seq !== 3);
    expect(capturedRawLines(gap)).toBeUndefined();
    const notFromOne = lineEvents(4).slice(1);
    expect(capturedRawLines(notFromOne)).toBeUndefined();
    const lineWithoutRaw = [...lineEvents(2), event('s', 5, 'meta', { native_seq: 3 })];
    expect(capturedRawLines(lineWithoutRaw)).toBeUndefined();
    const rawWithoutLine = [...lineEvents(2), event('s', 5, 'meta', { raw: ['{"where":"?"}'] })];
    expect(capturedRawLines(rawWithoutLine)).toBeUndefined();
    const twice = [...lineEvents(2), event('s', 5, 'meta', { native_seq: 2, raw: ['{"line":2}'] })];
    expect(capturedRawLines(twice)).toBeUndefined();
    expect(capturedRawLines([event('s', 0, 'session.start')])).toBeUndefined();
  });

  it('checks a stream in file order without keeping lines', () => {
    const check = new RawLineCheck();
    for (const e of lineEvents(3)) check.add(e);
    expect(check.complete).toBe(true);
    expect(check.lines).toBe(3);
    check.add(event('s', 9, 'meta', { native_seq: 5, raw: ['{"line":5}'] }));
    expect(check.complete).toBe(false);
  });
});

describe('lineChunks', () => {
  it('joins lines with a newline after each, or not after the last', () => {
    expect([...lineChunks(['a', 'b'])].join('')).toBe('a\nb\n');
    expect([...lineChunks(['a', 'b'], false)].join('')).toBe('a\nb');
    const big = Array.from({ length: 3000 }, (_, i) => `${i}`.padEnd(100, '.'));
    const chunks = [...lineChunks(big)];
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe(big.join('\n') + '\n');
  });
});
