// The hash chain (docs/design.md §2): checksum = "sha256:" + hex(SHA-256(previous checksum ‖ JCS(event
// without checksum))). Each session has its own chain; the first event of a session chains from
// the empty string, so sessions may be interleaved in one stream.
import { createHash, hash } from 'node:crypto';
import { canonicalize, sortKeysDeepPlain } from './jcs.js';
import { setMember } from './json.js';
import type { SpEvent } from './event.js';

export const CHECKSUM_PREFIX = 'sha256:';
export const CHECKSUM_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** The canonical text an event's checksum covers: the event without its `checksum`. */
export function chainBody(event: SpEvent): string {
  if (!('checksum' in event)) return canonicalize(event);
  const { checksum: _omit, ...rest } = event;
  return canonicalize(rest);
}

export function computeChecksum(previous: string, event: SpEvent): string {
  return CHECKSUM_PREFIX + createHash('sha256').update(previous).update(chainBody(event)).digest('hex');
}

/**
 * Sets `checksum` on events as they pass, per session. Keep one Chainer for a whole stream; call
 * `seed` to continue an existing chain (e.g. a stored session's tail).
 */
export class Chainer {
  private readonly tails = new Map<string, string>();

  seed(session: string, checksum: string): void {
    this.tails.set(session, checksum);
  }

  /**
   * Returns a copy of the event with its keys in canonical (JCS) order at every depth and the
   * chained `checksum` in its sorted place, so both the checksum body and the output line are
   * plain JSON.stringify — the canonicalizer's fast path — with no second sort.
   */
  chain<T extends SpEvent>(event: T): T {
    const { sorted, checksum } = this.link(event);
    return withChecksum(sorted, checksum) as T;
  }

  /**
   * `chain(event)` and `JSON.stringify` of it, the line serialized once: when the event is plain
   * JSON its line is the checksum body with the member spliced in (as chainLine), not a second
   * stringify of the whole copy.
   */
  chainWithLine<T extends SpEvent>(event: T): { event: T; line: string } {
    const { sorted, body, checksum, plain } = this.link(event);
    const chained = withChecksum(sorted, checksum) as T;
    return { event: chained, line: spliceChecksum(sorted, body, checksum) };
  }

  /**
   * The chained event as its canonical NDJSON line (no newline): the same text as
   * `canonicalize(chain(event))`, but serialized once. The line is the checksum body with the
   * checksum member spliced in at its sorted place, instead of a second stringify of a copy.
   */
  chainLine(event: SpEvent): string {
    const { sorted, body, checksum } = this.link(event);
    return spliceChecksum(sorted, body, checksum);
  }

  /** Sorts the event, computes its checksum from the session's tail and moves the tail on. */
  private link(event: SpEvent): { sorted: Record<string, unknown>; body: string; checksum: string; plain: boolean } {
    const previous = this.tails.get(event.session) ?? '';
    const { copy, plain } = sortKeysDeepPlain(event);
    const sorted = copy as unknown as Record<string, unknown>;
    delete sorted.checksum;
    const body = plain ? JSON.stringify(sorted) : canonicalize(sorted);
    // One-shot hash: a Hash object and three calls per event cost more than concatenating the tail.
    const checksum = CHECKSUM_PREFIX + hash('sha256', previous + body, 'hex');
    this.tails.set(event.session, checksum);
    return { sorted, body, checksum, plain };
  }

  tail(session: string): string | undefined {
    return this.tails.get(session);
  }
}

/** A copy of `sorted` (keys in JCS order) with `checksum` in its sorted place. */
function withChecksum(sorted: Record<string, unknown>, checksum: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let placed = false;
  for (const key of Object.keys(sorted)) {
    if (!placed && key > 'checksum') {
      out.checksum = checksum;
      placed = true;
    }
    setMember(out, key, sorted[key]);
  }
  if (!placed) out.checksum = checksum;
  return out;
}

/**
 * The line of `sorted` with its checksum: `body` (the canonical text of `sorted`) with the member
 * spliced in at its sorted place. The members that sort before "checksum" (actor, agent …) are
 * short: their text is the prefix.
 */
function spliceChecksum(sorted: Record<string, unknown>, body: string, checksum: string): string {
  const member = `"checksum":${JSON.stringify(checksum)}`;
  const before: Record<string, unknown> = {};
  let any = false;
  for (const key of Object.keys(sorted)) {
    if (key > 'checksum') break;
    setMember(before, key, sorted[key]);
    any = true;
  }
  if (!any) return body.length === 2 ? `{${member}}` : `{${member},${body.slice(1)}`;
  const end = canonicalize(before).length - 1; // where the prefix members end inside the body
  return `${body.slice(0, end)},${member}${body.slice(end)}`;
}

/** Re-chains a stream after events were changed, inserted or removed. */
export async function* rechain<T extends SpEvent>(events: AsyncIterable<T> | Iterable<T>): AsyncGenerator<T> {
  const chainer = new Chainer();
  for await (const event of events) yield chainer.chain(event);
}
