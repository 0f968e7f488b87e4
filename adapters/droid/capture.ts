// `capture` for Factory Droid: one `<uuid>.jsonl` → session.start (from line 1, the client's
// `session_start` record), then every line in file order (docs/formats/droid.md §2). Read up to the
// size the file had when capture started; with a cursor, capture continues after the last consumed
// line and a last line without its newline waits for the next run. Read-only, always.
import { statSync } from 'node:fs';
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { readError } from '../../lib/cli/diagnostics.js';
import { toEpochSeconds, type SpEvent } from '../../lib/core/event.js';
import { captureLines, cursorFor, emitterFor, sourceExtent, storeNextSeq, storePosition } from '../../lib/capture/read-position.js';
import type { Line } from '../../lib/core/lines.js';
import { jsonObject, str, type Json } from '../../lib/core/json.js';
import { AGENT, DroidMapper, newDroidState, startPayload, type DroidState } from './events.js';

export async function* captureDroid(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const incremental = options.cursor !== undefined;
  const cursor = cursorFor(AGENT, ref, options.cursor);
  const path = ref.path;
  const position = cursor.sources[path];
  const { size } = sourceExtent(path, position, 'Droid session .jsonl');
  const state: DroidState = (cursor.state as DroidState | undefined) ?? newDroidState();
  cursor.state = state;
  const emitter = emitterFor(cursor, AGENT, ref.native_id);
  const mapper = new DroidMapper({ emitter, path, state, raw: options.raw, onDiagnostic: options.onDiagnostic });

  let firstTs: number | undefined;
  const start = (line: Line | undefined, record: Json | undefined): SpEvent => {
    const payload = startPayload(ref.native_id, record);
    if (!line) payload.header = false;
    return mapper.start(payload, firstTs ?? statSync(path).mtimeMs / 1000, line);
  };

  let last: Line | undefined;
  try {
    for await (const line of captureLines(path, position, size, incremental)) {
      if (!state.started) {
        const record = jsonObject(line.text);
        if (line.number === 1 && record?.type === 'session_start') {
          // session_start carries no time: the session starts when its first timed record says.
          firstTs = undefined;
          yield start(line, record);
          last = line;
          continue;
        }
        if (line.number === 1) options.onDiagnostic?.(`${path}:1`, 'line 1 is not a session_start record: the client refuses such a file ("missing session_start event"); read anyway');
        firstTs = toEpochSeconds(record?.timestamp);
        yield start(undefined, undefined);
      }
      for (const event of mapper.line(line)) yield event;
      last = line;
    }
  } catch (err) {
    throw readError(err, path);
  }
  if (!state.started && !incremental) yield start(undefined, undefined);
  storePosition(cursor, path, last);
  if (state.started) storeNextSeq(cursor, emitter);
  options.onCursor?.(cursor);
}

/** The session id line 1 names (`session_start.id`), if it does. */
export function sessionIdOfLine(text: string | undefined): string | undefined {
  const record = text ? jsonObject(text) : undefined;
  return record?.type === 'session_start' ? str(record.id) : undefined;
}
