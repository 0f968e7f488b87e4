// The capture of a session kept in one file of lines (JSONL), around the format's own mapping: the
// cursor it continues from, the size the file had when capture started (read no further), the
// session.start before the first mapped line, and where it stopped, stored for the next run. Every
// such capture reads through lib/capture/read-position.ts the same way; only how its session starts
// and how a line maps differ.
import type { CaptureOptions, Cursor, SessionRef, SourcePosition } from '../adapter/interface.js';
import { readError } from '../cli/diagnostics.js';
import type { SessionEmitter } from '../core/emitter.js';
import { toEpochSeconds, type Actor, type SpEvent } from '../core/event.js';
import { str, type Json } from '../core/json.js';
import type { Line } from '../core/lines.js';
import { nativeRawText, parseNativeLine, type NativeSource } from '../capture/native.js';
import { captureLines, cursorFor, emitterFor, sourceExtent, storeNextSeq, storePosition } from '../capture/read-position.js';

/** One file's capture: its cursor (a copy), where it continues, how far it reads, the mapper's state. */
export interface LineFile<S extends { started: boolean }> {
  path: string;
  incremental: boolean;
  cursor: Cursor;
  position: SourcePosition | undefined;
  size: number;
  mtime: number;
  /** The format's state, kept in the cursor between runs. */
  state: S;
  emitter: SessionEmitter;
}

/** How a session starts: its session.start, and whether the first line was its header (not mapped again). */
export interface Opening {
  start: SpEvent;
  header: boolean;
}

/** Opens `ref` for capture; `kind` names the kind of file in a diagnostic. */
export function lineFile<S extends { started: boolean }>(agent: string, ref: SessionRef, options: CaptureOptions, kind: string, newState: () => S): LineFile<S> {
  const cursor = cursorFor(agent, ref, options.cursor);
  const path = ref.path;
  const position = cursor.sources[path];
  const { size, mtime } = sourceExtent(path, position, kind);
  const state = (cursor.state as S | undefined) ?? newState();
  cursor.state = state;
  return { path, incremental: options.cursor !== undefined, cursor, position, size, mtime, state, emitter: emitterFor(cursor, agent, ref.native_id) };
}

/**
 * The file's events: `open` with the first line to read (undefined: an empty file, whose session
 * still starts unless the capture continues one), then every line through `map`. Then the cursor
 * holds where it stopped and goes to `onCursor`.
 */
export async function* readLineFile<S extends { started: boolean }>(
  file: LineFile<S>,
  options: CaptureOptions,
  open: (line: Line | undefined) => Opening | Promise<Opening>,
  map: (line: Line) => Iterable<SpEvent>,
): AsyncGenerator<SpEvent> {
  const { path, cursor, state, emitter } = file;
  let last: Line | undefined;
  try {
    for await (const line of captureLines(path, file.position, file.size, file.incremental)) {
      if (!state.started) {
        const { start, header } = await open(line);
        yield start;
        if (header) {
          last = line;
          continue;
        }
      }
      for (const event of map(line)) yield event;
      last = line;
    }
  } catch (err) {
    throw readError(err, path);
  }
  if (!state.started && !file.incremental) yield (await open(undefined)).start;
  storePosition(cursor, path, last);
  if (state.started) storeNextSeq(cursor, emitter);
  options.onCursor?.(cursor);
}

/** What a line format's mapper is built with: the file, --raw, the reporter, where events go, its state. */
export interface LineMapperOptions<S> extends NativeSource {
  emitter: SessionEmitter;
  state: S;
}

/** One event a line maps to, before it is emitted with the line's time and origin. */
export interface Pending {
  type: string;
  payload: Json;
  actor: Actor;
}

/** What a mapper whose results name their tool carries from line to line (and, in a cursor, from run to run). */
export interface CallNamesState {
  started: boolean;
  last_ts?: number;
  /** Tool name by call id: results name their tool. */
  names: Record<string, string>;
}

export function newCallNamesState(): CallNamesState {
  return { started: false, names: {} };
}

/** The origin of a session.start the file's header line gives: the line's number and, with --raw, its text. */
export function headerOrigin(source: NativeSource, line: Line): Json {
  const origin: Json = { native_seq: line.number };
  const raw = nativeRawText(source, line);
  if (raw !== undefined) origin.raw = [raw];
  return origin;
}

/**
 * One line for a mapper: its text for origin.raw (with --raw), its record when it is one, and what it
 * maps to: `dispatch` of the record, or the meta a blank line (`<agent>.blank-line`) or an
 * unparseable one is kept as.
 */
export function mapNativeLine(
  source: NativeSource,
  line: Line,
  agent: string,
  dispatch: (record: Json) => Pending[],
): { rawText: string | undefined; record: Json | undefined; pending: Pending[] } {
  const rawText = nativeRawText(source, line);
  const parsed = parseNativeLine(source, line);
  if (parsed.kind === 'blank') return { rawText, record: undefined, pending: [{ type: 'meta', payload: { key: `${agent}.blank-line` }, actor: 'system' }] };
  if (parsed.kind === 'unparseable') return { rawText, record: undefined, pending: [{ type: 'meta', payload: parsed.meta, actor: 'system' }] };
  return { rawText, record: parsed.record, pending: dispatch(parsed.record) };
}

/**
 * The mapper of a file of typed records that carry their own `timestamp` and `id`, one a line: a
 * line's events take the record's time (else the last one seen, else now) and its id as
 * origin.native_uuid. The format maps a record (`dispatch`) and names its levels.
 */
export abstract class TimedRecordMapper {
  constructor(
    protected readonly options: LineMapperOptions<CallNamesState>,
    private readonly agent: string,
    private readonly levelOf: (type: string) => 0 | 1 | 2,
  ) {}

  protected get state(): CallNamesState {
    return this.options.state;
  }

  /** session.start at `ts`; `origin` is the header line's, or {} when the start is made up. */
  protected emitStart(payload: Json, ts: number, origin: Json): SpEvent {
    this.state.started = true;
    this.state.last_ts = ts;
    return this.options.emitter.emit('session.start', payload, ts, { actor: 'system', level: 1, origin });
  }

  /** Events of one line; never throws on bad input (a bad line becomes meta). */
  line(line: Line): SpEvent[] {
    const { rawText, record, pending } = mapNativeLine(this.options, line, this.agent, (r) => this.dispatch(r));
    const ts = record ? toEpochSeconds(record.timestamp) : undefined;
    if (ts !== undefined) this.state.last_ts = ts;
    const at = ts ?? this.state.last_ts ?? Date.now() / 1000;
    return pending.map((p, i) => {
      const origin: Json = { native_seq: line.number };
      if (record && str(record.id)) origin.native_uuid = record.id;
      if (record) this.addOrigin(record, origin);
      if (i === 0 && rawText !== undefined) origin.raw = [rawText];
      return this.options.emitter.emit(p.type, p.payload, at, { actor: p.actor, level: this.levelOf(p.type), origin });
    });
  }

  /** What else of a record its events' origin holds (after native_uuid). */
  protected addOrigin(_record: Json, _origin: Json): void {}

  protected abstract dispatch(record: Json): Pending[];
}
