// The session a writer writes, chosen once: a stream may hold several (subagents, a relay of many),
// and the writer writes the one `--session` names (canonical or native id), else the session of the
// first session.start. SessionPicker decides event by event (a streaming writer keeps no events);
// selectSession reads a whole stream for the writers that plan in memory; a SessionSpool
// (spool.ts) carries a picker too, so a spooled stream is selected the same way without a second read.
import { UserError } from '../cli/diagnostics.js';
import type { SpEvent } from '../core/event.js';
import { isObject, str } from '../core/json.js';

/** The native session id a session.start names. */
export function nativeIdOf(start: SpEvent | undefined): string | undefined {
  return start && isObject(start.payload) ? str(start.payload.native_id) : undefined;
}

/**
 * Picks the session to write from a stream that may hold several, fed event by event (a streaming
 * writer keeps no events): the first session `selector` names (by canonical id, or by the native id
 * its session.start names), else the session of the first session.start (a stream may open with
 * events of another session), else the first session.
 */
export class SessionPicker {
  /** Canonical session ids in the order they first appear. */
  readonly order: string[] = [];
  private readonly known = new Set<string>();
  private readonly starts = new Map<string, SpEvent>();
  private firstStart: string | undefined;

  /** Notes an event; returns its session. */
  add(event: SpEvent): string {
    const session = String(event.session ?? '');
    if (!this.known.has(session)) {
      this.known.add(session);
      this.order.push(session);
    }
    if (event.type === 'session.start' && !this.starts.has(session)) {
      this.starts.set(session, event);
      this.firstStart ??= session;
    }
    return session;
  }

  /** A session's (first) session.start. */
  startOf(session: string): SpEvent | undefined {
    return this.starts.get(session);
  }

  pick(selector?: string): string {
    if (this.order.length === 0) throw new UserError('no events in the input');
    if (selector === undefined) return this.firstStart ?? this.order[0];
    const session = this.order.find((id) => id === selector || nativeIdOf(this.starts.get(id)) === selector);
    if (session === undefined) throw new UserError(`no session ${selector} in the input (give a canonical or native session id)`);
    return session;
  }
}

export interface SelectedSession {
  start?: SpEvent;
  /** The session's events in seq order. */
  events: SpEvent[];
  session: string;
  /** Other sessions in the stream (subagents …): canonical id → event count and native id. */
  others: Map<string, { count: number; nativeId?: string }>;
}

/** Reads a whole stream and picks the session to write (see SessionPicker). */
export async function selectSession(events: AsyncIterable<SpEvent>, selector?: string): Promise<SelectedSession> {
  const picker = new SessionPicker();
  const bySession = new Map<string, SpEvent[]>();
  for await (const event of events) {
    const session = picker.add(event);
    let list = bySession.get(session);
    if (!list) bySession.set(session, (list = []));
    list.push(event);
  }
  const session = picker.pick(selector);
  // Seq order is the stream's order; a stable sort only repairs streams that were interleaved.
  const list = bySession.get(session)!;
  const ordered = list.every((e) => typeof e.seq === 'number') ? [...list].sort((a, b) => a.seq - b.seq) : list;
  const others = new Map<string, { count: number; nativeId?: string }>();
  for (const [id, evs] of bySession) {
    if (id !== session) others.set(id, { count: evs.length, nativeId: nativeIdOf(picker.startOf(id)) });
  }
  return { start: picker.startOf(session), events: ordered, session, others };
}

