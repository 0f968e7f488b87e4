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
import { canonicalize } from '../core/jcs.js';
import { NdjsonWriter, readObjects, type Input } from '../core/ndjson.js';
import type { SpEvent } from '../core/event.js';
import { CHECKSUM_PREFIX } from '../core/chain.js';
import { Detector } from './detector.js';
import type { RedactConfig } from './config.js';
import type { Placeholders } from './keys.js';
import { escapeDepth, isJsonContainer } from './jsontext.js';
import { genericCandidates } from './generic.js';
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
  /** Called for each finding as it is found (--check and --review print them). */
  onFinding?: (location: Location, detail: FindingDetail) => void;
  /** --review: called for each generic-rule candidate kept because its entropy is below the threshold. */
  onKept?: (location: Location, detail: KeptDetail) => void;
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

export interface FindingDetail {
  /** At most 4 characters of the secret and `…`. */
  prefix: string;
  /** What replaces it (a placeholder needs the key: undefined without one). */
  placeholder?: string;
}

export interface KeptDetail {
  prefix: string;
  /** Bits per character. */
  entropy: number;
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

/** Characters of each side of two adjacent events' strings scanned together for a secret split between them. */
export const CARRY_WINDOW = 256;

/** A string visited in an event: where it is, what it was, and what it became. */
interface Visited {
  segments: Segment[];
  key: string | undefined;
  original: string;
  /** Spans of the original that were replaced (a split secret must not overlap them). */
  hits: Hit[];
}

type Segment = string | number;

function setAt(event: Record<string, unknown>, segments: readonly Segment[], value: string): void {
  let at: unknown = event;
  for (let i = 0; i < segments.length - 1; i++) at = (at as Record<string | number, unknown>)[segments[i]];
  (at as Record<string | number, unknown>)[segments[segments.length - 1]] = value;
}

function getAt(event: Record<string, unknown>, segments: readonly Segment[]): unknown {
  let at: unknown = event;
  for (const s of segments) at = (at as Record<string | number, unknown> | undefined)?.[s];
  return at;
}

const STREAM_IDS = ['call_id', 'message_id', 'id'] as const;

/**
 * Two events are parts of one message stream when they are of one session and type and name the
 * same call or message (or neither names one, as text deltas): two tool results of different calls
 * are not, and a value that ends one is not continued by the start of the other.
 */
function sameStream(a: SpEvent, b: SpEvent): boolean {
  if (a.session !== b.session || a.type !== b.type) return false;
  const pa = a.payload as Record<string, unknown> | undefined;
  const pb = b.payload as Record<string, unknown> | undefined;
  return STREAM_IDS.every((k) => pa?.[k] === pb?.[k]);
}

export async function runRedact(options: RunOptions): Promise<Report> {
  const run = new RedactRun(options);
  for await (const { value, line, source } of readObjects<SpEvent>(options.inputs, { strict: true, keepBytes: run.writer !== undefined })) {
    await run.take(value, line, source);
  }
  return run.finish();
}

/** The previous event, held back one step so a secret split between it and the next can be found. */
interface Pending {
  event: SpEvent;
  text: string;
  bytes: Buffer | undefined;
  changed: boolean;
  touched: boolean;
  source: string;
  line: number;
  /** The strings of the typed fields (not origin.raw: whole native lines, never a fragment). */
  visited: Visited[];
}

/** The line as read by readObjects: its text, bytes (when kept), number and offset. */
interface ReadLine {
  text: string;
  number: number;
  start: number;
  bytes?: Buffer;
}

/** One sp-redact run over a stream: the state runRedact keeps between events. */
class RedactRun {
  readonly writer: NdjsonWriter | undefined;
  private readonly detector: Detector;
  private readonly scanner: Scanner;
  private readonly rechainer = new Rechainer();
  private readonly report: Report;
  private readonly missing = { count: 0 };
  private readonly marking: boolean;
  private readonly ends = new Map<string, SessionEnd>();
  private readonly priorityOf: Map<string, number>;
  private pending: Pending | undefined;

  constructor(private readonly options: RunOptions) {
    const { mode, config } = options;
    this.detector = new Detector(config.rules, { values: config.allowValues, regexes: config.allowRegexes });
    this.scanner = new Scanner(this.detector);
    this.writer = mode === 'redact' || mode === 'restore' ? new NdjsonWriter(options.out ?? process.stdout) : undefined;
    this.report = { mode, events: 0, events_touched: 0, findings: 0, rules: {}, locations: [], locations_truncated: false };
    this.marking = (mode === 'redact' && options.marker !== undefined) || mode === 'restore';
    this.priorityOf = new Map(config.rules.map((r) => [r.id, r.priority]));
  }

  private pathAllowed(path: string): boolean {
    return this.options.config.allowPaths.some((re) => re.test(path));
  }

  private async emit(event: SpEvent, text: string, bytes: Buffer | undefined, changed: boolean): Promise<void> {
    const out = this.rechainer.line(event, text, bytes, changed);
    if ('same' in out) await this.writer!.writeBytes(bytes!);
    else if ('pieces' in out) for (const piece of out.pieces) await this.writer!.writeBytes(piece);
    else await this.writer!.writeLine(out.text);
  }

  private record(event: SpEvent, source: string, lineNumber: number, path: string, hit: Hit): void {
    const report = this.report;
    report.findings++;
    report.rules[hit.rule] = (report.rules[hit.rule] ?? 0) + 1;
    const location: Location = {
      source,
      line: lineNumber,
      session: String(event.session ?? ''),
      seq: typeof event.seq === 'number' ? event.seq : null,
      path: hit.pointer ? `${path}#${hit.pointer}` : path,
      rule: hit.rule,
    };
    if (report.locations.length < LOCATION_LIMIT) report.locations.push({ ...location, session: detach(location.session), path: detach(location.path) });
    else report.locations_truncated = true;
    this.options.onFinding?.(location, { prefix: prefixOf(hit.secret), placeholder: hit.replacement ?? this.options.placeholders?.for(hit.rule, hit.secret) });
  }

  private keep(hit: Hit, text: string): void {
    const { vault, placeholders } = this.options;
    if (vault && placeholders && hit.replacement === undefined) {
      vault.add(placeholders.for(hit.rule, hit.secret), hit.secret, hit.depth, text.slice(hit.start, hit.end), escapeDepth(hit.secret, hit.depth));
    }
  }

  /** Reads, scans and (in redact mode) rewrites one event, then writes the one held back before it. */
  async take(event: SpEvent, line: ReadLine, source: string): Promise<void> {
    this.report.events++;
    const { changed, touched, visited } = this.options.mode === 'restore' ? this.restoreEvent(event) : this.scanEvent(event, line.number, source);
    const bytes = this.writer ? asRead(line.bytes, line.start) : undefined;
    const current: Pending = { event, text: line.text, bytes, changed, touched: this.options.mode !== 'restore' && touched > 0, source, line: line.number, visited };
    const pending = this.pending;
    if (pending && this.options.mode !== 'restore' && visited.length > 0 && sameStream(pending.event, event)) this.splitSecrets(pending, current);
    await this.flush();
    // Held one line: its bytes are a view of a chunk the read stream handed over (Node allocates
    // each read's buffer afresh and never reuses one it has pushed), so they stay valid uncopied.
    this.pending = current;
  }

  private restoreEvent(event: SpEvent): { changed: boolean; touched: number; visited: Visited[] } {
    let touched = 0;
    const restore = (text: string) => {
      const replacements = restoreSpans(text, this.options.vault!.lookup, this.missing);
      if (replacements.length === 0) return undefined;
      touched += replacements.length;
      return applyReplacements(text, replacements);
    };
    const changed = walkEvent(event, restore, { structural: true, visitKey: restore });
    if (touched > 0) {
      this.report.events_touched++;
      this.report.findings += touched;
    }
    return { changed, touched, visited: [] };
  }

  private scanEvent(event: SpEvent, lineNumber: number, source: string): { changed: boolean; touched: number; visited: Visited[] } {
    const { mode, config, placeholders, onKept } = this.options;
    const scanner = this.scanner;
    let touched = 0;
    const visited: Visited[] = [];
    const visit = (text: string, key: string | undefined, segments: readonly Segment[], structural?: boolean): string | undefined => {
      let hits: Hit[] = structural ? scanner.scanTokens(text) : scanner.scanString(text, key);
      const seen: Visited | undefined = structural || segments[0] === 'origin' ? undefined : { segments: segments.slice(), key, original: text, hits };
      if (seen) visited.push(seen);
      if (onKept && !structural) {
        for (const c of genericCandidates(text)) {
          if (!c.secret) onKept({ source, line: lineNumber, session: String(event.session ?? ''), seq: typeof event.seq === 'number' ? event.seq : null, path: formatPath(segments), rule: 'generic-secret' }, { prefix: prefixOf(text.slice(c.start, c.end)), entropy: c.entropy });
        }
      }
      if (hits.length === 0) return undefined;
      const path = formatPath(segments);
      if (config.allowPaths.length > 0) hits = hits.filter((h) => !this.pathAllowed(h.pointer ? `${path}#${h.pointer}` : path));
      if (hits.length === 0) return undefined;
      if (seen) seen.hits = hits;
      touched += hits.length;
      for (const h of hits) {
        this.record(event, source, lineNumber, path, h);
        this.keep(h, text);
      }
      return mode === 'redact' ? applyHits(text, hits, placeholders!) : undefined;
    };
    const visitKey = (name: string, segments: readonly Segment[]): string | undefined => {
      const hits = scanner.scanName(name);
      if (hits.length === 0) return undefined;
      const path = `${formatPath(segments)}{${name.length > 8 ? '…' : name}}`; // the name itself is the secret: not in the path
      touched += hits.length;
      for (const h of hits) {
        this.record(event, source, lineNumber, path, h);
        this.keep(h, name);
      }
      return mode === 'redact' ? applyHits(name, hits, placeholders!) : undefined;
    };
    const changed = walkEvent(event, visit, { structural: true, visitKey });
    return { changed, touched, visited };
  }

  /** Writes the event held back, holding a session's `sp.redacted` marker until it proves not to be its last event. */
  private async flush(): Promise<void> {
    if (!this.pending) return;
    const p = this.pending;
    this.pending = undefined;
    if (p.touched) this.report.events_touched++;
    if (!this.writer) return;
    if (this.marking) {
      const event = p.event;
      const session = String(event.session);
      let end = this.ends.get(session);
      if (!end) this.ends.set(session, (end = { lastSeq: -1, lastTs: 0, agent: String(event.agent ?? 'sp') }));
      if (end.held) {
        const held = end.held;
        end.held = undefined;
        await this.emit(held.event, held.text, held.bytes, held.changed);
      }
      if (typeof event.seq === 'number' && event.seq > end.lastSeq) end.lastSeq = event.seq;
      if (typeof event.ts === 'number' && Number.isFinite(event.ts)) end.lastTs = event.ts;
      if (typeof event.agent === 'string') end.agent = event.agent;
      if (isMarker(event)) {
        end.held = { event, text: p.text, bytes: p.bytes ? Buffer.from(p.bytes) : undefined, changed: p.changed };
        return;
      }
    }
    await this.emit(p.event, p.text, p.bytes, p.changed);
  }

  /**
   * A secret split between the previous event and this one of the same stream (streamed text
   * deltas, a tool call's arguments in two parts) is found by scanning the end of one with the start
   * of the other, and both parts are replaced.
   */
  private splitSecrets(prev: Pending, cur: Pending): void {
    const before = new Map(prev.visited.map((v) => [pathKey(v.segments), v]));
    for (const b of cur.visited) {
      const a = before.get(pathKey(b.segments));
      if (!a || a.original.length === 0 || b.original.length === 0) continue;
      this.splitSecretsOf(prev, cur, a, b);
    }
  }

  private splitSecretsOf(prev: Pending, cur: Pending, a: Visited, b: Visited): void {
    const { mode, config, placeholders } = this.options;
    const tail = a.original.slice(-CARRY_WINDOW);
    const head = b.original.slice(0, CARRY_WINDOW);
    const joined = tail + head;
    if (this.detector.triggered(joined).length === 0) return;
    if (isJsonContainer(a.original) || isJsonContainer(b.original)) return;
    const boundary = tail.length;
    const tailStart = a.original.length - tail.length;
    for (const h of this.scanner.scanString(joined, b.key)) {
      // Across the boundary, or starting right at it after a name in the first part (`DB_PASSWORD=` | `Tr0ub…`).
      if (!(h.start <= boundary && h.end > boundary)) continue;
      const aFrom = tailStart + h.start; // in a's original
      const bTo = h.end - boundary; // in b's original
      if (b.hits.some((x) => x.start < bTo)) continue;
      // The first part may already be hidden by a finding of its own that runs to its end
      // (`GITHUB_TOKEN=ghp_7sZq` alone is an assignment): then only the second part is left to do.
      // Only a token format says the text must go on; a value a context rule found complete at
      // the end of one event is not continued by whatever the next one starts with.
      const before = a.hits.filter((x) => x.end > aFrom);
      if (before.some((x) => x.start < aFrom || x.end !== a.original.length)) continue;
      if (before.length > 0 && this.priorityOf.get(h.rule) !== 0) continue;
      const firstDone = before.length > 0 || aFrom === a.original.length;
      const path = formatPath(b.segments);
      if (config.allowPaths.length > 0 && this.pathAllowed(path)) continue;
      const first = { ...h, start: aFrom, end: a.original.length, secret: a.original.slice(aFrom), pointer: '' };
      const second = { ...h, start: 0, end: bTo, secret: b.original.slice(0, bTo), pointer: '' };
      // New arrays: a scan without hits returns one shared empty array, never to be changed.
      if (!firstDone) a.hits = [...a.hits, first];
      b.hits = [second, ...b.hits];
      this.record(cur.event, cur.source, cur.line, path, { ...h, secret: joined.slice(h.start, h.end), pointer: '' });
      cur.touched = true;
      if (!firstDone) {
        prev.touched = true;
        this.keep(first, a.original);
      }
      this.keep(second, b.original);
      if (mode !== 'redact') continue;
      // The split parts were not touched by the events' own hits, so they still end / start the texts.
      if (!firstDone) {
        const aText = getAt(prev.event, a.segments) as string;
        setAt(prev.event, a.segments, aText.slice(0, aText.length - (a.original.length - aFrom)) + (h.replacement ?? placeholders!.for(h.rule, first.secret)));
        prev.changed = true;
      }
      const bText = getAt(cur.event, b.segments) as string;
      setAt(cur.event, b.segments, (h.replacement ?? placeholders!.for(h.rule, second.secret)) + bText.slice(bTo));
      cur.changed = true;
    }
  }

  /** Writes what is held back and each session's closing marker, and returns the report. */
  async finish(): Promise<Report> {
    await this.flush();
    const { mode, vault } = this.options;
    if (this.writer && this.marking) await this.closeSessions();
    await this.writer?.end();
    const report = this.report;
    if (mode === 'restore') report.missing = this.missing.count;
    if (this.rechainer.unverified.size > 0) report.unverified = [...this.rechainer.unverified].map(([session, seq]) => ({ session, seq }));
    if (vault && mode === 'redact') report.collisions = vault.collisions.length;
    return report;
  }

  private async closeSessions(): Promise<void> {
    for (const [session, end] of this.ends) {
      const held = end.held;
      if (this.options.mode === 'restore') continue; // the restored stream is not redacted: its closing marker goes
      if (held) await this.emit(held.event, held.text, held.bytes, held.changed);
      const marker = this.options.marker!;
      const same = held && !held.changed && ['ruleset', 'key_id', 'profile'].every((k) => (held.event.payload as Record<string, unknown>)[k] === marker[k as keyof MarkerPayload]);
      if (same) continue;
      const event: SpEvent = { session, seq: end.lastSeq + 1, ts: end.lastTs, agent: end.agent, actor: 'system', type: 'meta', payload: { ...marker } };
      await this.emit(event, '', undefined, true);
    }
  }
}

const pathKey = (segments: readonly Segment[]) => segments.join('\u0000');

/** Lines that go out unchanged are copied as bytes; the rest is encoded again. */
function asRead(bytes: Buffer | undefined, start: number): Buffer | undefined {
  if (!bytes || bytes.length < 2 || bytes[bytes.length - 1] !== 0x0a || bytes[bytes.length - 2] === 0x0d) return undefined;
  if (start === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return undefined;
  return bytes;
}

/** At most 4 characters of a secret (fewer for short ones), for --review: enough to recognise it, not to use it. */
export function prefixOf(secret: string): string {
  return `${secret.slice(0, Math.min(4, Math.floor(secret.length / 4)))}…`;
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
