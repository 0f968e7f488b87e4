// The hash chain (DESIGN §2): checksum = "sha256:" + hex(SHA-256(previous checksum ‖ JCS(event
// without checksum))). Each session has its own chain; the first event of a session chains from
// the empty string, so sessions may be interleaved in one stream.
import { createHash } from 'node:crypto';
import { canonicalize, sortKeysDeep } from './jcs.js';
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
    const previous = this.tails.get(event.session) ?? '';
    const sorted = sortKeysDeep(event) as Record<string, unknown>;
    delete sorted.checksum;
    const checksum = CHECKSUM_PREFIX + createHash('sha256').update(previous).update(canonicalize(sorted)).digest('hex');
    this.tails.set(event.session, checksum);
    const out: Record<string, unknown> = {};
    let placed = false;
    for (const key of Object.keys(sorted)) {
      if (!placed && key > 'checksum') {
        out.checksum = checksum;
        placed = true;
      }
      out[key] = sorted[key];
    }
    if (!placed) out.checksum = checksum;
    return out as T;
  }

  tail(session: string): string | undefined {
    return this.tails.get(session);
  }
}

/** Re-chains a stream after events were changed, inserted or removed. */
export async function* rechain<T extends SpEvent>(events: AsyncIterable<T> | Iterable<T>): AsyncGenerator<T> {
  const chainer = new Chainer();
  for await (const event of events) yield chainer.chain(event);
}
