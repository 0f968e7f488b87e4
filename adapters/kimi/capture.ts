// `capture` for Kimi CLI: one context file → session.start (made up: the file has no header; the
// work dir comes from kimi.json, docs/formats/kimi.md §1), then every line in file order (§2). Read
// up to the size the file had when capture started; with a cursor, capture continues after the
// last consumed line and a last line without its newline waits for the next run. Read-only, always.
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { lineFile, readLineFile } from '../../lib/formats/line-file.js';
import type { Json } from '../../lib/core/json.js';
import { AGENT, KimiMapper, newKimiState } from './events.js';
import { wireStartTime } from './wire.js';

export async function* captureKimi(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const file = lineFile(AGENT, ref, options, 'Kimi CLI context .jsonl', newKimiState);
  const { path, mtime, state, emitter } = file;
  const mapper = new KimiMapper({ emitter, path, state, ts: mtime, raw: options.raw, onDiagnostic: options.onDiagnostic });

  const start = (): SpEvent => {
    const payload: Json = { native_id: ref.native_id, header: false };
    if (ref.cwd !== undefined) payload.cwd = ref.cwd;
    if (ref.title !== undefined) payload.title = ref.title;
    return mapper.start(payload, wireStartTime(path) ?? mtime);
  };
  yield* readLineFile(file, options, () => ({ start: start(), header: false }), (line) => mapper.line(line));
}
