// `capture` for Pi: one session file → session.start (from line 1, the header), then every line in
// file order. The file is read up to the size it had when capture started. With a cursor
// (incremental mode) capture continues after the last consumed line, a last line without its
// newline waits for the next run, and the mapper's state comes back from the cursor so seqs, parent
// links and pending tool calls continue exactly. The user's file is opened read-only, always.
import { statSync } from 'node:fs';
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { readError } from '../../lib/cli/diagnostics.js';
import { canonicalSessionId, type SpEvent } from '../../lib/core/event.js';
import { captureLines, cursorFor, emitterFor, rawFinalNewline, sourceExtent, sourceLines, storeNextSeq, storePosition } from '../../lib/capture/read-position.js';
import type { Line } from '../../lib/core/lines.js';
import { isObject, jsonObject, str, type Json } from '../../lib/core/json.js';
import { AGENT, PiMapper, newPiState, sourceTime, type PiState } from './entries.js';
import { PackedSeqs } from './entry-seqs.js';
import { isHeader, versionOf } from './format.js';
import { idFromFileName } from './paths.js';

const HEADER_KEYS = new Set(['type', 'version', 'id', 'timestamp', 'cwd', 'parentSession', 'branchedFrom', 'provider', 'modelId', 'thinkingLevel']);

interface HeadInfo {
  title?: string;
  model?: string;
  provider?: string;
  /** The entry of the last entry line: the leaf the client resumes. */
  leaf?: { native_uuid?: string; native_seq: number };
  firstEntryTs?: number;
}

/**
 * What session.start announces beyond the header: the latest session_info name, the first model,
 * and the active leaf. One streaming pass; lines are parsed only when a cheap text test says they
 * may matter, so a 2 MB session costs a few milliseconds.
 */
async function scanSession(path: string, size: number, completeOnly: boolean): Promise<HeadInfo> {
  const info: HeadInfo = {};
  // The last few non-blank lines: the leaf is the last one that parses as an entry.
  const tail: Line[] = [];
  for await (const line of sourceLines(path, 0, size, 1)) {
    if (completeOnly && !line.terminated) break;
    if (line.number === 1 || line.text.trim() === '') continue;
    tail.push(line);
    if (tail.length > 4) tail.shift();
    const text = line.text;
    if (info.firstEntryTs === undefined) info.firstEntryTs = sourceTime(jsonObject(text)?.timestamp);
    if (text.includes('"session_info"')) {
      const entry = jsonObject(text);
      if (entry?.type === 'session_info') {
        if (typeof entry.name === 'string' && entry.name.trim() !== '') info.title = entry.name;
        else delete info.title; // an empty name clears it
      }
    }
    if (info.model === undefined && (text.includes('"model_change"') || text.includes('"assistant"'))) {
      const entry = jsonObject(text);
      if (entry?.type === 'model_change' && typeof entry.modelId === 'string') {
        info.model = entry.modelId;
        if (typeof entry.provider === 'string') info.provider = entry.provider;
      } else if (entry?.type === 'message' && isObject(entry.message) && entry.message.role === 'assistant' && typeof entry.message.model === 'string') {
        info.model = entry.message.model;
        if (typeof entry.message.provider === 'string') info.provider = entry.message.provider;
      }
    }
  }
  for (let i = tail.length - 1; i >= 0; i -= 1) {
    const entry = jsonObject(tail[i].text);
    if (entry && !isHeader(entry)) {
      info.leaf = { native_seq: tail[i].number };
      if (typeof entry.id === 'string') info.leaf.native_uuid = entry.id;
      break;
    }
  }
  return info;
}

/** The events of one Pi session, unchained. */
export async function* capturePi(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const incremental = options.cursor !== undefined;
  const cursor = cursorFor(AGENT, ref, options.cursor);
  const path = ref.path;
  const position = cursor.sources[path];
  const { size } = sourceExtent(path, position, 'Pi session file');
  const state: PiState = (cursor.state as PiState | undefined) ?? newPiState();
  // Nobody continues a one-shot capture: its entry index can be packed (a few bytes an entry).
  if (!incremental) state.entries = new PackedSeqs();
  cursor.state = state;
  const emitter = emitterFor(cursor, AGENT, ref.native_id);
  const mapper = new PiMapper({ emitter, path, state, raw: options.raw, artifactsDir: options.artifactsDir, onDiagnostic: options.onDiagnostic });

  const start = async (headerLine: Line | undefined, header: Json | undefined): Promise<SpEvent> => {
    const head = await scanSession(path, size, incremental);
    const payload: Json = { native_id: ref.native_id, source_path: path };
    if (header) {
      if (typeof header.cwd === 'string') payload.cwd = header.cwd;
      payload.format_version = versionOf(header);
      if (typeof header.parentSession === 'string') payload.parent_session_path = header.parentSession;
      if (typeof header.branchedFrom === 'string') payload.branched_from = header.branchedFrom;
      // A fork (v3 parentSession, v1 branchedFrom) names its source file; its id is in the file name.
      const parentId = idFromFileName(str(header.parentSession) ?? str(header.branchedFrom) ?? '');
      if (parentId !== undefined) payload.parent_session = canonicalSessionId(AGENT, parentId);
      if (typeof header.thinkingLevel === 'string') payload.thinking_level = header.thinkingLevel;
      // v1 headers name the model the session was created with; later ones leave it to model_change entries.
      if (typeof header.modelId === 'string') {
        head.model = header.modelId;
        head.provider = typeof header.provider === 'string' ? header.provider : undefined;
      }
      const extra: Json = {};
      for (const [key, value] of Object.entries(header)) if (!HEADER_KEYS.has(key)) extra[key] = value;
      if (Object.keys(extra).length > 0) payload.header_extra = extra;
      if (typeof header.timestamp === 'string') payload.created = header.timestamp;
    } else {
      payload.header = false;
    }
    if (head.model !== undefined) payload.model = head.model;
    if (head.provider !== undefined) payload.provider = head.provider;
    if (head.title !== undefined) payload.title = head.title;
    if (head.leaf !== undefined) payload.active_leaf = head.leaf;
    if (options.raw) payload.raw_final_newline = rawFinalNewline(path, size, incremental);
    // No time in the header or the entries: the file's own time is the best source time there is.
    const ts = sourceTime(header?.timestamp) ?? head.firstEntryTs ?? statSync(path).mtimeMs / 1000;
    return mapper.start(payload, ts, headerLine);
  };

  let last: Line | undefined;
  try {
    for await (const line of captureLines(path, position, size, incremental)) {
      if (!state.started) {
        const value = jsonObject(line.text);
        if (line.number === 1 && isHeader(value)) {
          yield await start(line, value);
          mapper.useHeader(value);
          last = line;
          continue;
        }
        if (line.number === 1 && value !== undefined) {
          options.onDiagnostic?.(`${path}:1`, 'line 1 is not a session header {"type":"session","id":…}: the client would rewrite this file; read as a v1 session');
        }
        yield await start(undefined, undefined);
        mapper.useHeader(undefined, value);
      }
      for (const event of mapper.line(line)) yield event;
      last = line;
    }
  } catch (err) {
    throw readError(err, path);
  }
  // An empty file is still a session; an incremental capture waits until it has a line.
  if (!state.started && !incremental) {
    yield await start(undefined, undefined);
    mapper.useHeader(undefined);
  }
  storePosition(cursor, path, last);
  if (state.started) storeNextSeq(cursor, emitter);
  options.onCursor?.(cursor);
}
