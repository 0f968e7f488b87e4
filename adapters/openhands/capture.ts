// `capture` for OpenHands (docs/formats/openhands.md §2–3): a conversation folder → session.start
// (base_state.json's summary and the first event's time), then every event file in index order
// (events.ts). Problems are reported with the file and kept as meta, never dropped: a file that is
// not JSON (a write cut short), one over the size bound, a gap in the indexes, a symbolic link or
// a stray file in the events folder (each reported once).
//
// Incremental (--cursor): the SDK only adds event files, never rewrites one, so the cursor keeps
// the index and a hash of the last file consumed; the next run reads the files with a larger
// index, after checking that file is still there unchanged (else the folder was rewritten: a user
// error, nothing mis-read).
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CaptureOptions, SessionRef, SourcePosition } from '../../lib/adapter/interface.js';
import { NOT_UTF8 } from '../../lib/capture/json-document.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { cursorFor, emitterFor, sha256Hex, storeNextSeq } from '../../lib/capture/read-position.js';
import type { SpEvent } from '../../lib/core/event.js';
import type { Json } from '../../lib/core/json.js';
import { recordEvents } from './events.js';
import { MAX_EVENT_BYTES, listEvents, readBaseState, readEvent, stateSummary } from './files.js';
import { AGENT, BASE_STATE, EVENTS_DIR } from './paths.js';

/**
 * An SDK timestamp in epoch seconds. The SDK writes `datetime.now().isoformat()`: the writing
 * machine's local time without a zone; it is read as UTC so every reader gets the same number.
 */
export function eventTime(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const zoned = /(Z|[+-]\d\d:?\d\d)$/.test(value);
  const ms = Date.parse(zoned ? value : `${value}Z`);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

/** How far a capture read a conversation: the last event file consumed and a hash of it. */
interface EventsPosition extends SourcePosition {
  index: number;
  file: string;
  file_sha256?: string;
  file_bytes: number;
}

/** What the cursor carries besides the position: the stray names already reported (each once). */
interface OpenHandsState {
  reported: string[];
}

function fingerprint(text: string | undefined, bytes: number): { file_sha256?: string; file_bytes: number } {
  return text === undefined ? { file_bytes: bytes } : { file_sha256: sha256Hex(text), file_bytes: bytes };
}

/** The last file a cursor consumed must still be there, unchanged: otherwise the folder was rewritten. */
function assertConsumedUnchanged(dir: string, position: EventsPosition): void {
  const path = join(dir, EVENTS_DIR, position.file);
  const again = " (capture again without the cursor)";
  let bytes: number;
  try {
    bytes = lstatSync(path).size;
  } catch {
    throw new UserError(`event file ${position.file}, the last one the cursor consumed, is gone: not continuing${again}`, dir);
  }
  const changed = bytes !== position.file_bytes || (position.file_sha256 !== undefined && sha256Hex(readFileSync(path, 'utf8')) !== position.file_sha256);
  if (changed) throw new UserError(`event file ${position.file} changed since the cursor consumed it: not continuing${again}`, dir);
}

export async function* captureOpenHands(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const dir = ref.path;
  const report = (where: string, what: string) => options.onDiagnostic?.(where, what);
  const cursor = cursorFor(AGENT, ref, options.cursor);
  const position = cursor.sources[dir] as EventsPosition | undefined;
  const state: OpenHandsState = (cursor.state as OpenHandsState | undefined) ?? { reported: [] };
  if (position) assertConsumedUnchanged(dir, position);
  const emitter = emitterFor(cursor, AGENT, ref.native_id);
  const listing = listEvents(dir);
  const fresh = position ? listing.files.filter((f) => f.index > position.index) : listing.files;
  let lastTs = ref.mtime ?? 0;

  if (emitter.nextSeq === 0) {
    const base = readBaseState(dir);
    if (base.problem) report(base.where ?? join(dir, BASE_STATE), base.problem);
    const summary = stateSummary(base.state);
    const start: Json = { native_id: ref.native_id };
    if (typeof summary.cwd === 'string') start.cwd = summary.cwd;
    if (typeof summary.model === 'string') start.model = summary.model;
    if (typeof summary.title === 'string') start.title = summary.title;
    const { cwd: _cwd, model: _model, title: _title, ...rest } = summary;
    if (Object.keys(rest).length > 0) start.state = rest;
    start.source_path = dir;
    // The first event's time, when its file says it (the file is bounded, and read again below).
    const firstRead = fresh[0] ? readEvent(fresh[0].path) : undefined;
    lastTs = (firstRead?.ok ? eventTime(firstRead.record.timestamp) : undefined) ?? lastTs;
    yield emitter.emit('session.start', start, lastTs, { actor: 'system' });
  }

  for (const [names, key, what] of [[listing.links, 'openhands.events.symlink', 'a symbolic link in the events folder: not followed'], [listing.foreign, 'openhands.events.foreign_file', 'not an event file (event-<index>-<id>.json): not read']] as const) {
    for (const name of names) {
      if (state.reported.includes(name)) continue;
      state.reported.push(name);
      report(join(dir, EVENTS_DIR, name), what);
      yield emitter.emit('meta', { key, name }, lastTs, { actor: 'system' });
    }
  }

  let expected = position ? position.index + 1 : 0;
  let consumed = position;
  for (const file of fresh) {
    if (file.index > expected) {
      report(file.path, `event files ${expected}–${file.index - 1} are missing: the events before this one are incomplete`);
      yield emitter.emit('meta', { key: 'openhands.events.gap', from: expected, to: file.index - 1 }, lastTs, { actor: 'system', origin: { native_seq: file.index } });
    } else if (file.index < expected) {
      report(file.path, `a second event file with index ${file.index}`);
    }
    expected = Math.max(expected, file.index + 1);
    const read = readEvent(file.path);
    if (!read.ok && read.problem === 'too-large') {
      report(file.path, `${read.bytes} bytes, over ${MAX_EVENT_BYTES}: not read`);
      yield emitter.emit('meta', { key: 'openhands.event.too_large', file: file.name, bytes: read.bytes }, lastTs, { actor: 'system', origin: { native_seq: file.index } });
      consumed = { offset: 0, line: file.index + 1, index: file.index, file: file.name, ...fingerprint(undefined, read.bytes) };
      continue;
    }
    consumed = { offset: 0, line: file.index + 1, index: file.index, file: file.name, ...fingerprint(read.text, read.bytes) };
    if (read.badUtf8Line !== undefined) report(`${file.path}:${read.badUtf8Line}`, NOT_UTF8);
    if (!read.ok) {
      report(`${file.path}:1`, `not a JSON event (${read.reason}): ${read.text.slice(0, 200)}`);
      yield emitter.emit('meta', { key: 'unparseable', text: read.text, reason: read.reason, file: file.name }, lastTs, { actor: 'system', origin: { native_seq: file.index, ...(options.raw ? { raw: [read.text] } : {}) } });
      continue;
    }
    const ts = eventTime(read.record.timestamp) ?? lastTs;
    lastTs = ts;
    yield* recordEvents(read.record, { emitter, ts, index: file.index, raw: options.raw ? read.text : undefined });
  }

  if (consumed) cursor.sources[dir] = consumed;
  cursor.state = state;
  storeNextSeq(cursor, emitter);
  options.onCursor?.(cursor);
}
