// Builds the events of one canonical session in order: seq numbering, the session id, origin.
import { canonicalSessionId, type Actor, type Level, type Origin, type SpEvent } from './event.js';
import { gitOriginOf } from '../capture/git-origin.js';

export interface EmitExtras {
  actor?: Actor;
  level?: Level;
  refs?: string[];
  parent_seq?: number | null;
  derived_from?: number;
  origin?: Partial<Origin>;
}

export class SessionEmitter {
  readonly session: string;
  private next: number;

  constructor(
    readonly agent: string,
    readonly nativeId: string,
    options: { nextSeq?: number; session?: string } = {},
  ) {
    this.session = options.session ?? canonicalSessionId(agent, nativeId);
    this.next = options.nextSeq ?? 0;
  }

  /** The seq the next event will get. */
  get nextSeq(): number {
    return this.next;
  }

  /** A new event with the next seq. `ts` falls back to the previous event's time when the record has none. */
  emit<P extends object>(type: string, payload: P, ts: number, extras: EmitExtras = {}): SpEvent<P> {
    const event: SpEvent<P> = {
      session: this.session,
      seq: this.next++,
      ts,
      agent: this.agent,
      type,
      payload: type === 'session.start' ? withOrigin(payload) : payload,
    };
    if (extras.actor) event.actor = extras.actor;
    if (extras.level !== undefined) event.level = extras.level;
    if (extras.refs && extras.refs.length > 0) event.refs = extras.refs;
    if (extras.parent_seq !== undefined) event.parent_seq = extras.parent_seq;
    if (extras.derived_from !== undefined) event.derived_from = extras.derived_from;
    event.origin = { agent: this.agent, native_id: this.nativeId, ...extras.origin } as Origin;
    return event;
  }
}

/**
 * A session.start payload with the origin URL of its cwd's checkout (lib/capture/git-origin.ts) when the
 * client recorded none and the cwd is a checkout on this machine: what lets `sp resume` find the
 * same repository elsewhere, for every agent.
 */
function withOrigin<P extends object>(payload: P): P {
  const p = payload as Record<string, unknown>;
  if (typeof p.cwd !== 'string' || p.git_origin !== undefined || p.git_remote !== undefined) return payload;
  const origin = gitOriginOf(p.cwd);
  return origin === undefined ? payload : ({ ...payload, git_origin: origin } as P);
}
