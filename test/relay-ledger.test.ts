// The relay's ledger keeps its sources as runs and its entries in temp files (lib/relay/ledger.ts):
// the rows read back are what was recorded, row for row, entries in their order and shape.
import { existsSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LossEntry } from '../lib/adapter/interface.js';
import type { SpEvent } from '../lib/core/event.js';
import { random as seeded } from '../lib/core/random.js';
import { RelayLedger } from '../lib/relay/ledger.js';

const event = (session: string, seq: unknown, type: string): SpEvent => ({ session, seq, ts: 0, agent: 'a', type, actor: 'system', payload: {} }) as unknown as SpEvent;

describe('RelayLedger', () => {
  it('gives back every source as a row, in input order, with its entries', () => {
    const ledger = new RelayLedger();
    ledger.source(event('s1', 0, 'session.start'));
    ledger.source(event('s1', 1, 'tool.call'));
    ledger.source(event('s2', 1, 'message.user'));
    ledger.source(event('s1', 2, 'tool.result'));
    ledger.source(event('s1', 'x', 'meta'));
    ledger.add('s1', { action: 'translated', code: 'tool-name', reason: 'Bash as shell', seq: 1, type: 'tool.call', from: 'Bash', to: 'shell' });
    ledger.add('s1', { action: 'stubbed', code: 'stub-result', reason: 'no result', seq: 1, type: 'tool.call' });
    ledger.add('s2', { action: 'dropped', code: 'other-session', reason: 'another session', seq: 1, type: 'message.user' });
    ledger.add('s1', { action: 'transformed', code: 'model', reason: 'a model', type: 'message.assistant' });
    expect([...ledger.rows()]).toEqual([
      { session: 's1', seq: 0, type: 'session.start', action: 'carried' },
      {
        session: 's1', seq: 1, type: 'tool.call', action: 'translated', code: 'tool-name', reason: 'Bash as shell', from: 'Bash', to: 'shell',
        entries: [
          { action: 'translated', code: 'tool-name', reason: 'Bash as shell', seq: 1, type: 'tool.call', from: 'Bash', to: 'shell' },
          { action: 'stubbed', code: 'stub-result', reason: 'no result', seq: 1, type: 'tool.call' },
        ],
      },
      { session: 's2', seq: 1, type: 'message.user', action: 'dropped', code: 'other-session', reason: 'another session' },
      { session: 's1', seq: 2, type: 'tool.result', action: 'carried' },
      { session: 's1', seq: 'x', type: 'meta', action: 'carried' },
    ]);
    expect(ledger.unattached).toEqual([{ action: 'transformed', code: 'model', reason: 'a model', type: 'message.assistant', session: 's1' }]);
    expect(ledger.entriesOf('s1', 1).map((e) => e.code)).toEqual(['tool-name', 'stub-result']);
    expect(ledger.entriesOf('s1', 7)).toEqual([]);
    expect(ledger.totals()).toMatchObject({ events: 5, carried: 3, translated: 1, dropped: 1 });
  });

  it('keeps one row per source over many events (columns grow past their first size)', () => {
    const ledger = new RelayLedger();
    for (let seq = 0; seq < 5000; seq += 1) ledger.source(event('s', seq, seq % 2 ? 'tool.call' : 'message.user'));
    for (let seq = 1; seq < 5000; seq += 2) ledger.add('s', { action: 'stubbed', code: 'stub-result', reason: `stubbed ${'x'.repeat(20)}`, seq, type: 'tool.call' });
    const rows = [...ledger.rows()];
    expect(rows).toHaveLength(5000);
    expect(rows[4999]).toEqual({ session: 's', seq: 4999, type: 'tool.call', action: 'stubbed', code: 'stub-result', reason: `stubbed ${'x'.repeat(20)}` });
    expect(rows[4998]).toEqual({ session: 's', seq: 4998, type: 'message.user', action: 'carried' });
  });

  it('keeps reasons that differ per event as they are, past the strings it shares', () => {
    const ledger = new RelayLedger();
    for (let seq = 0; seq < 6000; seq += 1) {
      ledger.source(event('s', seq, 'tool.call'));
      ledger.add('s', { action: 'transformed', code: 'tool-id', reason: `id call_${seq} rewritten`, seq, type: 'tool.call' });
    }
    const rows = [...ledger.rows()];
    expect(rows.map((row) => row.reason)).toEqual(Array.from({ length: 6000 }, (_, seq) => `id call_${seq} rewritten`));
  });

  it('keeps apart entries whose session and seq hash alike (seqs 40189 and 797186 of "s")', () => {
    const ledger = new RelayLedger();
    for (const seq of [40189, 797186]) ledger.source(event('s', seq, 'tool.call'));
    ledger.add('s', { action: 'stubbed', code: 'stub-result', reason: 'first', seq: 40189, type: 'tool.call' });
    ledger.add('s', { action: 'dropped', code: 'orphan-result', reason: 'second', seq: 797186, type: 'tool.call' });
    expect(ledger.entriesOf('s', 40189).map((e) => e.reason)).toEqual(['first']);
    expect(ledger.entriesOf('s', 797186).map((e) => e.reason)).toEqual(['second']);
    expect(ledger.entriesOf('t', 40189)).toEqual([]);
    ledger.remove();
  });

  it('holds its entries in a private temp folder that remove() deletes (and nothing before the first entry)', () => {
    const ledger = new RelayLedger();
    ledger.source(event('s', 1, 'tool.call'));
    ledger.add('s', { action: 'transformed', code: 'model', reason: 'session-level', type: 'message.assistant' });
    expect(ledger.path).toBeUndefined();
    ledger.add('s', { action: 'stubbed', code: 'stub-result', reason: 'no result', seq: 1, type: 'tool.call' });
    const dir = ledger.path!;
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect([...ledger.rows()][0]).toMatchObject({ action: 'stubbed', reason: 'no result' });
    ledger.remove();
    expect(existsSync(dir)).toBe(false);
    ledger.remove();
    expect(() => ledger.add('s', { action: 'stubbed', code: 'stub-result', reason: 'late', seq: 1, type: 'tool.call' })).toThrow(/removed/);
  });
  it('gives what a plain list of entries by session and seq gives, for streams out of order, with repeats, gaps, NaN, late entries and new sources after a query', () => {
    for (let round = 0; round < 40; round += 1) {
      const random = seeded(round + 1);
      const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
      const ledger = new RelayLedger();
      // The reference: what the ledger said before it kept runs and sorted files.
      const sources: [string, unknown, string][] = [];
      const entries: [string, LossEntry][] = [];
      const expectedRows = (): unknown[] =>
        sources.map(([session, seq]) => entries.filter(([s, e]) => typeof seq === 'number' && s === session && e.seq === seq).map(([, e]) => e.reason));
      const gotRows = (): unknown[] => [...ledger.rows()].map((row) => (row.entries ?? (row.reason !== undefined ? [row] : [])).map((e) => e.reason));
      const sessions = ['s', 't', 'u'];
      let seq = 0;
      const steps = 200 + Math.floor(random() * 600);
      for (let step = 0; step < steps; step += 1) {
        const r = random();
        if (r < 0.55) {
          // Mostly increasing by one; sometimes a gap, a repeat, a step back, a fraction, NaN or no number.
          const k = random();
          seq = k < 0.8 ? seq + 1 : k < 0.86 ? seq + 2 + Math.floor(random() * 5) : k < 0.9 ? seq : k < 0.94 ? Math.max(0, seq - 3) : k < 0.96 ? seq + 0.5 : seq;
          const value: unknown = k > 0.985 ? NaN : k > 0.97 ? 'x' : seq;
          const session = round % 3 === 0 ? 's' : random() < 0.9 ? sources.at(-1)?.[0] ?? 's' : pick(sessions);
          const type = round % 5 === 0 ? `type-${Math.floor(random() * 400)}` : pick(['message.user', 'tool.call', 'tool.result']);
          sources.push([session, value, type]);
          ledger.source(event(session, value, type));
        } else if (r < 0.97) {
          const target: [string, unknown, string] = random() < 0.9 && sources.length ? pick(sources) : [pick(sessions), Math.floor(random() * (seq + 3)), 'x'];
          const entry: LossEntry = { action: pick(['dropped', 'stubbed', 'translated', 'carried'] as const), code: 'c', reason: `r${step}`, seq: target[1] as number, type: 'x' };
          if (typeof entry.seq !== 'number') continue;
          entries.push([target[0], entry]);
          ledger.add(target[0], entry);
        } else {
          // A query in the middle: entries after it are late ones, sources after it change the index.
          const [session, value] = sources.length ? pick(sources) : ['s', 0];
          if (typeof value === 'number') expect(ledger.entriesOf(session, value).map((e) => e.reason)).toEqual(entries.filter(([s, e]) => s === session && e.seq === value).map(([, e]) => e.reason));
        }
      }
      expect(gotRows()).toEqual(expectedRows());
      expect([...ledger.rows()].map((row) => [row.session, row.seq, row.type])).toEqual(sources);
      for (const [session, e] of entries) expect(ledger.entriesOf(session, e.seq!).map((x) => x.reason)).toEqual(entries.filter(([s, x]) => s === session && x.seq === e.seq).map(([, x]) => x.reason));
      ledger.remove();
    }
  });
});
