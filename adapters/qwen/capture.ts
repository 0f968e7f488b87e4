// `capture` for Qwen Code: one session file → session.start (envelope values from the first record,
// title and model from one pass), then every line in file order through the record mapper. With a
// cursor, capture continues after the last consumed line, a last line without its newline waits,
// and the mapper's state comes back from the cursor. The file is opened read-only.
import { statSync } from 'node:fs';
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { rawFinalNewline } from '../../lib/capture/read-position.js';
import { lineFile, readLineFile, type Opening } from '../../lib/formats/line-file.js';
import type { Json } from '../../lib/core/json.js';
import { readHead, summarize } from './discover.js';
import { AGENT, QwenMapper, SESSION_KEYS, newQwenState } from './records.js';

export async function* captureQwen(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const file = lineFile(AGENT, ref, options, 'Qwen Code session file', newQwenState);
  const { path, incremental, size, state, emitter } = file;
  const mapper = new QwenMapper({ emitter, path, state, raw: options.raw, onDiagnostic: options.onDiagnostic });

  const start = async (): Promise<SpEvent> => {
    const head = readHead(path) ?? {};
    const info = await summarize({ ...ref }).catch(() => ref);
    const level: Record<string, string> = {};
    for (const key of SESSION_KEYS) if (typeof head[key] === 'string') level[key] = head[key] as string;
    const payload: Json = { native_id: ref.native_id, source_path: path };
    if (level.cwd !== undefined) payload.cwd = level.cwd;
    if (level.version !== undefined) payload.version = level.version;
    if (level.gitBranch !== undefined) payload.git_branch = level.gitBranch;
    if (typeof info.model === 'string') payload.model = info.model;
    if (typeof info.title === 'string') payload.title = info.title;
    payload.envelope = level;
    if (options.raw) payload.raw_final_newline = rawFinalNewline(path, size, incremental);
    const ts = info.first_ts ?? statSync(path).mtimeMs / 1000;
    return mapper.start(payload, ts, level);
  };

  const open = async (): Promise<Opening> => ({ start: await start(), header: false });
  yield* readLineFile(file, options, open, (line) => mapper.line(line));
}
