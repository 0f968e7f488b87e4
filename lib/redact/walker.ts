// Walking a canonical event: structural members (ids, seq, checksums, signatures, opaque reasoning,
// image data, hashes) are skipped by name; every other string, at any depth and under any type,
// known or not, is scanned. A string that is itself a JSON text (a `--raw` native line, Codex
// arguments kept as one JSON string, a JSON tool result) is scanned literal by literal, so its
// own ids and signatures are skipped too and the text stays valid JSON byte for byte around the
// placeholders.
import { Detector, type Finding } from './detector.js';
import { decodeLiteral, escapeDepth, isJsonContainer, rawOffset, valueLiterals } from './jsontext.js';
import { PLACEHOLDER, type Placeholders } from './keys.js';
import { setMember } from '../core/json.js';

/** Envelope members that are structure (docs/design.md §2); `payload`, `origin` and unknown members are walked. */
const ENVELOPE_SKIP = new Set(['session', 'seq', 'ts', 'agent', 'type', 'checksum', 'actor', 'level', 'parent_seq', 'derived_from', 'refs']);
const ORIGIN_SKIP = new Set(['agent', 'native_id', 'native_seq', 'native_uuid', 'path']);

/**
 * Member names whose values are structure wherever they occur, in canonical payloads and in the
 * native records of every agent: ids, signatures and opaque reasoning that only verify with their
 * provider, hashes. A secret-looking value under one of these would break resume if touched.
 */
export const STRUCTURAL_KEYS = new Set([
  'id', 'uuid', 'call_id', 'callId', 'tool_call_id', 'toolCallId', 'tool_use_id', 'toolUseId', 'toolUseID', 'parentToolUseID',
  'message_id', 'messageId', 'native_id', 'native_uuid', 'parent_id', 'parentId', 'sessionId', 'session_id', 'requestId',
  'request_id', 'agentId', 'agent_id', 'promptId', 'prompt_id', 'turn_id', 'turnId', 'item_id', 'itemId', 'response_id',
  'responseId', 'previous_response_id', 'checkpoint_id',
  'signature', 'thinkingSignature', 'thoughtSignature', 'textSignature', 'reasoningOpaque', 'opaque', 'encrypted_content',
  'encryptedContent', 'redacted_thinking',
  'checksum', 'artifact', 'digest', 'before_digest', 'after_digest', 'integrity', 'sha', 'sha256', 'git_head',
]);

const DATA_URL = /^data:[\w.+-]{1,100}\/[\w.+-]{1,100}(?:;[\w=.+-]{1,100})*;base64,/;
const BASE64_BLOB = /^[A-Za-z0-9+/_-]+={0,2}$/;

export function isStructuralKey(key: string): boolean {
  return STRUCTURAL_KEYS.has(key) || /uuid$/i.test(key);
}

/** Values that are structure whatever their name: inline base64 image/file data and data: URLs. */
export function isStructuralValue(key: string | undefined, value: string): boolean {
  if (value.length < 64) return false;
  if (key === 'data' && BASE64_BLOB.test(value)) return true;
  return value.startsWith('data:') && DATA_URL.test(value);
}

export interface Hit {
  rule: string;
  /** Span in the field string (raw, when the secret sat inside JSON string literals). */
  start: number;
  end: number;
  /** The secret itself, decoded. */
  secret: string;
  /** How many JSON-string levels it sat below the field string (0: in the text itself). */
  depth: number;
  /** JSON Pointer inside the field's JSON text ('' when the field is not JSON). */
  pointer: string;
  /** Fixed text to write instead of a placeholder (the public profile's `~` for a home folder). */
  replacement?: string;
}

/** Member names shorter than this hold no token (the shortest token format is 20 characters). */
const MIN_KEY_SCAN = 16;

/** Finds secrets in field strings, descending into JSON texts. */
export class Scanner {
  /** Whether some rule runs on member names besides the token formats. */
  private readonly named: boolean;
  /**
   * The token formats alone, as a test that nothing is to do: ids, hashes and long member names
   * hold the context rules' keywords ("-a" in every UUID) but rarely a token's. A rule is triggered
   * exactly when one of its keywords occurs (or its own prefilter passes), whatever the other
   * rules, so an empty answer here is the full detector's answer filtered to the token formats.
   */
  private readonly tokens: Detector;

  constructor(private readonly detector: Detector) {
    this.named = detector.rules.some((r) => r.names);
    this.tokens = new Detector(detector.rules.filter((r) => r.priority === 0));
  }

  scanString(text: string, key: string | undefined, depth = 0): Hit[] {
    const wantsField = key !== undefined && this.detector.wantsField(key);
    const triggered = this.detector.triggered(text);
    if (triggered.length === 0 && !wantsField) return NONE;
    if (triggered.length > 0 && isJsonContainer(text)) return this.scanJson(text, depth);
    return this.hits(this.detector.scan(text, key, triggered), text, depth);
  }

  /**
   * Only the token formats (rules of priority 0): for values the walker treats as structure (an
   * `id`, a `signature`) and for member names, where a `ghp_…` is still a secret but a context
   * rule would take ids and hashes for passwords.
   */
  scanTokens(text: string, depth = 0): Hit[] {
    if (text.length < MIN_KEY_SCAN) return NONE;
    if (this.tokens.triggered(text).length === 0) return NONE;
    const triggered = this.detector.triggered(text);
    if (triggered.length === 0) return NONE;
    const tokens = triggered.filter((i) => this.detector.rules[i].priority === 0);
    if (tokens.length === 0) return NONE;
    return this.hits(this.detector.scan(text, undefined, tokens), text, depth);
  }

  /** Member names: the token formats, and the rules that ask for names too (the public profile's). */
  scanName(name: string, depth = 0): Hit[] {
    if (!this.named) return this.scanTokens(name, depth);
    if (name.length < 4) return NONE;
    const triggered = this.detector.triggered(name);
    if (triggered.length === 0) return NONE;
    const wanted = triggered.filter((i) => this.detector.rules[i].priority === 0 || this.detector.rules[i].names);
    if (wanted.length === 0) return NONE;
    return this.hits(this.detector.scan(name, undefined, wanted), name, depth);
  }

  private hits(findings: Finding[], text: string, depth: number): Hit[] {
    if (findings.length === 0) return NONE;
    return findings.map((f) => {
      const hit: Hit = { rule: f.rule.id, start: f.start, end: f.end, secret: text.slice(f.start, f.end), depth, pointer: '' };
      if (f.rule.replacement !== undefined) hit.replacement = f.rule.replacement;
      return hit;
    });
  }

  private scanJson(text: string, depth: number): Hit[] {
    const hits: Hit[] = [];
    for (const lit of valueLiterals(text, true)) {
      const structural = lit.key !== undefined && isStructuralKey(lit.key);
      const decoded = decodeLiteral(text, lit.start, lit.end);
      if (!lit.name && isStructuralValue(lit.key, decoded.value)) continue;
      const inner = lit.name ? this.scanName(decoded.value, depth + 1) : structural ? this.scanTokens(decoded.value, depth + 1) : this.scanString(decoded.value, lit.key, depth + 1);
      if (inner.length === 0) continue;
      const pointer = lit.pointer();
      for (const h of inner) {
        hits.push({ ...h, start: rawOffset(lit, decoded, h.start), end: rawOffset(lit, decoded, h.end), pointer: pointer + h.pointer });
      }
    }
    return hits;
  }
}

const NONE: Hit[] = [];

/** A finding as reported: where (field path, with `#pointer` inside JSON text) and which rule. */
export interface Located {
  path: string;
  rule: string;
  hit: Hit;
}

type Segment = string | number;

export function formatPath(segments: readonly Segment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

export interface WalkOptions {
  /**
   * Also visit the values of structural members (ids, signatures, hashes), with `structural` set:
   * the visitor checks them for token formats only. Envelope members are never visited.
   */
  structural?: boolean;
  /** Visit member names below the envelope: returns a new name, or undefined to keep it. */
  visitKey?: (key: string, path: readonly Segment[]) => string | undefined;
}

/**
 * Visits every non-structural string of an event. `visit` returns a replacement, or undefined to
 * keep the string; replacements are written into the event in place.
 */
export function walkEvent(
  event: Record<string, unknown>,
  visit: (text: string, key: string | undefined, path: readonly Segment[], structural?: boolean) => string | undefined,
  options: WalkOptions = {},
): boolean {
  const path: Segment[] = [];
  let changed = false;

  const walk = (container: Record<string, unknown> | unknown[], slot: string | number, key: string | undefined, structural: boolean): void => {
    const value = (container as Record<string | number, unknown>)[slot];
    if (typeof value === 'string') {
      if (isStructuralValue(key, value)) return;
      const replaced = structural ? visit(value, key, path, true) : visit(value, key, path);
      if (replaced !== undefined && replaced !== value) {
        (container as Record<string | number, unknown>)[slot] = replaced;
        changed = true;
      }
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        walk(value, i, key, structural);
        path.pop();
      }
      return;
    }
    walkObject(value as Record<string, unknown>, undefined, structural);
  };

  const walkObject = (object: Record<string, unknown>, skip: Set<string> | undefined, structural: boolean): void => {
    let renamed: Map<string, string> | undefined;
    for (const k of Object.keys(object)) {
      if (skip?.has(k)) continue;
      if (options.visitKey) {
        const name = options.visitKey(k, path);
        if (name !== undefined && name !== k && !Object.hasOwn(object, name)) (renamed ??= new Map()).set(k, name);
      }
      const under = structural || isStructuralKey(k);
      if (under && !options.structural) continue;
      path.push(k);
      walk(object, k, k, under);
      path.pop();
    }
    if (renamed) {
      // Rebuilt in the same order, with the new names (key order is kept for readers; the checksum sorts them anyway).
      const entries = Object.entries(object);
      for (const [k] of entries) delete object[k];
      for (const [k, v] of entries) setMember(object, renamed.get(k) ?? k, v);
      changed = true;
    }
  };

  for (const k of Object.keys(event)) {
    if (ENVELOPE_SKIP.has(k)) continue;
    const value = event[k];
    path.push(k);
    if (k === 'origin' && typeof value === 'object' && value !== null && !Array.isArray(value)) walkObject(value as Record<string, unknown>, ORIGIN_SKIP, false);
    else walk(event, k, k, false);
    path.pop();
  }
  return changed;
}

/** Rewrites `text` with each hit's span replaced by its placeholder (hits sorted, not overlapping). */
export function applyHits(text: string, hits: readonly Hit[], placeholders: Placeholders): string {
  let out = '';
  let at = 0;
  for (const h of hits) {
    out += text.slice(at, h.start) + (h.replacement ?? placeholders.for(h.rule, h.secret));
    at = h.end;
  }
  return out + text.slice(at);
}

export interface VaultEntry {
  secret: string;
  /** Spellings that differ from the standard JSON escaping, by depth (e.g. `\/` or `\u0041` in a native line). */
  spellings?: Record<string, string>;
}

interface Replacement {
  start: number;
  end: number;
  text: string;
}

/**
 * Finds placeholders in a field string and what to put back for each, spelled as the field needs
 * it (escaped once per JSON-string level the placeholder sits under). Unknown placeholders are
 * counted in `missing` and left as they are.
 */
export function restoreSpans(text: string, lookup: (placeholder: string) => VaultEntry | undefined, missing: { count: number }, depth = 0): Replacement[] {
  if (!text.includes('[REDACTED:')) return [];
  const out: Replacement[] = [];
  if (isJsonContainer(text)) {
    for (const lit of valueLiterals(text, true)) {
      const raw = text.slice(lit.start, lit.end);
      if (!raw.includes('[REDACTED:')) continue;
      const decoded = decodeLiteral(text, lit.start, lit.end);
      for (const r of restoreSpans(decoded.value, lookup, missing, depth + 1)) {
        out.push({ start: rawOffset(lit, decoded, r.start), end: rawOffset(lit, decoded, r.end), text: r.text });
      }
    }
    return out;
  }
  PLACEHOLDER.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = PLACEHOLDER.exec(text))) {
    const entry = lookup(m[0]);
    if (!entry) {
      missing.count++;
      continue;
    }
    out.push({ start: m.index, end: m.index + m[0].length, text: entry.spellings?.[String(depth)] ?? escapeDepth(entry.secret, depth) });
  }
  return out;
}

export function applyReplacements(text: string, replacements: readonly Replacement[]): string {
  let out = '';
  let at = 0;
  for (const r of replacements) {
    out += text.slice(at, r.start) + r.text;
    at = r.end;
  }
  return out + text.slice(at);
}
