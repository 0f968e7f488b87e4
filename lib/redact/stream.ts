// sp-redact over a stream: read events, redact (or check, or restore) each one, re-chain, write.
// Memory stays flat: per session only the input's and the output's last checksum are kept.
//
// Chaining: an event that did not change, in a session whose chain nothing has changed yet, is
// written as it came, byte for byte (no re-serialization, no hash). From the first change on, each
// event's checksum is recomputed from the output's previous one. For unchanged lines that costs two
// hashes, not a serialization: when the stored checksum verifies over the line with the checksum
// member cut out, that cut line IS the canonical body, and the new checksum is one more hash over it.
// Other lines are re-serialized; if their content does not match their checksum either, a warning
// names them, since the new checksum would otherwise hide that the input was altered. Earlier damage
// stays visible, because the new chain continues from the stored checksums, not recomputed ones.
import { createHash, hash } from 'node:crypto';
import type { Writable } from 'node:stream';
import { canonicalize } from '../jcs.js';
import { NdjsonWriter, readObjects, type Input } from '../ndjson.js';
import type { SpEvent } from '../event.js';
import { CHECKSUM_PREFIX } from '../chain.js';
import { Detector } from './detector.js';
import type { RedactConfig } from './config.js';
import type { Placeholders } from './keys.js';
import { escapeDepth } from './jsontext.js';
import { detach } from './values.js';
import type { Vault } from './vault.js';
import { Scanner, applyHits, applyReplacements, formatPath, restoreSpans, walkEvent, type Hit } from './walker.js';
import { isMarker, type MarkerPayload } from './ensure.js';

export type Mode = 'redact' | 'check' | 'dry-run' | 'restore';

/** One finding as reported: never the secret, only where it was and which rule found it. */
export interface Location {
  source: string;
  line: number;
  session: string;
  seq: number | null;
  path: string;
  rule: string;
}

export interface Report {
  mode: Mode;
  events: number;
  events_touched: number;
  /** Secrets found (redact, check, dry-run) or put back (restore). */
  findings: number;
  rules: Record<string, number>;
  /** Up to LOCATION_LIMIT findings, in stream order. */
  locations: Location[];
  locations_truncated: boolean;
  /** restore: placeholders the vault has no entry for (left as they are). */
  missing?: number;
  /** redact --vault: placeholders two different secrets mapped to. */
  collisions?: number;
  /** Sessions whose input checksum failed where the output had to be re-chained: the first such seq. */
  unverified?: Array<{ session: string; seq: number | null }>;
}

export const LOCATION_LIMIT = 10_000;

export interface RunOptions {
  mode: Mode;
  inputs: Input[];
  config: RedactConfig;
  out?: Writable;
  placeholders?: Placeholders;
  vault?: Vault;
  /** Called for each finding as it is found (--check prints them). */
  onFinding?: (location: Location) => void;
  /**
   * redact: end each session with this `sp.redacted` marker (seq = its last seq + 1, chained), unless
   * the session already ends with the same marker. restore drops a session's closing marker, since
   * what it writes is no longer redacted.
   */
  marker?: MarkerPayload;
}

/** Where a session's output stands, for the marker that closes it. */
interface SessionEnd {
  lastSeq: number;
  lastTs: number;
  agent: string;
  /** A marker read as the session's latest event, held back until it turns out not to be the last. */
  held?: { event: SpEvent; text: string; bytes: Buffer | undefined; changed: boolean };
}

const sha256 = (text: string) => CHECKSUM_PREFIX + hash('sha256', text, 'hex');

/** The checksum over `previous` and `line` with `line[from, to)` (its checksum member) left out. */
function chainSum(previous: string, line: string | Buffer, from: number, to: number, end = line.length): string {
  return CHECKSUM_PREFIX + createHash('sha256').update(previous).update(line.slice(0, from)).update(line.slice(to, end)).digest('hex');
}

/** What goes out for one event: its bytes as they came, those bytes in pieces, or a new line. */
type Output = { same: true } | { pieces: Buffer[] } | { text: string };
const SAME: Output = { same: true };

/** Re-chains events per session, reusing the input's canonical line where it can (see the top). */
class Rechainer {
  private readonly inTails = new Map<string, string>();
  private readonly outTails = new Map<string, string>();
  /** Sessions whose input did not verify where it had to be re-chained (warned once each). */
  readonly unverified = new Map<string, number | null>();

  /**
   * `bytes` are the input line's bytes, newline included, when they can be passed on as they are
   * (then the hashes run over them, with no string encoding).
   */
  line(event: SpEvent, text: string, bytes: Buffer | undefined, changed: boolean): Output {
    const session = String(event.session);
    const stored = event.checksum;
    const inPrev = this.inTails.get(session) ?? '';
    const outPrev = this.outTails.get(session) ?? '';
    if (typeof stored === 'string') this.inTails.set(session, stored);
    if (!changed && typeof stored === 'string' && outPrev === inPrev) {
      this.outTails.set(session, stored);
      return bytes ? SAME : { text };
    }
    if (!changed && typeof stored === 'string') {
      const member = `"checksum":${JSON.stringify(stored)}`;
      const line: string | Buffer = bytes ?? text;
      const end = bytes ? bytes.length - 1 : text.length; // the body stops before the newline
      const at = line.indexOf(member); // offsets in the line's own units: bytes, or characters
      if (at !== -1) {
        // The member and the comma that joins it to a neighbour.
        let from = at;
        let to = at + member.length;
        const comma = (i: number) => (bytes ? bytes[i] === 0x2c : text[i] === ',');
        if (comma(from - 1)) from--;
        else if (comma(to)) to++;
        if (chainSum(inPrev, line, from, to, end) === stored) {
          const checksum = chainSum(outPrev, line, from, to, end);
          this.outTails.set(session, checksum);
          const replaced = `"checksum":"${checksum}"`;
          if (bytes) return { pieces: [bytes.subarray(0, at), Buffer.from(replaced), bytes.subarray(at + member.length)] };
          return { text: text.slice(0, at) + replaced + text.slice(at + member.length) };
        }
      }
    }
    const { checksum: _old, ...rest } = event;
    const body = canonicalize(rest);
    // A line that is not canonical (from jq, or written by hand) still verifies if its content does;
    // only content that no longer matches its checksum is worth a warning. Changed events cannot be
    // checked here: their input content is gone.
    if (!changed && typeof stored === 'string' && sha256(inPrev + body) !== stored && !this.unverified.has(session)) {
      this.unverified.set(session, typeof event.seq === 'number' ? event.seq : null);
    }
    const checksum = sha256(outPrev + body);
    this.outTails.set(session, checksum);
    return { text: canonicalize({ ...rest, checksum }) };
  }
}

export async function runRedact(options: RunOptions): Promise<Report> {
  const { mode, config } = options;
  const detector = new Detector(config.rules, { values: config.allowValues, regexes: config.allowRegexes });
  const scanner = new Scanner(detector);
  const writer = mode === 'redact' || mode === 'restore' ? new NdjsonWriter(options.out ?? process.stdout) : undefined;
  const rechainer = new Rechainer();
  const report: Report = { mode, events: 0, events_touched: 0, findings: 0, rules: {}, locations: [], locations_truncated: false };
  const missing = { count: 0 };
  const pathAllowed = (path: string) => config.allowPaths.some((re) => re.test(path));
  const marking = (mode === 'redact' && options.marker !== undefined) || mode === 'restore';
  const ends = new Map<string, SessionEnd>();
  const emit = async (event: SpEvent, text: string, bytes: Buffer | undefined, changed: boolean) => {
    const out = rechainer.line(event, text, bytes, changed);
    if ('same' in out) await writer!.writeBytes(bytes!);
    else if ('pieces' in out) for (const piece of out.pieces) await writer!.writeBytes(piece);
    else await writer!.writeLine(out.text);
  };

  // Lines that go out unchanged are copied as bytes; the rest is encoded again.
  const asRead = (bytes: Buffer | undefined, start: number): Buffer | undefined => {
    if (!bytes || bytes.length < 2 || bytes[bytes.length - 1] !== 0x0a || bytes[bytes.length - 2] === 0x0d) return undefined;
    if (start === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return undefined;
    return bytes;
  };

  for await (const { value, line, source } of readObjects<SpEvent>(options.inputs, { strict: true, keepBytes: writer !== undefined })) {
    const event = value;
    report.events++;
    let touched = 0;
    let changed: boolean;
    if (mode === 'restore') {
      changed = walkEvent(event, (text) => {
        const replacements = restoreSpans(text, options.vault!.lookup, missing);
        if (replacements.length === 0) return undefined;
        touched += replacements.length;
        return applyReplacements(text, replacements);
      });
      if (touched > 0) {
        report.events_touched++;
        report.findings += touched;
      }
    } else {
      changed = walkEvent(event, (text, key, segments) => {
        let hits: Hit[] = scanner.scanString(text, key);
        if (hits.length === 0) return undefined;
        const path = formatPath(segments);
        if (config.allowPaths.length > 0) hits = hits.filter((h) => !pathAllowed(h.pointer ? `${path}#${h.pointer}` : path));
        if (hits.length === 0) return undefined;
        touched += hits.length;
        for (const h of hits) {
          report.findings++;
          report.rules[h.rule] = (report.rules[h.rule] ?? 0) + 1;
          const location: Location = {
            source,
            line: line.number,
            session: String(event.session ?? ''),
            seq: typeof event.seq === 'number' ? event.seq : null,
            path: h.pointer ? `${path}#${h.pointer}` : path,
            rule: h.rule,
          };
          if (report.locations.length < LOCATION_LIMIT) report.locations.push({ ...location, session: detach(location.session), path: detach(location.path) });
          else report.locations_truncated = true;
          options.onFinding?.(location);
          if (options.vault && options.placeholders) {
            options.vault.add(options.placeholders.for(h.rule, h.secret), h.secret, h.depth, text.slice(h.start, h.end), escapeDepth(h.secret, h.depth));
          }
        }
        return mode === 'redact' ? applyHits(text, hits, options.placeholders!) : undefined;
      });
      if (touched > 0) report.events_touched++;
    }
    if (writer) {
      const bytes = asRead(line.bytes, line.start);
      if (marking) {
        const session = String(event.session);
        let end = ends.get(session);
        if (!end) ends.set(session, (end = { lastSeq: -1, lastTs: 0, agent: String(event.agent ?? 'sp') }));
        if (end.held) {
          const held = end.held;
          end.held = undefined;
          await emit(held.event, held.text, held.bytes, held.changed);
        }
        if (typeof event.seq === 'number' && event.seq > end.lastSeq) end.lastSeq = event.seq;
        if (typeof event.ts === 'number' && Number.isFinite(event.ts)) end.lastTs = event.ts;
        if (typeof event.agent === 'string') end.agent = event.agent;
        if (isMarker(event)) {
          end.held = { event, text: line.text, bytes: bytes ? Buffer.from(bytes) : undefined, changed };
          continue;
        }
      }
      await emit(event, line.text, bytes, changed);
    }
  }
  if (writer && marking) {
    for (const [session, end] of ends) {
      const held = end.held;
      if (mode === 'restore') continue; // the restored stream is not redacted: its closing marker goes
      if (held) await emit(held.event, held.text, held.bytes, held.changed);
      const marker = options.marker!;
      const same = held && !held.changed && ['ruleset', 'key_id', 'profile'].every((k) => (held.event.payload as Record<string, unknown>)[k] === marker[k as keyof MarkerPayload]);
      if (same) continue;
      const event: SpEvent = { session, seq: end.lastSeq + 1, ts: end.lastTs, agent: end.agent, actor: 'system', type: 'meta', payload: { ...marker } };
      await emit(event, '', undefined, true);
    }
  }
  await writer?.end();
  if (mode === 'restore') report.missing = missing.count;
  if (rechainer.unverified.size > 0) report.unverified = [...rechainer.unverified].map(([session, seq]) => ({ session, seq }));
  if (options.vault && mode === 'redact') report.collisions = options.vault.collisions.length;
  return report;
}

/** The one-line stderr summary. */
export function summarize(report: Report): string {
  const rules = Object.entries(report.rules)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([rule, n]) => `${rule} ${n}`)
    .join(', ');
  const events = `${report.events} event${report.events === 1 ? '' : 's'}`;
  if (report.mode === 'restore') {
    const missing = report.missing ? `; ${report.missing} placeholder${report.missing === 1 ? '' : 's'} not in the vault, left as they are` : '';
    return `restored ${report.findings} secret${report.findings === 1 ? '' : 's'} in ${report.events_touched} of ${events}${missing}`;
  }
  if (report.findings === 0) return `no secrets found in ${events}`;
  const verb = report.mode === 'redact' ? 'redacted' : report.mode === 'check' ? 'found' : 'would redact';
  return `${verb} ${report.findings} secret${report.findings === 1 ? '' : 's'} in ${report.events_touched} of ${events}: ${rules}`;
}
