// `capture` for Copilot CLI: one events.jsonl → session.start (from line 1 when it is the
// client's session.start, with workspace.yaml's name as the title), then every line in file order.
// Read up to the size the file had when capture started; with a cursor, capture continues after
// the last consumed line and a last line without its newline waits for the next run. The file is
// opened read-only, always.
import { statSync } from 'node:fs';
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { toEpochSeconds, type SpEvent } from '../../lib/core/event.js';
import { lineFile, readLineFile, type Opening } from '../../lib/formats/line-file.js';
import type { Line } from '../../lib/core/lines.js';
import { isObject, jsonObject, str, type Json } from '../../lib/core/json.js';
import { AGENT, CopilotMapper, newCopilotState, startPayload } from './events.js';
import { readWorkspace } from './paths.js';

export async function* captureCopilot(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const file = lineFile(AGENT, ref, options, 'Copilot events.jsonl', newCopilotState);
  const { path, state, emitter } = file;
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

  const open = (line: Line | undefined): Opening => {
    const record = line ? jsonObject(line.text) : undefined;
    if (line?.number === 1 && record?.type === 'session.start') return { start: start(line, record), header: true };
    if (line?.number === 1) options.onDiagnostic?.(`${path}:1`, 'line 1 is not a session.start event: the client refuses such a file ("corrupted or incompatible"); read anyway');
    return { start: start(undefined, undefined), header: false };
  };
  yield* readLineFile(file, options, open, (line) => mapper.line(line));
}

/** The session id line 1 names (`session.start.data.sessionId`), if it does. */
export function sessionIdOfLine(text: string | undefined): string | undefined {
  const record = text ? jsonObject(text) : undefined;
  return record?.type === 'session.start' && isObject(record.data) ? str(record.data.sessionId) : undefined;
}
