// `capture` for Copilot CLI: one events.jsonl → session.start (from line 1 when it is the
// client's session.start, with workspace.yaml's name as the title), then every line in file order.
// Read up to the size the file had when capture started; with a cursor, capture continues after
// the last consumed line and a last line without its newline waits for the next run. The file is
// opened read-only, always.
import { statSync } from 'node:fs';
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { readError } from '../../lib/cli/diagnostics.js';
import { toEpochSeconds, type SpEvent } from '../../lib/core/event.js';
import { captureLines, cursorFor, emitterFor, sourceExtent, storeNextSeq, storePosition } from '../../lib/capture/read-position.js';
import type { Line } from '../../lib/core/lines.js';
import { isObject, jsonObject, str, type Json } from '../../lib/core/json.js';
import { AGENT, CopilotMapper, newCopilotState, startPayload, type CopilotState } from './events.js';
import { readWorkspace } from './paths.js';

export async function* captureCopilot(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const incremental = options.cursor !== undefined;
  const cursor = cursorFor(AGENT, ref, options.cursor);
  const path = ref.path;
  const position = cursor.sources[path];
  const { size } = sourceExtent(path, position, 'Copilot events.jsonl');
  const state: CopilotState = (cursor.state as CopilotState | undefined) ?? newCopilotState();
  cursor.state = state;
  const emitter = emitterFor(cursor, AGENT, ref.native_id);
  const mapper = new CopilotMapper({ emitter, path, state, raw: options.raw, onDiagnostic: options.onDiagnostic });

  const start = (line: Line | undefined, record: Json | undefined): SpEvent => {
    const data = record && isObject(record.data) ? record.data : undefined;
    const payload = startPayload(ref.native_id, data);
    const workspace = readWorkspace(path);
    if (workspace?.name) payload.title = workspace.name;
    if (!payload.cwd && workspace?.cwd) payload.cwd = workspace.cwd;
    if (workspace) payload.workspace = workspace;
    if (!line) payload.header = false;
    const ts = toEpochSeconds(record?.timestamp) ?? toEpochSeconds(data?.startTime) ?? statSync(path).mtimeMs / 1000;
    return mapper.start(payload, ts, line);
  };

  let last: Line | undefined;
  try {
    for await (const line of captureLines(path, position, size, incremental)) {
      if (!state.started) {
        const record = jsonObject(line.text);
        if (line.number === 1 && record?.type === 'session.start') {
          yield start(line, record);
          last = line;
          continue;
        }
        if (line.number === 1) options.onDiagnostic?.(`${path}:1`, 'line 1 is not a session.start event: the client refuses such a file ("corrupted or incompatible"); read anyway');
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

/** The session id line 1 names (`session.start.data.sessionId`), if it does. */
export function sessionIdOfLine(text: string | undefined): string | undefined {
  const record = text ? jsonObject(text) : undefined;
  return record?.type === 'session.start' && isObject(record.data) ? str(record.data.sessionId) : undefined;
}
