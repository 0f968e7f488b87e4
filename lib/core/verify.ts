// Stream verification: JSON per line, schema, seq per session (0.., no gap, no duplicate) and the
// hash chain, with the kind of damage told as precisely as the chain allows. State is a few
// strings per session, so memory stays flat however long the stream.
import { hash } from 'node:crypto';
import { chainBody, CHECKSUM_PREFIX } from './chain.js';
import { canonicalLine } from './canonical-line.js';
import type { SpEvent } from './event.js';
import type { SchemaIssue, EventValidator } from './schema.js';
import { excerpt } from '../cli/diagnostics.js';
import type { Line } from './lines.js';

export type DamageKind =
  | 'modified' // content changed after it was chained
  | 'inserted' // a line that does not belong to the chain
  | 'deleted' // seqs missing
  | 'reordered' // lines out of order
  | 'truncated' // the stream ends inside a line
  | 'malformed' // a line that is not a JSON object
  | 'schema' // a valid JSON object that breaks the event schema
  | 'unchained'; // an event without a checksum

export interface Damage {
  kind: DamageKind;
  /** `source:LINE` of the first line concerned. */
  where: string;
  session?: string;
  seq?: number;
  message: string;
}

export interface SessionReport {
  session: string;
  ok: boolean;
  events: number;
  first_seq: number;
  last_seq: number;
  /** The checksum of the last event: what a store or a signature anchors. */
  head?: string;
  /** The first damage found, then how many damaged places in all. */
  damage?: Damage;
  damage_count: number;
}

export interface VerifyReport {
  ok: boolean;
  lines: number;
  events: number;
  sessions: SessionReport[];
  /** Damage that no session can be named for (e.g. a malformed line without a session id). */
  stream_damage: Damage[];
  /**
   * Chained lines not in canonical (JCS) form (e.g. rewritten by jq): hashed after canonicalizing
   * the parsed event, where canonical lines are hashed as they are. Not damage in itself. Absent
   * when every line was canonical.
   */
  non_canonical_lines?: number;
}

export interface VerifyOptions {
  validator?: EventValidator;
  /** Accept sessions that start after seq 0 (an incremental capture); their first link is not checked. */
  allowFragment?: boolean;
}

interface Pending {
  kind: 'gap' | 'badlink';
  where: string;
  seq: number;
  /** gap: the seq that was expected. */
  expected?: number;
  /** The stored checksum before the line, and the line's own. */
  before?: string;
  stored?: string;
  /** gap: the early line's canonical body, to tell a swap from an insertion. */
  body?: string;
}

interface SessionState {
  report: SessionReport;
  expect: number;
  /** Stored checksum of the last line accepted into the chain ('' before the first). */
  tail: string;
  pending?: Pending;
}

// One-shot hash over the concatenation: a Hash object and three calls per line cost more.
const sha256 = (previous: string, body: string) => CHECKSUM_PREFIX + hash('sha256', previous + body, 'hex');

export class Verifier {
  private readonly sessions = new Map<string, SessionState>();
  private readonly streamDamage: Damage[] = [];
  private lines = 0;
  private events = 0;
  private nonCanonical = 0;
  /** The session of the last event seen: a torn last line most likely belongs to it. */
  private lastSession?: string;

  constructor(private readonly options: VerifyOptions = {}) {}

  /** A line that is not a JSON object. */
  badLine(source: string, line: Line, reason: string): void {
    this.lines += 1;
    const where = `${source}:${line.number}`;
    // Lines are written with sorted keys, so a torn line has usually lost its "session" field.
    const named = /"session"\s*:\s*"([^"\\]{1,256})"/.exec(line.text)?.[1];
    const session = named ?? (line.terminated ? undefined : this.lastSession);
    const seqMatch = /"seq"\s*:\s*(\d+)/.exec(line.text);
    const damage: Damage = line.terminated
      ? { kind: 'malformed', where, message: `${reason}: ${excerpt(line.text)}` }
      : {
          kind: 'truncated',
          where,
          message: `the stream ends inside a line (no newline, not valid JSON)${named ? '' : '; it follows this session\'s last event'}: ${excerpt(line.text)}`,
        };
    if (seqMatch) damage.seq = Number(seqMatch[1]);
    if (session) {
      damage.session = session;
      this.record(this.state(session, damage.seq ?? 0), damage);
    } else {
      this.streamDamage.push(damage);
    }
  }

  push(source: string, line: Line, value: Record<string, unknown>): void {
    this.lines += 1;
    const where = `${source}:${line.number}`;
    const issues: SchemaIssue[] = this.options.validator ? this.options.validator.validate(value) : [];
    const event = value as unknown as SpEvent;
    const placeable = typeof event.session === 'string' && Number.isInteger(event.seq) && event.seq >= 0;
    if (!placeable) {
      this.streamDamage.push({ kind: 'schema', where, message: describeIssues(issues, 'event has no usable session/seq') });
      return;
    }
    this.events += 1;
    this.lastSession = event.session;
    const st = this.state(event.session, event.seq);
    const r = st.report;
    r.events += 1;
    r.last_seq = Math.max(r.last_seq, event.seq);
    if (issues.length > 0) this.record(st, { kind: 'schema', where, session: event.session, seq: event.seq, message: describeIssues(issues) });

    const stored = typeof event.checksum === 'string' ? event.checksum : undefined;
    if (!stored) {
      this.record(st, { kind: 'unchained', where, session: event.session, seq: event.seq, message: 'event has no checksum (the stream was not chained)' });
      st.expect = Math.max(st.expect, event.seq + 1);
      return;
    }
    // A line sp wrote is canonical: its chain body is its own text without the checksum member.
    let body = canonicalLine(line.text)?.body;
    if (body === undefined) {
      this.nonCanonical += 1;
      body = chainBody(event);
    }
    const s = event.seq;

    if (st.pending && this.resolve(st, event, stored, body)) return;

    if (s === st.expect) {
      const linked = st.tail === '' && s > 0 && this.options.allowFragment ? true : sha256(st.tail, body) === stored;
      if (!linked) st.pending = { kind: 'badlink', where, seq: s, before: st.tail, stored };
      st.tail = stored;
      st.expect = s + 1;
      r.head = stored;
    } else if (s > st.expect) {
      st.pending = { kind: 'gap', where, seq: s, expected: st.expect, before: st.tail, stored, body };
      st.tail = stored;
      st.expect = s + 1;
      r.head = stored;
    } else {
      this.record(st, {
        kind: 'inserted',
        where,
        session: event.session,
        seq: s,
        message: `seq ${s} again (expected seq ${st.expect}): a duplicated or inserted line`,
      });
    }
  }

  /**
   * Decides what the pending anomaly was, now that the next line of its session is here.
   * Returns true when that line was consumed in the decision (it needs no further checks).
   */
  private resolve(st: SessionState, event: SpEvent, stored: string, body: string): boolean {
    const p = st.pending!;
    const r = st.report;
    const s = event.seq;
    st.pending = undefined;
    if (p.kind === 'gap') {
      if (s !== p.expected) {
        this.record(st, deleted(p, r.session));
        return false;
      }
      if (sha256(stored, p.body!) === p.stored) {
        // The missing seq arrives late and the early line links to it: the two were swapped.
        this.record(st, { kind: 'reordered', where: p.where, session: r.session, seq: p.seq, message: `seq ${p.seq} comes before seq ${s}` });
        st.tail = p.stored!;
        st.expect = p.seq + 1;
        r.head = p.stored;
        return true;
      }
      // The early line belongs nowhere: it was inserted. Go on as if it were not there.
      this.record(st, { kind: 'inserted', where: p.where, session: r.session, seq: p.seq, message: `a line that is not part of the chain stands before seq ${s}` });
      st.tail = p.before!;
      st.expect = p.expected!;
      return false;
    }
    if (s === p.seq && sha256(p.before!, body) === stored) {
      // The original line follows the impostor and links to what came before it.
      this.record(st, { kind: 'inserted', where: p.where, session: r.session, seq: p.seq, message: `a line that is not part of the chain stands before seq ${s}` });
      st.tail = stored;
      st.expect = s + 1;
      r.head = stored;
      return true;
    }
    this.record(st, {
      kind: 'modified',
      where: p.where,
      session: r.session,
      seq: p.seq,
      message:
        sha256(p.stored!, body) === stored
          ? `seq ${p.seq} no longer matches its checksum: it was changed after it was chained${p.seq > 0 ? ` (or seq ${p.seq - 1} was changed and re-hashed)` : ''}`
          : `seq ${p.seq} does not link to its predecessor: it was changed and re-hashed, or the line before it was replaced`,
    });
    return false;
  }

  finish(): VerifyReport {
    for (const st of this.sessions.values()) {
      const p = st.pending;
      if (!p) continue;
      st.pending = undefined;
      this.record(
        st,
        p.kind === 'gap'
          ? deleted(p, st.report.session)
          : {
              kind: 'modified',
              where: p.where,
              session: st.report.session,
              seq: p.seq,
              message: `seq ${p.seq} does not match its checksum or does not link to its predecessor (the last event: changed, or appended by hand)`,
            },
      );
    }
    const sessions = [...this.sessions.values()].map((st) => st.report);
    return {
      ok: this.streamDamage.length === 0 && sessions.every((s) => s.ok),
      lines: this.lines,
      events: this.events,
      sessions,
      stream_damage: this.streamDamage,
      // Only when there are some: the report of a stream sp wrote stays as it was.
      ...(this.nonCanonical > 0 ? { non_canonical_lines: this.nonCanonical } : {}),
    };
  }

  private state(session: string, seq: number): SessionState {
    let st = this.sessions.get(session);
    if (!st) {
      st = {
        report: { session, ok: true, events: 0, first_seq: seq, last_seq: seq, damage_count: 0 },
        expect: this.options.allowFragment ? seq : 0,
        tail: '',
      };
      // Without --allow-fragment a session that starts after seq 0 shows as a gap: deleted at the head.
      this.sessions.set(session, st);
    }
    return st;
  }

  private record(st: SessionState, damage: Damage): void {
    st.report.ok = false;
    st.report.damage_count += 1;
    st.report.damage ??= damage;
  }
}

function deleted(p: Pending, session: string): Damage {
  const missing = p.seq - p.expected!;
  const which = missing === 1 ? `seq ${p.expected} is` : `seqs ${p.expected}–${p.seq - 1} are`;
  return { kind: 'deleted', where: p.where, session, seq: p.seq, message: `${which} missing before seq ${p.seq}` };
}

function describeIssues(issues: SchemaIssue[], fallback = 'does not match the event schema'): string {
  if (issues.length === 0) return fallback;
  return issues.map((i) => `${i.path} ${i.message}`).join('; ');
}

/** The human report: one line per session, failures first. */
export function formatReport(report: VerifyReport): string {
  const out: string[] = [];
  for (const d of report.stream_damage) out.push(`${d.where}: ${d.kind}: ${d.message}`);
  const sorted = [...report.sessions].sort((a, b) => Number(a.ok) - Number(b.ok));
  for (const s of sorted) {
    const range = `${s.events} event${s.events === 1 ? '' : 's'}, seq ${s.first_seq}–${s.last_seq}`;
    if (s.ok) out.push(`ok      ${s.session} (${range}, head ${s.head})`);
    else {
      const d = s.damage!;
      const more = s.damage_count > 1 ? ` (+${s.damage_count - 1} more)` : '';
      out.push(`FAILED  ${s.session} (${range}): ${d.kind} at ${d.where}${d.seq !== undefined ? ` seq ${d.seq}` : ''}: ${d.message}${more}`);
    }
  }
  const failed = report.sessions.filter((s) => !s.ok).length;
  out.push(
    `${report.sessions.length} session${report.sessions.length === 1 ? '' : 's'}, ${report.events} events: ` +
      (report.events === 0 && report.ok ? 'nothing to verify' : report.ok ? 'verified' : `${failed} failed${report.stream_damage.length ? `, ${report.stream_damage.length} damaged line(s) outside any session` : ''}`) +
      (report.non_canonical_lines ? `; ${report.non_canonical_lines} line${report.non_canonical_lines === 1 ? '' : 's'} not in canonical form (hashed after canonicalizing)` : ''),
  );
  return out.join('\n') + '\n';
}
