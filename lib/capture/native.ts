// The first step every capture mapper takes with a line of an agent's native file: its text for
// `origin.raw` (with --raw), then blank, unparseable or a record. One definition for all adapters,
// so a bad line is kept the same way everywhere: as `meta` {key: "unparseable", text, reason,
// unterminated?} with one diagnostic, never dropped (docs/design.md §2, lossless first) and never a crash.
import type { Diagnose } from '../adapter/interface.js';
import { rawLineText } from './read-position.js';
import { parseJsonObject, type Json } from '../core/json.js';
import type { Line } from '../core/lines.js';
import { describeBadLine } from '../core/ndjson.js';

/** What the step needs of a mapper's options: the file (diagnostics name it), --raw, the reporter. */
export interface NativeSource {
  path: string;
  raw?: boolean;
  onDiagnostic?: Diagnose;
}

export type NativeLine =
  | { kind: 'blank' }
  /** Not a JSON object: `meta` is the payload of the meta event that keeps the line. */
  | { kind: 'unparseable'; meta: Json }
  | { kind: 'record'; record: Json };

/**
 * The line's text for `origin.raw`, or undefined without --raw. A line that is not valid UTF-8 is
 * reported: its text is the decoded line, which does not give the bytes back.
 */
export function nativeRawText(source: NativeSource, line: Line): string | undefined {
  if (!source.raw) return undefined;
  const raw = rawLineText(line);
  if (!raw.exact) source.onDiagnostic?.(`${source.path}:${line.number}`, 'not valid UTF-8; origin.raw holds it decoded, not byte for byte');
  return raw.text;
}

/**
 * Fills in the canonical `content` of a native message whose content is not a block array: a
 * string becomes one text block, marked `string_content` so a writer can give the string back; any
 * other value leaves no blocks and is kept whole in `native_content`. Returns `payload`.
 */
export function nonBlockContent(content: unknown, payload: Json): Json {
  if (typeof content === 'string') {
    payload.content = [{ type: 'text', text: content }];
    payload.string_content = true;
  } else {
    payload.content = [];
    if (content !== undefined) payload.native_content = content;
  }
  return payload;
}

/** A native line as blank, unparseable (reported) or a JSON object record. */
export function parseNativeLine(source: NativeSource, line: Line): NativeLine {
  if (line.text.trim() === '') return { kind: 'blank' };
  const parsed = parseJsonObject(line.text);
  if (parsed.value) return { kind: 'record', record: parsed.value };
  const reason = parsed.reason!;
  source.onDiagnostic?.(`${source.path}:${line.number}`, describeBadLine({ source: source.path, line, reason }));
  const meta: Json = { key: 'unparseable', text: line.text, reason };
  if (!line.terminated) meta.unterminated = true;
  return { kind: 'unparseable', meta };
}
