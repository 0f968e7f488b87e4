// `capture` for Codex: a session is one rollout file, read line by line up to the size it had when
// capture started. With a cursor (incremental mode) the read continues after the last consumed
// line, a last line without its newline waits for the next run, and the mapper's state comes back
// from the cursor, so seqs, open tool calls and plan ids continue exactly.
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { readError } from '../../lib/cli/diagnostics.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureLines, cursorFor, emitterFor, rawFinalNewline, sourceExtent, storeNextSeq, storePosition } from '../../lib/capture/read-position.js';
import type { Line } from '../../lib/core/lines.js';
import { readTitles, scanHead } from './discover.js';
import { AGENT, homeOfRollout } from './paths.js';
import { RolloutMapper, newRolloutState, type HeadInfo, type RolloutState } from './rollout.js';

/** The events of one Codex rollout, unchained. */
export async function* captureCodex(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const incremental = options.cursor !== undefined;
  const cursor = cursorFor(AGENT, ref, options.cursor);
  const path = ref.path;
  const state: RolloutState = (cursor.state as RolloutState | undefined) ?? newRolloutState();
  cursor.state = state;

  const position = cursor.sources[path];
  const { size, mtime } = sourceExtent(path, position, 'Codex rollout');

  const emitter = emitterFor(cursor, AGENT, ref.native_id);
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
    if (options.raw) startExtra.raw_final_newline = rawFinalNewline(path, size, incremental);
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
    for await (const line of captureLines(path, position, size, incremental)) {
      for (const event of mapper.line(line)) yield event;
      last = line;
    }
  } catch (err) {
    throw readError(err, path);
  }
  // An empty file is still a session; an incremental capture waits until it has a line.
  if (!state.started && !incremental) {
    for (const event of mapper.startOnly()) yield event;
  }
  storePosition(cursor, path, last);
  if (state.started) storeNextSeq(cursor, emitter);
  options.onCursor?.(cursor);
}
