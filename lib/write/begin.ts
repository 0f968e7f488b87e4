// The first steps every writer of a linear, one-file-per-session format takes, in one place: pick
// the session (the stream's other sessions are reported, not written), open the loss ledger, and
// settle the home, the cwd and the new session's id (`--same-id` only for the agent's own session,
// and only an id of its native shape, so an id from events never becomes a path of its choosing).
import { resolve } from 'node:path';
import type { MaterializeOptions } from '../adapter/interface.js';
import { UserError } from '../cli/diagnostics.js';
import type { SpEvent } from '../core/event.js';
import { str, type Json } from '../core/json.js';
import { expandTilde } from '../fs/paths.js';
import { SpooledSession } from './spool.js';
import type { Report } from './turns.js';
import { LossLedger, payloadOf, sameNativeId, selectSession, type NativeIdFormat, type SelectedSession } from './writer.js';

/** What a writer says about its agent for these steps. */
export interface WriterTarget {
  agent: string;
  /** How messages name it ("a Cline session's own id"). */
  displayName: string;
  nativeId: NativeIdFormat;
  newSessionId(): string;
  defaultHome(): string;
}

export interface WriteStart {
  selected: SelectedSession;
  /** The session.start payload (empty when the stream has none). */
  source: Json;
  ledger: LossLedger;
  report: Report;
  /** The session was captured from this agent: its own ids, models and encrypted reasoning may be kept. */
  sameAgent: boolean;
  safety: boolean;
  home: string;
  cwd: string;
  sessionId: string;
}

/**
 * The first steps (see the header). `spool`: the session is held on disk (a SpooledSession, read by
 * position), for a writer that streams; the caller removes it (`selected.remove()`) when done.
 */
export async function beginWrite(events: AsyncIterable<SpEvent>, options: MaterializeOptions, target: WriterTarget, spool: { spool: true }): Promise<WriteStart & { selected: SpooledSession }>;
export async function beginWrite(events: AsyncIterable<SpEvent>, options: MaterializeOptions, target: WriterTarget): Promise<WriteStart>;
export async function beginWrite(events: AsyncIterable<SpEvent>, options: MaterializeOptions, target: WriterTarget, spool?: { spool: true }): Promise<WriteStart> {
  const selected = spool ? await SpooledSession.create(events, options.session) : await selectSession(events, options.session);
  try {
    return settle(selected, options, target);
  } catch (err) {
    if (selected instanceof SpooledSession) selected.remove();
    throw err;
  }
}

function settle(selected: SelectedSession, options: MaterializeOptions, target: WriterTarget): WriteStart {
  const start = selected.start;
  const source = start ? payloadOf(start) : {};
  const ledger = new LossLedger(options.onLoss);
  const report: Report = (action, code, reason, event) => ledger.report(action, code, reason, event);
  for (const [id, other] of selected.others) report('dropped', 'child-session', `session ${id}${other.nativeId ? ` (native ${other.nativeId})` : ''}, ${other.count} event(s), is a separate session: not written`);
  const sameAgent = start?.agent === target.agent;

  const home = resolve(expandTilde(options.home ?? target.defaultHome()));
  let cwd = str(options.cwd) ?? str(source.cwd);
  if (!cwd) {
    cwd = process.cwd();
    report('transformed', 'cwd', `the session names no cwd: ${cwd} is recorded (pass --cwd)`);
  }
  // Absolute before anything is named after it: a cwd from events can never climb out through a slug.
  cwd = resolve(expandTilde(cwd));

  let sessionId: string;
  if (options.sameId) {
    if (!sameAgent) throw new UserError(`--same-id keeps a ${target.displayName} session's own id; this session comes from ${start?.agent ?? 'an unknown agent'} (drop --same-id)`);
    sessionId = sameNativeId(target.nativeId, source.native_id);
  } else sessionId = target.newSessionId();
  return { selected, source, ledger, report, sameAgent, safety: options.safety !== false, home, cwd, sessionId };
}
