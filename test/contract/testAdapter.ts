// The adapter contract suite (issue 3): every adapter runs it in a few lines,
//   testAdapter(claude, { fixtures: [...], home: 'fixtures/claude/corpus/S1-feature/.claude' });
// It checks what any capture must do, whatever the agent: capture every fixture; seq 0.. without
// gaps per session; a chain that verifies; valid events (the JSON Schemas); unknown record types
// passed through as meta with the raw record; broken lines reported with file:line and survived;
// incremental capture on a copy that grows line by line (exactly the new events, truncation and
// rewrites detected); and, when the adapter can write, a round trip through a temporary home.
// Line-based hooks default to JSONL; adapters with other stores (SQLite …) pass their own: how to
// copy a fixture, inject records, and grow a copy record by record (`incremental.grow`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Adapter, CaptureOptions, Cursor, MaterializeOptions, SessionRef } from '../../lib/adapter/interface.js';
import { Chainer, computeChecksum } from '../../lib/core/chain.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SpEvent } from '../../lib/core/event.js';
import { createValidator, type EventValidator } from '../../lib/core/schema.js';

export interface Diagnostic {
  where: string;
  what: string;
}

export interface Captured {
  events: SpEvent[];
  diagnostics: Diagnostic[];
  cursor?: Cursor;
}

/** Captures one native file (or database) completely. */
export async function captureAll(adapter: Adapter, path: string, options: CaptureOptions = {}): Promise<Captured> {
  const ref = await adapter.open(path);
  return captureRef(adapter, ref, options);
}

export async function captureRef(adapter: Adapter, ref: SessionRef, options: CaptureOptions = {}): Promise<Captured> {
  const diagnostics: Diagnostic[] = [];
  const events: SpEvent[] = [];
  let cursor: Cursor | undefined;
  for await (const event of adapter.capture(ref, {
    ...options,
    onDiagnostic: (where, what) => diagnostics.push({ where, what }),
    onCursor: (c) => (cursor = c),
  })) {
    events.push(event);
  }
  return { events, diagnostics, cursor };
}

/** Events grouped by session, in stream order. */
export function bySession(events: SpEvent[]): Map<string, SpEvent[]> {
  const out = new Map<string, SpEvent[]>();
  for (const event of events) {
    const list = out.get(event.session) ?? [];
    list.push(event);
    out.set(event.session, list);
  }
  return out;
}

/** The first problem with a chained stream, or undefined when every session's chain holds. */
export function chainProblem(events: SpEvent[]): string | undefined {
  const tails = new Map<string, string>();
  for (const event of events) {
    const expected = computeChecksum(tails.get(event.session) ?? '', event);
    if (event.checksum !== expected) return `${event.session} seq ${event.seq}: checksum ${event.checksum} ≠ ${expected}`;
    tails.set(event.session, event.checksum);
  }
  return undefined;
}

/** What the incremental test compares with a full capture: everything but times, checksums, envelope extras and the start. */
export function incrementalView(event: SpEvent): unknown {
  const { ts: _ts, checksum: _checksum, ...rest } = event;
  if (event.type === 'session.start') return { session: event.session, seq: event.seq, type: event.type };
  const { extra: _extra, ...payload } = event.payload as Record<string, unknown>;
  return { ...rest, payload };
}

/**
 * The round trip's view of a session: user and assistant texts and tool call ids, in order, each
 * counted once (a writer may send a message twice on purpose, as Claude re-sends the segment a
 * compaction preserved; the first occurrence fixes the order).
 */
export function conversationView(events: SpEvent[]): string[] {
  const root = events.find((e) => e.type === 'session.start')?.session ?? events[0]?.session;
  const out: string[] = [];
  for (const event of events) {
    if (event.session !== root || event.derived_from !== undefined) continue;
    const payload = event.payload as Record<string, unknown>;
    if (event.type === 'message.user' || event.type === 'message.assistant') {
      const content = Array.isArray(payload.content) ? payload.content : [];
      const text = content
        .filter((b): b is { type: string; text: string } => typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'text')
        .map((b) => b.text)
        .join('\n');
      if (text.trim() !== '') out.push(`${event.type === 'message.user' ? 'user' : 'assistant'}: ${text}`);
    } else if (event.type === 'tool.call') {
      out.push(`call: ${String(payload.call_id)}`);
    }
  }
  return [...new Set(out)];
}

export interface Injected {
  path: string;
  /** A string that the injected record contains (and so must reach the output). */
  marker: string;
  /** The 1-based line (or record number) of the injected record. */
  line: number;
}

/** A JSONL copy with one line added after the first: the default for line-based stores. */
export function injectJsonl(fixture: string, dir: string, line: string): Injected & { marker: string } {
  const text = readFileSync(fixture, 'utf8');
  const at = text.indexOf('\n');
  const path = join(dir, basename(fixture));
  const head = at === -1 ? text + '\n' : text.slice(0, at + 1);
  writeFileSync(path, head + line + '\n' + (at === -1 ? '' : text.slice(at + 1)));
  return { path, marker: '', line: 2 };
}

/**
 * A copy of a fixture that grows one record at a time, for stores that are not line files (a
 * database): the generic form of the line-by-line test. Checks stay the same: exactly the new events,
 * each once, then a store that lost or changed a consumed record is reported, not mis-read.
 */
export interface Grower {
  /** What `adapter.open` takes for the copy; it exists and holds no record yet. */
  path: string;
  /** How many records `add` can add. */
  count: number;
  /** Adds record `i` (0-based); returns the range of `origin.native_seq` its events may have. */
  add(i: number): { from: number; to: number };
  /** Removes the last record added (the cursor consumed it). */
  truncate(): void;
  /** Puts it back changed (same place, other content). */
  rewrite(): void;
}

export interface ContractOptions {
  /** Native files (or locators) the adapter's `open` accepts. */
  fixtures: string[];
  /** A copy of a fixture in `dir` that `open` accepts (default: the file, same name). */
  copy?: (fixture: string, dir: string) => string;
  /** A home whose sessions `discover` must list. */
  home?: string;
  /** A copy of a fixture with a record of a type the agent never wrote (default: JSONL line). */
  injectUnknown?: (fixture: string, dir: string) => Injected;
  /** A copy of a fixture with a line that is not a record (default: JSONL line). */
  injectBroken?: (fixture: string, dir: string) => Injected;
  /** Fixtures for the grow-line-by-line test (default: every fixture); false skips it (non-line stores). */
  incremental?: false | { fixtures?: string[]; view?: (event: SpEvent) => unknown; grow?: (fixture: string, dir: string) => Grower };
  /**
   * Types whose events the capture levels otherwise than the fidelity table declares, with the level
   * they carry: a known disagreement kept because an event's level is part of its store key (a
   * session captured again would be stored twice). Each must still differ from the table.
   */
  capturedLevels?: Record<string, 0 | 1 | 2>;
  /** The round trip (when the adapter can write); false skips it. */
  roundTrip?:
    | false
    | {
        fixtures?: string[];
        /** Options for materialize; `home` is a fresh temporary home. */
        options?: (home: string, fixture: string) => MaterializeOptions;
        /** What must survive the trip (default: conversationView). */
        view?: (events: SpEvent[]) => unknown;
      };
}

export function testAdapter(adapter: Adapter, options: ContractOptions): void {
  describe(`adapter contract: ${adapter.id}`, () => {
    let work: string;
    let validator: EventValidator;
    const captured = new Map<string, Captured>();
    let counter = 0;
    const scratch = (): string => {
      const dir = join(work, String(counter++));
      mkdirSync(dir, { recursive: true });
      return dir;
    };
    const copy = options.copy ?? copyFixture;

    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), `sp-contract-${adapter.id}-`));
      validator = await createValidator();
      for (const fixture of options.fixtures) captured.set(fixture, await captureAll(adapter, fixture));
    });
    afterAll(() => {
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it('declares a fidelity level for the core types it emits', () => {
      for (const type of ['session.start', 'message.user', 'message.assistant', 'tool.call', 'tool.result', 'meta']) {
        expect(adapter.fidelity[type], type).toBeDefined();
        expect([0, 1, 2]).toContain(adapter.fidelity[type].level);
      }
    });

    // The invariant (docs/design.md §3): the table lists every type the capture emits, and an event
    // that carries a level (it is optional) carries the one the table declares for its type.
    it('emits only types its fidelity table lists, each event at the level the table declares', () => {
      const known = options.capturedLevels ?? {};
      for (const [type, level] of Object.entries(known)) expect(adapter.fidelity[type]?.level, `capturedLevels.${type} agrees with the table: drop it`).not.toBe(level);
      const wrong = new Set<string>();
      for (const fixture of options.fixtures) {
        for (const event of captured.get(fixture)!.events) {
          const declared = Object.hasOwn(adapter.fidelity, event.type) ? adapter.fidelity[event.type].level : undefined;
          const expected = Object.hasOwn(known, event.type) ? known[event.type] : declared;
          if (declared === undefined) wrong.add(`${event.type}: not in the fidelity table`);
          else if (event.level !== undefined && event.level !== expected) wrong.add(`${event.type}: level ${event.level}, the table declares ${declared}`);
        }
      }
      expect([...wrong].sort()).toEqual([]);
    });

    it('captures every fixture, starting each session with session.start', () => {
      expect(options.fixtures.length).toBeGreaterThan(0);
      for (const fixture of options.fixtures) {
        const { events } = captured.get(fixture)!;
        expect(events.length, fixture).toBeGreaterThan(1);
        for (const [, list] of bySession(events)) expect(list[0].type, fixture).toBe('session.start');
        for (const event of events) expect(event.agent).toBe(adapter.id);
      }
    });

    it('numbers seq 0, 1, 2 … without gaps per session', () => {
      for (const fixture of options.fixtures) {
        for (const [session, list] of bySession(captured.get(fixture)!.events)) {
          expect(list.map((e) => e.seq), `${fixture} ${session}`).toEqual(list.map((_, i) => i));
        }
      }
    });

    it('gives events that match the schema and whose chain verifies', () => {
      for (const fixture of options.fixtures) {
        const chainer = new Chainer();
        const chained = captured.get(fixture)!.events.map((e) => chainer.chain(e));
        for (const event of chained) expect(validator.validate(event), `${fixture} seq ${event.seq} ${event.type}`).toEqual([]);
        expect(chainProblem(chained), fixture).toBeUndefined();
        // The check can fail: change one payload and the chain breaks there.
        const tampered = chained.map((e, i) => (i === chained.length - 1 ? { ...e, payload: { ...e.payload, tampered: true } } : e));
        expect(chainProblem(tampered), fixture).toMatch(/checksum/);
      }
    });

    it('points derived events at an earlier tool.call of the same session', () => {
      for (const fixture of options.fixtures) {
        const events = captured.get(fixture)!.events;
        const index = new Map(events.map((e) => [`${e.session}#${e.seq}`, e]));
        for (const event of events) {
          if (event.derived_from === undefined) continue;
          const source = index.get(`${event.session}#${event.derived_from}`);
          expect(source?.type, `${fixture} seq ${event.seq}`).toBe('tool.call');
          expect(event.derived_from).toBeLessThan(event.seq);
        }
      }
    });

    it('passes an unknown record type through as meta with the raw record', async () => {
      const fixture = options.fixtures[0];
      const marker = `sp-contract-marker-${process.pid}`;
      const injected = options.injectUnknown
        ? options.injectUnknown(fixture, scratch())
        : { ...injectJsonl(fixture, scratch(), JSON.stringify({ type: 'sp-contract-future-record', marker, nested: { kept: [1, 2, 3] } })), marker };
      const { events, diagnostics } = await captureAll(adapter, injected.path);
      const meta = events.filter((e) => e.type === 'meta' && JSON.stringify(e.payload).includes(injected.marker));
      expect(meta).toHaveLength(1);
      expect(JSON.stringify((meta[0].payload as Record<string, unknown>).raw)).toContain(injected.marker);
      expect(diagnostics).toEqual([]);
      // Nothing else changed: one event more than a capture of a plain copy (side files stay behind in both).
      const plain = await captureAll(adapter, copy(fixture, scratch()));
      expect(events.length).toBe(plain.events.length + 1);
    });

    it('reports a broken line with file:line and captures the rest', async () => {
      const fixture = options.fixtures[0];
      const injected = options.injectBroken
        ? options.injectBroken(fixture, scratch())
        : { ...injectJsonl(fixture, scratch(), '{"type":"user","message":{"content":"cut off'), marker: 'cut off' };
      const { events, diagnostics } = await captureAll(adapter, injected.path);
      expect(diagnostics.length).toBe(1);
      expect(diagnostics[0].where).toBe(`${injected.path}:${injected.line}`);
      expect(diagnostics[0].what).toContain(injected.marker);
      // The bad line is kept (as meta) and every good record is still there.
      const plain = await captureAll(adapter, copy(fixture, scratch()));
      expect(events.length).toBe(plain.events.length + 1);
      expect(events.some((e) => e.type === 'meta' && JSON.stringify(e.payload).includes(injected.marker))).toBe(true);
    });

    if (options.home !== undefined) {
      const home = options.home;
      it('discovers the sessions of a home, newest first, and opens each by its path', async () => {
        const refs: SessionRef[] = [];
        for await (const ref of adapter.discover({ home })) refs.push(ref);
        expect(refs.length).toBeGreaterThan(0);
        for (let i = 1; i < refs.length; i += 1) expect(refs[i - 1].mtime ?? 0).toBeGreaterThanOrEqual(refs[i].mtime ?? 0);
        for (const ref of refs) {
          expect(ref.agent).toBe(adapter.id);
          expect((await adapter.open(ref.path)).native_id).toBe(ref.native_id);
        }
      });

      it('reports a missing home as a user error', async () => {
        const missing = join(work, 'no-such-home');
        await expect(async () => {
          for await (const _ of adapter.discover({ home: missing })) void _;
        }).rejects.toBeInstanceOf(UserError);
      });
    }

    if (options.incremental !== false) {
      const incremental = options.incremental ?? {};
      const fixtures = incremental.fixtures ?? options.fixtures;
      const view = incremental.view ?? incrementalView;

      const grow = incremental.grow;
      if (grow) {
        it('captures a copy that grows record by record: exactly the new events, then detects lost and rewritten records', async () => {
          for (const fixture of fixtures) {
            const grower = grow(fixture, scratch());
            const ref = await adapter.open(grower.path);
            let cursor: Cursor | undefined = { version: 1, agent: adapter.id, native_id: ref.native_id, sources: {}, sessions: {} };
            const all: SpEvent[] = [];
            const seen = new Set<string>();
            for (let i = 0; i < grower.count; i += 1) {
              const { from, to } = grower.add(i);
              const got = await captureRef(adapter, ref, { raw: true, cursor });
              cursor = got.cursor;
              for (const event of got.events) {
                const key = `${event.session}#${event.seq}`;
                expect(seen.has(key), `${fixture}: ${key} emitted twice`).toBe(false);
                seen.add(key);
                const at = event.origin?.native_seq;
                if (event.type !== 'session.start' && typeof at === 'number') {
                  expect(at, `${fixture}: event from record ${at} while ${from}–${to} were new`).toBeGreaterThanOrEqual(from);
                  expect(at).toBeLessThanOrEqual(to);
                }
              }
              all.push(...got.events);
            }
            const full = await captureAll(adapter, copy(fixture, scratch()), { raw: true });
            expect(all.map(view), fixture).toEqual(full.events.map(view));
            const before = cursor;
            grower.truncate();
            await expect(captureRef(adapter, ref, { cursor: before }), fixture).rejects.toBeInstanceOf(UserError);
            grower.rewrite();
            await expect(captureRef(adapter, ref, { cursor: before }), fixture).rejects.toBeInstanceOf(UserError);
          }
        });
      }

      if (!grow) it('captures a copy that grows line by line: exactly the new events, then detects truncation and rewrites', async () => {
        for (const fixture of fixtures) {
          const bytes = readFileSync(fixture);
          const lines: Buffer[] = [];
          for (let from = 0; from < bytes.length; ) {
            const at = bytes.indexOf(0x0a, from);
            const end = at === -1 ? bytes.length : at + 1;
            lines.push(bytes.subarray(from, end));
            from = end;
          }
          const path = join(scratch(), basename(fixture));
          writeFileSync(path, '');
          const ref = await adapter.open(path);
          let cursor: Cursor | undefined = { version: 1, agent: adapter.id, native_id: ref.native_id, sources: {}, sessions: {} };
          const all: SpEvent[] = [];
          const seen = new Set<string>();
          const step = async (from: number, to: number): Promise<SpEvent[]> => {
            const got = await captureRef(adapter, ref, { raw: true, cursor });
            cursor = got.cursor;
            for (const event of got.events) {
              const key = `${event.session}#${event.seq}`;
              expect(seen.has(key), `${fixture}: ${key} emitted twice`).toBe(false);
              seen.add(key);
              const line = event.origin?.native_seq;
              if (event.type !== 'session.start' && typeof line === 'number') {
                expect(line, `${fixture}: event from line ${line} while lines ${from}–${to} were new`).toBeGreaterThanOrEqual(from);
                expect(line).toBeLessThanOrEqual(to);
              }
            }
            all.push(...got.events);
            return got.events;
          };
          for (let i = 0; i < lines.length; i += 1) {
            const line = lines[i];
            if (line.length > 2 && line[line.length - 1] === 0x0a) {
              // Half a line first: nothing of it may come out before its newline is there.
              const half = Math.floor(line.length / 2);
              appendFileSync(path, line.subarray(0, half));
              const early = await step(i + 1, i + 1);
              expect(early.filter((e) => e.origin?.native_seq === i + 1), `${fixture}: line ${i + 1} read before its newline`).toEqual([]);
              appendFileSync(path, line.subarray(half));
            } else {
              appendFileSync(path, line);
            }
            await step(i + 1, i + 1);
          }
          // Compared with a capture of a plain copy: side files (subagents, tasks) stay behind in both.
          const full = await captureAll(adapter, copy(fixture, scratch()), { raw: true });
          expect(all.map(view), fixture).toEqual(full.events.map(view));

          // A truncated file is detected, not mis-read.
          const before = cursor;
          truncateSync(path, Math.max(0, bytes.length - Math.max(2, Math.floor((lines[lines.length - 1]?.length ?? 2) / 2))));
          await expect(captureRef(adapter, ref, { cursor: before }), fixture).rejects.toBeInstanceOf(UserError);
          // So is a rewritten last line of the same length.
          writeFileSync(path, bytes);
          const last = lines.length - 1;
          if (lines[last] && lines[last].length > 4) {
            const changed = Buffer.from(bytes);
            const at = bytes.length - lines[last].length + 1;
            changed[at] = changed[at] === 0x41 ? 0x42 : 0x41;
            writeFileSync(path, changed);
            await expect(captureRef(adapter, ref, { cursor: before }), fixture).rejects.toBeInstanceOf(UserError);
          }
        }
      });
    }

    if (adapter.materialize && options.roundTrip !== false) {
      const roundTrip = options.roundTrip ?? {};
      const fixtures = roundTrip.fixtures ?? options.fixtures;
      const view = roundTrip.view ?? conversationView;
      it('round trip: capture → materialize into a temporary home → capture keeps texts and tool call ids', async () => {
        for (const fixture of fixtures) {
          const first = captured.get(fixture) ?? (await captureAll(adapter, fixture));
          const home = scratch();
          const materializeOptions = roundTrip.options ? roundTrip.options(home, fixture) : { home };
          async function* events(): AsyncGenerator<SpEvent> {
            yield* first.events;
          }
          const result = await adapter.materialize!(events(), materializeOptions);
          expect(result.path.startsWith(home), fixture).toBe(true);
          const second = await captureAll(adapter, result.path);
          expect(view(second.events), fixture).toEqual(view(first.events));
        }
      });
    }
  });
}

/** A copy of a fixture in `dir` (same name, so the native id stays). */
export function copyFixture(fixture: string, dir: string): string {
  const path = join(dir, basename(fixture));
  copyFileSync(fixture, path);
  return path;
}
