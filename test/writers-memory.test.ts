// Writers keep memory bounded (issue #19 item 4, issue #22): `sp-materialize <agent>` on a large
// generated session under a heap smaller than the session's text. A writer that buffers the session
// (an array of events, or of its output lines) runs out of heap and exits non-zero; one that streams
// or spools writes every record. Not timed: the heap cap is the check. The events are few and large
// (messages, thinking and results with ~16 KB of text each): what the relay and the writers keep per event (a few numbers, the
// ledger's row) is small, what they must not keep is the events' text.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chainer } from '../lib/core/chain.js';
import { isObject } from '../lib/core/json.js';
import { workSessionEvents } from '../lib/core/synthetic.js';
import { runBin, tempDir } from './support/streams.js';

// 10k events, ~3,800 of them with ~16 KB of text: ~60 MB of NDJSON: held in memory the text alone is more than the 48 MB heap.
const EVENTS = 10_000;
const PAD = 16_000;
const HEAP_MB = 48;

let dir: string;
let input: string;
let messages = 0;

beforeAll(() => {
  dir = tempDir('sp-writers-memory-');
  input = join(dir, 'session.ndjson');
  const fd = openSync(input, 'w');
  const chainer = new Chainer();
  let buffer = '';
  let n = 0;
  for (const event of workSessionEvents({ events: EVENTS, seed: 22 })) {
    if (event.type === 'message.user' || event.type === 'message.assistant') messages += 1;
    // Message text made large (distinct per event, so nothing dedupes it).
    const payload = isObject(event.payload) ? event.payload : {};
    const padding = (): string => `\n${`line ${(n += 1)} of the padding, so the session is large. `.repeat(Math.ceil(PAD / 48))}`;
    const content = payload.content;
    if (Array.isArray(content) && isObject(content[0]) && typeof content[0].text === 'string') content[0].text += padding();
    else if (typeof content === 'string') payload.content = content + padding();
    else if (typeof payload.text === 'string') payload.text += padding();
    buffer += `${JSON.stringify(chainer.chain(event))}\n`;
    if (buffer.length >= 1 << 20) {
      writeSync(fd, buffer);
      buffer = '';
    }
  }
  writeSync(fd, buffer);
  closeSync(fd);
}, 60_000);

// The session and the homes written (~60 MB each writer) go with the file.
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the writer under the heap cap; returns its result line and the file it wrote. */
function materialize(agent: string): { result: Record<string, unknown>; lines: number } {
  const home = join(dir, `home-${agent}`);
  mkdirSync(home);
  const r = runBin('sp-materialize', [agent, input, '--home', home, '--cwd', dir, '--quiet', '--no-redact'], { env: { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` } });
  expect(r.code, r.stderr.slice(-500)).toBe(0);
  const result = JSON.parse(r.stdout.trim().split('\n')[0]) as Record<string, unknown>;
  const text = readFileSync(String(result.path), 'utf8');
  return { result, lines: text.split('\n').filter((line) => line !== '').length };
}

describe(`writers under a ${HEAP_MB} MB heap on a ~60 MB session`, () => {
  it('the input is large enough that holding it would not fit', () => {
    expect(statSync(input).size).toBeGreaterThan(HEAP_MB * 1024 * 1024);
  });

  for (const agent of ['claude', 'codex']) {
    it(`${agent}: succeeds and writes every record`, () => {
      const { result, lines } = materialize(agent);
      expect(result.records).toBe(lines);
      // Every user and assistant message is at least one record (Codex: one response item each).
      expect(lines).toBeGreaterThan(messages);
    }, 120_000);
  }
});
