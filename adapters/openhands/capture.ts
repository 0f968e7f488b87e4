// `capture` for OpenHands (docs/formats/openhands.md §2–3): a conversation folder → session.start
// (base_state.json's summary and the first event's time), then every event file in index order
// (events.ts). Problems are reported with the file and kept as meta, never dropped: a file that is
// not JSON (a write cut short), one over the size bound, a gap in the indexes, a symbolic link or
// a stray file in the events folder. Read whole each time (see the capabilities in index.ts).
import { join } from 'node:path';
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { SessionEmitter } from '../../lib/core/emitter.js';
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

export async function* captureOpenHands(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  if (options.cursor && Object.keys(options.cursor.sources).length > 0) throw new UserError('OpenHands conversations are captured whole: --cursor is not supported for them');
  const dir = ref.path;
  const report = (where: string, what: string) => options.onDiagnostic?.(where, what);
  const emitter = new SessionEmitter(AGENT, ref.native_id);
  const base = readBaseState(dir);
  if (base.problem) report(join(dir, BASE_STATE), base.problem);
  const summary = stateSummary(base.state);
  const listing = listEvents(dir);

  const start: Json = { native_id: ref.native_id };
  if (typeof summary.cwd === 'string') start.cwd = summary.cwd;
  if (typeof summary.model === 'string') start.model = summary.model;
  if (typeof summary.title === 'string') start.title = summary.title;
  const { cwd: _cwd, model: _model, title: _title, ...state } = summary;
  if (Object.keys(state).length > 0) start.state = state;
  start.source_path = dir;
  // The first event's time, when its file says it (read again below; the first file is small or bounded).
  const firstRead = listing.files[0] ? readEvent(listing.files[0].path) : undefined;
  let lastTs = (firstRead?.ok ? eventTime(firstRead.record.timestamp) : undefined) ?? ref.mtime ?? 0;
  yield emitter.emit('session.start', start, lastTs, { actor: 'system' });

  for (const name of listing.links) {
    report(join(dir, EVENTS_DIR, name), 'a symbolic link in the events folder: not followed');
    yield emitter.emit('meta', { key: 'openhands.events.symlink', name }, lastTs, { actor: 'system' });
  }
  for (const name of listing.foreign) {
    report(join(dir, EVENTS_DIR, name), 'not an event file (event-<index>-<id>.json): not read');
    yield emitter.emit('meta', { key: 'openhands.events.foreign_file', name }, lastTs, { actor: 'system' });
  }

  let expected = 0;
  for (const file of listing.files) {
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
      continue;
    }
    if (!read.ok) {
      report(`${file.path}:1`, `not a JSON event (${read.reason}): ${read.text.slice(0, 200)}`);
      yield emitter.emit('meta', { key: 'unparseable', text: read.text, reason: read.reason, file: file.name }, lastTs, { actor: 'system', origin: { native_seq: file.index, ...(options.raw ? { raw: [read.text] } : {}) } });
      continue;
    }
    const ts = eventTime(read.record.timestamp) ?? lastTs;
    lastTs = ts;
    yield* recordEvents(read.record, { emitter, ts, index: file.index, raw: options.raw ? read.text : undefined });
  }
}
