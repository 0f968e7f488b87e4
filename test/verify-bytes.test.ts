// sp-verify hashes canonical lines as bytes (lib/core/canonical-line.ts): the same verdicts as
// hashing the parsed event, lines in another form still verify by their content (and are counted),
// and a line that is not canonical can never pass on a checksum taken over its own text.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Verifier, formatReport } from '../lib/core/verify.js';
import { Chainer, CHECKSUM_PREFIX } from '../lib/core/chain.js';
import { canonicalize } from '../lib/core/jcs.js';
import { hash } from 'node:crypto';
import type { SpEvent } from '../lib/core/event.js';
import type { Line } from '../lib/core/lines.js';

const root = new URL('..', import.meta.url).pathname;

function verify(texts: string[]) {
  const verifier = new Verifier();
  texts.forEach((text, i) => {
    const line: Line = { text, number: i + 1, start: 0, end: text.length, terminated: true };
    verifier.push('test', line, JSON.parse(text));
  });
  return verifier.finish();
}

function streams(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) streams(path, out);
    else if (name.endsWith('.ndjson')) out.push(path);
  }
  return out;
}

function chained(n: number): string[] {
  const chainer = new Chainer();
  const lines: string[] = [];
  for (let seq = 0; seq < n; seq++) {
    const event = { session: 'sp:test:x', seq, ts: 1764000000000 + seq, agent: 'test', type: 'message', actor: 'user', payload: { text: `line ${seq} "q" é 😀\n` } } as SpEvent;
    lines.push(chainer.chainLine(event));
  }
  return lines;
}

/** The line re-chained in place over its own text: the checksum a byte hasher would compute for it. */
function forgeOverOwnText(previous: string, text: string): string {
  const member = /"checksum":"sha256:[0-9a-f]{64}"/.exec(text)!;
  const before = text.slice(0, member.index);
  const after = text.slice(member.index + member[0].length);
  const body = before.endsWith(',') ? before.slice(0, -1) + after : before + after.slice(1);
  const sum = CHECKSUM_PREFIX + hash('sha256', previous + body, 'hex');
  return `${before}"checksum":"${sum}"${after}`;
}

describe('sp-verify hashes lines as bytes', () => {
  it('verifies every stream of the repo fixtures with no line hashed the slow way', () => {
    const files = streams(join(root, 'fixtures'));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const texts = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
      const report = verify(texts);
      expect(report.ok, file).toBe(true);
      expect(report.non_canonical_lines, file).toBeUndefined();
    }
  });

  it('verifies lines rewritten in another form by their content, and counts them', () => {
    const lines = chained(6);
    // Keys reversed and spaces added, as another tool might write them: same content.
    const rewritten = lines.map((text, i) => (i % 2 === 0 ? text : JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(text)).reverse()), null, 1).replace(/\n/g, '')));
    const report = verify(rewritten);
    expect(report.ok).toBe(true);
    expect(report.non_canonical_lines).toBe(3);
    expect(formatReport(report)).toContain('1 session, 6 events: verified; 3 lines not in canonical form (hashed after canonicalizing)');
    expect(formatReport(verify(lines))).not.toContain('canonical form');
  });

  it('never accepts a non-canonical line whose checksum was taken over its own text', () => {
    const lines = chained(4);
    const previous = JSON.parse(lines[1]).checksum as string;
    const hostile = [
      lines[2].replace('"seq":2', '"seq":2.0'), // same value in another spelling
      lines[2].replace('"seq":2', '"seq":2e0'),
      lines[2].replace('"actor":"user"', '"actor":"\\u0075ser"'), // an escape stringify would not write
      lines[2].replace('"actor":"user",', '"actor":"user", '), // whitespace
      lines[2].replace('"actor":"user"', '"actor":"user","actor":"user"'), // a duplicate key
      lines[2].replace('"ts":', '"ts":-0,"ts":'), // a duplicate key whose first value JSON.parse drops
    ];
    for (const line of hostile) {
      const forged = forgeOverOwnText(previous, line);
      JSON.parse(forged); // still valid JSON
      const report = verify([lines[0], lines[1], forged, lines[3]]);
      expect(report.ok, forged).toBe(false);
      expect(report.sessions[0].damage?.seq, forged).toBe(2);
    }
    // The control: over a canonical line the forger computes exactly the real checksum, so each
    // hostile line above carries the checksum a hasher of raw text would have accepted.
    const control = forgeOverOwnText(previous, lines[2]);
    expect(control).toBe(lines[2]);
    expect(canonicalize(JSON.parse(control))).toBe(control);
    expect(verify([lines[0], lines[1], control, lines[3]]).ok).toBe(true);
  });

  it('gives the same verdicts for damage whichever way a line is hashed', () => {
    const lines = chained(8);
    const swapped = [...lines];
    [swapped[3], swapped[4]] = [swapped[4], swapped[3]];
    const modified = [...lines];
    modified[5] = modified[5].replace('line 5', 'line five');
    const deleted = lines.filter((_, i) => i !== 2);
    const spaced = (texts: string[]) => texts.map((t) => JSON.stringify(JSON.parse(t), null, 1).replace(/\n/g, ''));
    for (const texts of [swapped, modified, deleted]) {
      const fast = verify(texts);
      const slow = verify(spaced(texts));
      expect(slow.non_canonical_lines).toBe(texts.length);
      expect(fast.sessions.map((s) => [s.ok, s.damage?.kind, s.damage?.seq, s.damage?.message, s.damage_count, s.head])).toEqual(
        slow.sessions.map((s) => [s.ok, s.damage?.kind, s.damage?.seq, s.damage?.message, s.damage_count, s.head]),
      );
      expect(fast.ok).toBe(false);
    }
  });
});
