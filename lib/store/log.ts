// A stored session's files: events.jsonl (append-only, hash-chained, the only source of truth),
// events.jsonl.ckpt (an anchor every 512 events: seq, byte offset just past that line, and its
// checksum, so a reader or verifier can start in the middle), and manifest.json.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { computeChecksum } from '../core/chain.js';
import type { SpEvent } from '../core/event.js';
import { parseJsonObject } from '../core/json.js';

export const LOG_FILE = 'events.jsonl';
export const ANCHOR_FILE = 'events.jsonl.ckpt';
export const MANIFEST_FILE = 'manifest.json';
export const ANCHOR_EVERY = 512;

export interface Anchor {
  /** The seq of the anchored event: every ANCHOR_EVERY-th (511, 1023, …). */
  seq: number;
  /** Byte offset just past that event's line. */
  offset: number;
  /** Its checksum: the chain head after it. */
  head: string;
}

export interface ChainPoint {
  /** Byte offset where reading starts (a line start). */
  offset: number;
  /** The seq expected there. */
  seq: number;
  /** The checksum of the event before it ('' at the start). */
  head: string;
}

export interface LogDamage {
  offset: number;
  seq: number;
  reason: string;
  /** Whether the damaged line is the file's last (a torn append, repairable by cutting it off). */
  last: boolean;
}

export interface LogScan {
  /** Where the valid chain ends. */
  end: ChainPoint;
  /** Events read validly in this scan. */
  events: number;
  damage?: LogDamage;
}

/** Lines of a file from a byte offset, read synchronously in 1 MB chunks (the store's writers are synchronous). */
export function* fileLinesSync(path: string, start: number): Generator<{ text: string; start: number; end: number; terminated: boolean }> {
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    let carry: Buffer = Buffer.alloc(0);
    let carryStart = start;
    let position = start;
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, position);
      if (n === 0) break;
      position += n;
      const buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
      let from = 0;
      for (;;) {
        const at = buf.indexOf(0x0a, from);
        if (at === -1) break;
        yield { text: buf.toString('utf8', from, at), start: carryStart + from, end: carryStart + at + 1, terminated: true };
        from = at + 1;
      }
      carry = Buffer.from(buf.subarray(from));
      carryStart += from;
    }
    if (carry.length > 0) yield { text: carry.toString('utf8'), start: carryStart, end: carryStart + carry.length, terminated: false };
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a log from `from`, checking seq and the chain line by line, and stops at the first line
 * that is torn, not JSON, out of sequence or off the chain. `onEvent` sees every valid event.
 */
export function scanLog(path: string, from: ChainPoint, onEvent?: (event: SpEvent, end: number) => void): LogScan {
  const end: ChainPoint = { ...from };
  let events = 0;
  let damage: LogDamage | undefined;
  if (!existsSync(path)) return { end, events };
  for (const line of fileLinesSync(path, from.offset)) {
    if (damage) {
      damage.last = false;
      break;
    }
    const fail = (reason: string) => (damage = { offset: line.start, seq: end.seq, reason, last: true });
    if (!line.terminated) {
      fail('the last line is torn (no newline)');
      continue;
    }
    const parsed = parseJsonObject(line.text);
    if (!parsed.value) {
      fail(parsed.reason!);
      continue;
    }
    const event = parsed.value as unknown as SpEvent;
    if (event.seq !== end.seq) {
      fail(`seq ${String(event.seq)} where seq ${end.seq} belongs`);
      continue;
    }
    if (typeof event.checksum !== 'string' || computeChecksum(end.head, event) !== event.checksum) {
      fail(`seq ${end.seq} does not match its checksum or does not link to the event before it`);
      continue;
    }
    onEvent?.(event, line.end);
    end.offset = line.end;
    end.seq += 1;
    end.head = event.checksum;
    events += 1;
  }
  return { end, events, damage };
}

export function readAnchors(dir: string): Anchor[] {
  const path = join(dir, ANCHOR_FILE);
  if (!existsSync(path)) return [];
  const out: Anchor[] = [];
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    const v = parseJsonObject(text).value;
    if (v && Number.isInteger(v.seq) && Number.isInteger(v.offset) && typeof v.head === 'string') out.push({ seq: v.seq as number, offset: v.offset as number, head: v.head });
  }
  return out;
}

/** Appends bytes to a file and fsyncs it before returning: the bytes are durable when this returns. */
export function appendDurably(path: string, bytes: Buffer): void {
  const fd = openSync(path, 'a', 0o600); // private: the store lives under $SP_HOME
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function anchorLines(anchors: Anchor[]): Buffer {
  return Buffer.from(anchors.map((a) => JSON.stringify({ head: a.head, offset: a.offset, seq: a.seq }) + '\n').join(''));
}

/** The latest anchor at or before `seq` (a starting point for reading from `seq`). */
export function startPointFor(anchors: Anchor[], seq: number): ChainPoint {
  let best: ChainPoint = { offset: 0, seq: 0, head: '' };
  for (const a of anchors) if (a.seq < seq) best = { offset: a.offset, seq: a.seq + 1, head: a.head };
  return best;
}
