// `capture` for Codex: a session is one rollout file, read line by line up to the size it had when
// capture started. With a cursor (incremental mode) the read continues after the last consumed
// line, a last line without its newline waits for the next run, and the mapper's state comes back
// from the cursor, so seqs, open tool calls and plan ids continue exactly.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { CaptureOptions, Cursor, SessionRef } from '../../lib/adapter.js';
import { UserError } from '../../lib/diagnostics.js';
import { SessionEmitter } from '../../lib/emitter.js';
import { canonicalSessionId, type SpEvent } from '../../lib/event.js';
import { assertSourceUnchanged, emptyCursor, positionAfter, sourceLines } from '../../lib/cursor.js';
import type { Line } from '../../lib/lines.js';
import { readTitles, scanHead } from './discover.js';
import { AGENT, homeOfRollout } from './paths.js';
import { RolloutMapper, newRolloutState, type HeadInfo, type RolloutState } from './rollout.js';

function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
}

function lastByte(path: string, size: number): number | undefined {
  if (size === 0) return undefined;
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(1);
    return readSync(fd, buffer, 0, 1, size - 1) === 1 ? buffer[0] : undefined;
  } finally {
    closeSync(fd);
  }
}

/** The events of one Codex rollout, unchained. */
export async function* captureCodex(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const incremental = options.cursor !== undefined;
  const cursor: Cursor = options.cursor ? structuredClone(options.cursor) : emptyCursor(AGENT, ref.native_id);
  if (cursor.native_id !== ref.native_id) {
    throw new UserError(`the cursor belongs to session ${cursor.native_id}, not ${ref.native_id}`);
  }
  const path = ref.path;
  const known = Object.keys(cursor.sources);
  if (known.length > 0 && !(path in cursor.sources)) {
    throw new UserError(`the cursor was stored for ${known[0]}; this session is now read from another file, so continuing could duplicate events`, path);
  }
  const state: RolloutState = (cursor.state as RolloutState | undefined) ?? newRolloutState();
  cursor.state = state;

  const position = cursor.sources[path];
  let size: number;
  let mtime: number;
  if (position) {
    size = assertSourceUnchanged(path, position);
    mtime = statSync(path).mtimeMs / 1000;
  } else {
    try {
      const stat = statSync(path);
      if (stat.isDirectory()) throw new UserError('is a directory, not a Codex rollout', path);
      size = stat.size;
      mtime = stat.mtimeMs / 1000;
    } catch (err) {
      if (err instanceof UserError) throw err;
      throw new UserError(`cannot read: ${errorCode(err)}`, path);
    }
  }

  const session = canonicalSessionId(AGENT, ref.native_id);
  const emitter = new SessionEmitter(AGENT, ref.native_id, { nextSeq: cursor.sessions[session]?.next_seq ?? 0 });
  let head: HeadInfo = {};
  const startExtra: Record<string, unknown> = {};
  if (!state.started) {
    head = await scanHead(path, size, { completeOnly: incremental });
    let title = typeof ref.title === 'string' ? ref.title : undefined;
    if (title === undefined) {
      const home = typeof ref.home === 'string' ? ref.home : homeOfRollout(path);
      if (home !== undefined) title = (await readTitles(home)).get(ref.native_id);
    }
    if (title !== undefined) head.title = title;
    if (options.raw) {
      // origin.raw lines joined with "\n" give the file; this says whether one more "\n" ends it.
      startExtra.raw_final_newline = incremental || size === 0 || lastByte(path, size) === 0x0a;
    }
  }
  const mapper = new RolloutMapper({
    emitter,
    path,
    state,
    raw: options.raw,
    artifactsDir: options.artifactsDir,
    onDiagnostic: options.onDiagnostic,
    head,
    fallbackTs: mtime,
    startExtra,
  });

  let last: Line | undefined;
  try {
    for await (const line of sourceLines(path, position?.offset ?? 0, size, (position?.line ?? 0) + 1)) {
      // A line still being written: an incremental capture reads it once its newline is there.
      if (!line.terminated && incremental) break;
      for (const event of mapper.line(line)) yield event;
      last = line;
    }
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`cannot read: ${errorCode(err)}`, path);
  }
  // An empty file is still a session; an incremental capture waits until it has a line.
  if (!state.started && !incremental) {
    for (const event of mapper.startOnly()) yield event;
  }
  if (last) cursor.sources[path] = positionAfter(path, last);
  if (state.started) cursor.sessions[session] = { ...cursor.sessions[session], next_seq: emitter.nextSeq };
  options.onCursor?.(cursor);
}

/** The files a follower of `ref` watches: the rollout itself. */
export function watchPaths(ref: SessionRef): string[] {
  return [ref.path];
}
