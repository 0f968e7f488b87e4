// `capture` for Factory Droid: one `<uuid>.jsonl` → session.start (from line 1, the client's
// `session_start` record), then every line in file order (docs/formats/droid.md §2). Read up to the
// size the file had when capture started; with a cursor, capture continues after the last consumed
// line and a last line without its newline waits for the next run. Read-only, always.
import { statSync } from 'node:fs';
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { toEpochSeconds, type SpEvent } from '../../lib/core/event.js';
import { lineFile, readLineFile, type Opening } from '../../lib/formats/line-file.js';
import type { Line } from '../../lib/core/lines.js';
import { jsonObject, str, type Json } from '../../lib/core/json.js';
import { AGENT, DroidMapper, newDroidState, startPayload } from './events.js';

export async function* captureDroid(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const file = lineFile(AGENT, ref, options, 'Droid session .jsonl', newDroidState);
  const { path, state, emitter } = file;
  const mapper = new DroidMapper({ emitter, path, state, raw: options.raw, onDiagnostic: options.onDiagnostic });

  const start = (line: Line | undefined, record: Json | undefined, firstTs: number | undefined): SpEvent => {
    const payload = startPayload(ref.native_id, record);
    if (!line) payload.header = false;
    return mapper.start(payload, firstTs ?? statSync(path).mtimeMs / 1000, line);
  };

  const open = (line: Line | undefined): Opening => {
    const record = line ? jsonObject(line.text) : undefined;
    // session_start carries no time: the session starts when its first timed record says.
    if (line?.number === 1 && record?.type === 'session_start') return { start: start(line, record, undefined), header: true };
    if (line?.number === 1) options.onDiagnostic?.(`${path}:1`, 'line 1 is not a session_start record: the client refuses such a file ("missing session_start event"); read anyway');
    return { start: start(undefined, undefined, toEpochSeconds(record?.timestamp)), header: false };
  };
  yield* readLineFile(file, options, open, (line) => mapper.line(line));
}

/** The session id line 1 names (`session_start.id`), if it does. */
export function sessionIdOfLine(text: string | undefined): string | undefined {
  const record = text ? jsonObject(text) : undefined;
  return record?.type === 'session_start' ? str(record.id) : undefined;
}
