// Redaction on by default: the one place every stage that stores, sends, writes or shows a session
// (sp-sync ingest/push/ls/search, sp-materialize, sp-compile, sp-capture --list) gets its redactor
// from, so all of them use sp-redact's rules, walker and keyed placeholders: the same secret gets
// the same placeholder here as in sp-redact's output, and redacting twice changes nothing.
//
// The marker. sp-redact ends each session it wrote with a chained `meta` event
// {key: "sp.redacted", ruleset, key_id, profile}: seq = the session's last seq + 1, chained onto the
// output's tail, so sp-verify passes and no seq before it moves (parent_seq, derived_from and the
// store's dedup keys stay valid). It is a record of what was done, not a pass: a stream is hostile
// input, and anyone can write a marker with a copied key id over a stream that still holds secrets.
// So no stage skips its pass because of a marker; each runs the in-process pass again (cheap, and a
// no-op on redacted text, since placeholders match no rule). Stages read the marker only to leave
// it where it is (sp-redact does not add a second one for the same key and rule set; sp-materialize
// does not write it into the target agent's session).
import { hash } from 'node:crypto';
import { computeChecksum } from '../core/chain.js';
import type { SpEvent } from '../core/event.js';
import { canonicalize } from '../core/jcs.js';
import { parseJsonObject } from '../core/json.js';
import { splitLines } from '../core/lines.js';
import type { Input } from '../core/ndjson.js';
import { loadConfig, type RedactConfig } from './config.js';
import { Detector } from './detector.js';
import { Placeholders, loadRedactKey } from './keys.js';
import { Scanner, applyHits, walkEvent, type Hit } from './walker.js';

export const MARKER_KEY = 'sp.redacted';
export const DEFAULT_PROFILE = 'default';

/** The marker's payload: which rules, which key (by a hash of it, never the key) and which profile. */
export interface MarkerPayload {
  key: typeof MARKER_KEY;
  ruleset: string;
  key_id: string;
  profile: string;
}

/** A version of the rule set in force: the number of rules and a hash of what defines them. */
export function rulesetVersion(config: RedactConfig): string {
  const text = config.rules.map((r) => `${r.id}\0${r.description}\0${r.keywords.join(',')}\0${r.source ?? ''}`).join('\n');
  const allow = [...config.allowValues, ...config.allowRegexes.map(String), ...config.allowPaths.map(String)].join('\n');
  return `${config.rules.length}:${hash('sha256', `${text}\n--\n${allow}`, 'hex').slice(0, 16)}`;
}

/** The key's public name: a domain-separated hash, so the marker names the key without giving it away. */
export function keyId(key: Buffer): string {
  return 'sha256:' + hash('sha256', Buffer.concat([Buffer.from('sp-redact key id\0'), key]), 'hex').slice(0, 16);
}

export function isMarker(event: { type?: unknown; payload?: unknown }): boolean {
  return event.type === 'meta' && typeof event.payload === 'object' && event.payload !== null && (event.payload as Record<string, unknown>).key === MARKER_KEY;
}

/** sp-redact's pass over values in this process: the rules of `config`, the placeholders of `key`. */
export class Redactor {
  readonly ruleset: string;
  readonly keyId: string;
  private readonly scanner: Scanner;
  private readonly placeholders: Placeholders;

  constructor(
    readonly config: RedactConfig,
    key: Buffer,
    readonly profile = DEFAULT_PROFILE,
  ) {
    this.scanner = new Scanner(new Detector(config.rules, { values: config.allowValues, regexes: config.allowRegexes }));
    this.placeholders = new Placeholders(key);
    this.ruleset = rulesetVersion(config);
    this.keyId = keyId(key);
  }

  /** The machine's redactor: built-in rules (plus `rules` files), $SP_HOME/keys/redact.key (or `keyPath`). */
  static async load(options: { keyPath?: string; rules?: string[] } = {}): Promise<Redactor> {
    return new Redactor(loadConfig(options.rules ?? []), await loadRedactKey(options.keyPath));
  }

  markerPayload(): MarkerPayload {
    return { key: MARKER_KEY, ruleset: this.ruleset, key_id: this.keyId, profile: this.profile };
  }

  /** Whether a marker says what this redactor would say (same rules, key and profile). */
  matches(marker: { payload?: unknown }): boolean {
    const p = (marker.payload ?? {}) as Record<string, unknown>;
    return p.ruleset === this.ruleset && p.key_id === this.keyId && p.profile === this.profile;
  }

  /**
   * Redacts an event in place, as sp-redact does (structural members left alone). Returns how
   * many secrets it replaced; the caller re-chains when that is not 0.
   */
  redactEvent(event: Record<string, unknown>): number {
    let found = 0;
    const replace = (text: string, hits: Hit[]) => {
      if (hits.length === 0) return undefined;
      found += hits.length;
      return applyHits(text, hits, this.placeholders);
    };
    walkEvent(event, (text, key, _path, structural) => replace(text, this.scan(text, key, structural)), {
      structural: true,
      visitKey: (name) => replace(name, this.scanner.scanName(name)),
    });
    return found;
  }

  /** Whether an event holds a secret these rules find (nothing is changed). */
  hasSecrets(event: Record<string, unknown>): boolean {
    let found = false;
    const note = (hits: Hit[]) => {
      if (hits.length > 0) found = true;
      return undefined;
    };
    walkEvent(event, (text, key, _path, structural) => (found ? undefined : note(this.scan(text, key, structural))), {
      structural: true,
      visitKey: (name) => (found ? undefined : note(this.scanner.scanName(name))),
    });
    return found;
  }

  /** As sp-redact scans: values under structural names (ids, signatures) against the token formats only. */
  private scan(text: string, key: string | undefined, structural: boolean | undefined): Hit[] {
    return structural ? this.scanner.scanTokens(text) : this.scanner.scanString(text, key);
  }

  /** A deep copy of any JSON value with every secret in its strings replaced. */
  redactValue<T>(value: T): T {
    if (value === undefined || value === null) return value;
    // A wrapper the event walker accepts: `payload` is walked, structural members skipped.
    const holder = { payload: JSON.parse(JSON.stringify(value)) as unknown };
    this.redactEvent(holder);
    return holder.payload as T;
  }

  /** One text as shown to a person (a title, a first prompt, a search snippet). */
  redactText(text: string): string;
  redactText(text: string | null | undefined): string | null | undefined;
  redactText(text: string | null | undefined): string | null | undefined {
    if (typeof text !== 'string' || text === '') return text;
    const hits = this.scanner.scanString(text, undefined);
    return hits.length > 0 ? applyHits(text, hits, this.placeholders) : text;
  }
}

/**
 * sp-redact's pass over one stream's lines, in order, for a stage that parses each line itself
 * (compile parses once for both). A line without a secret goes on byte for byte until a change in
 * its session; from there on a chained session is re-chained (as sp-redact does) and an unchained
 * one stays unchained.
 */
export class LineRedaction {
  // Per session: the input's and the output's last checksum (they differ after the first change).
  private readonly tails = new Map<string, { input: string; output: string; warned?: boolean }>();
  constructor(
    private readonly redactor: Redactor,
    private readonly onUnverified?: (where: string, session: string) => void,
  ) {}

  /**
   * Redacts `event` (parsed from `text`) in place. Returns the line's new text (canonical JSON,
   * without its newline), or undefined when the line passes as it is.
   */
  line(event: Record<string, unknown>, text: string, where: string): string | undefined {
    const stored = typeof event.checksum === 'string' ? event.checksum : undefined;
    const session = typeof event.session === 'string' ? event.session : '';
    let tail = this.tails.get(session);
    if (!tail) this.tails.set(session, (tail = { input: '', output: '' }));
    const changed = this.redactor.redactEvent(event) > 0;
    if (!changed && (stored === undefined || tail.input === tail.output)) {
      if (stored !== undefined) tail.input = tail.output = stored;
      return undefined;
    }
    if (stored === undefined) return canonicalize(event);
    // Re-chaining would hide damage in the input: say so when its own checksum does not verify.
    const original = parseJsonObject(text).value as SpEvent;
    if (computeChecksum(tail.input, original) !== stored && !tail.warned) {
      tail.warned = true;
      this.onUnverified?.(where, session);
    }
    const { checksum: _old, ...rest } = event;
    const checksum = computeChecksum(tail.output, rest as SpEvent);
    tail.input = stored;
    tail.output = checksum;
    return canonicalize({ ...rest, checksum });
  }
}

/**
 * The inputs with secrets replaced, line for line (LineRedaction), read in this process by a stage
 * (materialize) that uses the events rather than passing the stream on as sp-redact's: no marker.
 * Lines map one to one, so the stage's own diagnostics name the same file:line; a line that is not
 * a JSON object passes as it is, for the stage to report.
 */
export async function redactedInputs(
  inputs: Input[],
  options: { keyPath?: string; onUnverified?: (where: string, session: string) => void } = {},
): Promise<Input[]> {
  const redactor = await Redactor.load({ keyPath: options.keyPath });
  const lines = new LineRedaction(redactor, options.onUnverified);
  return inputs.map((input) => ({
    name: input.name,
    readOnce: true,
    open: async function* () {
      for await (const line of splitLines(input.open(), 1, 0, true)) {
        const bytes = line.bytes!;
        const event = !line.invalidUtf8 && line.text.trimStart().startsWith('{') ? parseJsonObject(line.text).value : undefined;
        const text = event ? lines.line(event, line.text, `${input.name}:${line.number}`) : undefined;
        if (text === undefined) yield bytes;
        else yield Buffer.from(line.terminated ? `${text}\n` : text);
      }
    },
  }));
}
