// `capture` for Kimi CLI: one context file → session.start (made up: the file has no header; the
// work dir comes from kimi.json, docs/formats/kimi.md §1), then every line in file order (§2). Read
// up to the size the file had when capture started; with a cursor, capture continues after the
// last consumed line and a last line without its newline waits for the next run. Read-only, always.
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { readError } from '../../lib/cli/diagnostics.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureLines, cursorFor, emitterFor, sourceExtent, storeNextSeq, storePosition } from '../../lib/capture/read-position.js';
import type { Line } from '../../lib/core/lines.js';
import type { Json } from '../../lib/core/json.js';
import { AGENT, KimiMapper, newKimiState, type KimiState } from './events.js';
import { wireStartTime } from './wire.js';

export async function* captureKimi(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const incremental = options.cursor !== undefined;
  const cursor = cursorFor(AGENT, ref, options.cursor);
  const path = ref.path;
  const position = cursor.sources[path];
  const { size, mtime } = sourceExtent(path, position, 'Kimi CLI context .jsonl');
  const state: KimiState = (cursor.state as KimiState | undefined) ?? newKimiState();
  cursor.state = state;
  const emitter = emitterFor(cursor, AGENT, ref.native_id);
  const mapper = new KimiMapper({ emitter, path, state, ts: mtime, raw: options.raw, onDiagnostic: options.onDiagnostic });

  const start = (): SpEvent => {
    const payload: Json = { native_id: ref.native_id, header: false };
    if (ref.cwd !== undefined) payload.cwd = ref.cwd;
    if (ref.title !== undefined) payload.title = ref.title;
    return mapper.start(payload, wireStartTime(path) ?? mtime);
  };

  let last: Line | undefined;
  try {
    for await (const line of captureLines(path, position, size, incremental)) {
      if (!state.started) yield start();
      for (const event of mapper.line(line)) yield event;
      last = line;
    }
  } catch (err) {
    throw readError(err, path);
  }
  if (!state.started && !incremental) yield start();
  storePosition(cursor, path, last);
  if (state.started) storeNextSeq(cursor, emitter);
  options.onCursor?.(cursor);
}
