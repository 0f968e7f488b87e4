// `capture` for Claude Code's transcript format (Claude Code's own sessions, and Qoder CLI's): a
// session is its transcript plus side files, read in this order:
//   1. the main transcript (session.start, then every line; forks inline after the Agent call),
//   2. forks for subagents no call claimed inline, then todo events for `tasks/<id>/*.json`,
//   3. each subagent transcript as its own child session.
// Every file is read up to the size it had when capture started. With a cursor (incremental
// mode) each file continues after its last consumed line, a last line without its newline waits
// for the next run, and the mapper's state comes back from the cursor so seqs, parent links,
// pending tool calls and todo ids continue exactly.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { CaptureOptions, Cursor, SessionRef } from '../../adapter/interface.js';
import { errorCode, readError } from '../../cli/diagnostics.js';
import type { SessionEmitter } from '../../core/emitter.js';
import { canonicalSessionId, type SpEvent } from '../../core/event.js';
import { assertSourceUnchanged, captureLines, cursorFor, emitterFor, rawFinalNewline, sha256Hex, sourceExtent, storeNextSeq, storePosition } from '../../capture/read-position.js';
import type { Line } from '../../core/lines.js';
import { listSubagentFiles, readSubagentMeta, scanHead, type HeadInfo } from './discover.js';
import { fileHistoryDir, layoutOf, subagentsDir, tasksDir } from './paths.js';
import { AGENT, SESSION_KEYS, TranscriptMapper, newFileState, subagentInfo, type FileState, type SubagentInfo } from './transcript.js';

/** What a transcript cursor keeps between runs (Cursor.state). */
export interface TranscriptCaptureState {
  /** Per transcript path: the mapper's state. */
  files: Record<string, FileState>;
  /** Per task file: the SHA-256 of the content last emitted. */
  tasks: Record<string, string>;
  /** Subagent ids that already have their session.fork in the parent. */
  forks: Record<string, boolean>;
}

interface FileJob {
  path: string;
  nativeId: string;
  /** Main transcripts: their subagents, to link forks inline. */
  subagents?: SubagentInfo[];
  /** Subagent transcripts: who they are and whose child. */
  subagent?: SubagentInfo;
  parentSession?: string;
  home?: string;
}

/** The events of one Claude session (and its subagents), unchained. */
export async function* captureTranscript(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const incremental = options.cursor !== undefined;
  const cursor = cursorFor(AGENT, ref, options.cursor);
  // Check every file the cursor read before emitting anything, so a rewritten subagent file cannot
  // leave half a capture behind.
  for (const [path, position] of Object.entries(cursor.sources)) assertSourceUnchanged(path, position);
  const state: TranscriptCaptureState = (cursor.state as TranscriptCaptureState | undefined) ?? { files: {}, tasks: {}, forks: {} };
  cursor.state = state;
  const layout = layoutOf(ref.path);
  const home = typeof ref.home === 'string' ? ref.home : layout.home;
  const reader = new FileReader(cursor, state, options, incremental);

  if (layout.subagent) {
    // A subagent transcript asked for on its own: one child session, no side files.
    const { parentNativeId, agentId } = layout.subagent;
    const metaPath = join(subagentsDir(layout.subagent.parentPath), `agent-${agentId}.meta.json`);
    const info = subagentInfo(parentNativeId, agentId, ref.path, readSubagentMeta(metaPath, (what) => options.onDiagnostic?.(metaPath, what)));
    yield* reader.read({ path: ref.path, nativeId: ref.native_id, subagent: info, parentSession: canonicalSessionId(AGENT, parentNativeId), home });
  } else {
    const subagents = listSubagentFiles(ref.path).map((f) =>
      subagentInfo(ref.native_id, f.agentId, f.path, readSubagentMeta(f.metaPath, (what) => options.onDiagnostic?.(f.metaPath, what))),
    );
    const main = yield* reader.read({ path: ref.path, nativeId: ref.native_id, subagents, home });
    if (main && state.files[ref.path]?.started) {
      for (const event of main.finish(!incremental)) yield event;
      if (home !== undefined) yield* taskEvents(tasksDir(home, ref.native_id), main, state, options, incremental);
      reader.commit(main);
    }
    const parentSession = canonicalSessionId(AGENT, ref.native_id);
    for (const sub of subagents) yield* reader.read({ path: sub.path, nativeId: sub.nativeId, subagent: sub, parentSession, home });
  }
  options.onCursor?.(cursor);
}

/** todo events for task files that are new or changed since the last run. */
async function* taskEvents(dir: string, mapper: TranscriptMapper, state: TranscriptCaptureState, options: CaptureOptions, incremental: boolean): AsyncGenerator<SpEvent> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return; // no task list for this session
  }
  names.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  for (const name of names) {
    const path = join(dir, name);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      options.onDiagnostic?.(path, `cannot read: ${errorCode(err)}; skipped`);
      continue;
    }
    const digest = sha256Hex(text);
    if (state.tasks[path] === digest) continue;
    let task: unknown;
    try {
      task = JSON.parse(text);
    } catch {
      task = undefined;
    }
    if (typeof task !== 'object' || task === null || Array.isArray(task)) {
      // The client may be rewriting it right now: an incremental run tries again next time.
      if (incremental) continue;
      options.onDiagnostic?.(path, 'not a JSON object; kept as meta');
      state.tasks[path] = digest;
      yield mapper.metaFor(path, { key: 'claude.tasks-file.unparseable', text });
      continue;
    }
    state.tasks[path] = digest;
    yield mapper.taskFile(path, task as Record<string, unknown>);
  }
}

/** Reads transcripts for one capture, sharing its cursor. */
class FileReader {
  private readonly emitters = new Map<TranscriptMapper, SessionEmitter>();

  constructor(
    private readonly cursor: Cursor,
    private readonly state: TranscriptCaptureState,
    private readonly options: CaptureOptions,
    private readonly incremental: boolean,
  ) {}

  /** Stores where a session's seq numbering stands (after events were added outside `read`). */
  commit(mapper: TranscriptMapper): void {
    const emitter = this.emitters.get(mapper);
    if (emitter) storeNextSeq(this.cursor, emitter);
  }

  async *read(job: FileJob): AsyncGenerator<SpEvent, TranscriptMapper | undefined> {
    const { path } = job;
    const position = this.cursor.sources[path];
    const { size } = sourceExtent(path, position, 'Claude transcript');
    const fileState = (this.state.files[path] ??= newFileState());
    const emitter = emitterFor(this.cursor, AGENT, job.nativeId);
    const mapper = new TranscriptMapper({
      emitter,
      path,
      state: fileState,
      raw: this.options.raw,
      artifactsDir: this.options.artifactsDir,
      fileHistoryDir: job.home !== undefined && !job.subagent ? fileHistoryDir(job.home, job.nativeId) : undefined,
      onDiagnostic: this.options.onDiagnostic,
      subagents: job.subagents,
      forks: this.state.forks,
    });
    this.emitters.set(mapper, emitter);

    let last: Line | undefined;
    try {
      for await (const line of captureLines(path, position, size, this.incremental)) {
        if (!fileState.started) yield await this.start(job, mapper, size);
        for (const event of mapper.line(line)) yield event;
        last = line;
      }
    } catch (err) {
      throw readError(err, path);
    }
    // An empty file is still a session; an incremental capture waits until it has a line.
    if (!fileState.started && !this.incremental) yield await this.start(job, mapper, size);
    storePosition(this.cursor, path, last);
    if (fileState.started) storeNextSeq(this.cursor, emitter);
    return mapper;
  }

  private async start(job: FileJob, mapper: TranscriptMapper, size: number): Promise<SpEvent> {
    const head: HeadInfo = await scanHead(job.path, size, { completeOnly: this.incremental });
    const level: Record<string, string | boolean> = {};
    for (const key of SESSION_KEYS) {
      if (key === 'isSidechain') level.isSidechain = job.subagent !== undefined;
      else if (head[key] !== undefined) level[key] = head[key]!;
    }
    const payload: Record<string, unknown> = { native_id: job.nativeId, source_path: job.path };
    if (head.cwd !== undefined) payload.cwd = head.cwd;
    if (head.gitBranch !== undefined) payload.git_branch = head.gitBranch;
    if (head.version !== undefined) payload.version = head.version;
    if (head.model !== undefined) payload.model = head.model;
    if (head.title !== undefined) payload.title = head.title;
    if (head.entrypoint !== undefined) payload.entrypoint = head.entrypoint;
    payload.envelope = level;
    if (this.options.raw) payload.raw_final_newline = rawFinalNewline(job.path, size, this.incremental);
    if (job.subagent) {
      const sub = job.subagent;
      if (job.parentSession !== undefined) payload.parent_session = job.parentSession;
      payload.agent_id = sub.agentId;
      if (sub.agentType !== undefined) payload.agent_type = sub.agentType;
      if (sub.description !== undefined) payload.description = sub.description;
      if (sub.spawnDepth !== undefined) payload.spawn_depth = sub.spawnDepth;
      if (sub.toolUseId !== undefined) payload.call_id = sub.toolUseId;
    }
    let ts = head.firstTs;
    if (ts === undefined) {
      // No timestamp anywhere in the head: the file's own time is the best source time there is.
      ts = statSync(job.path).mtimeMs / 1000;
    }
    return mapper.start(payload, ts, level);
  }
}

/** The files and folders a follower of `ref` watches: the transcript, its subagents, its tasks. */
export function watchPaths(ref: SessionRef): string[] {
  const layout = layoutOf(ref.path);
  const paths = [ref.path];
  if (layout.subagent) return paths;
  const subDir = subagentsDir(ref.path);
  paths.push(subDir, ...listSubagentFiles(ref.path).map((f) => f.path));
  const home = typeof ref.home === 'string' ? ref.home : layout.home;
  if (home !== undefined) paths.push(tasksDir(home, basename(ref.path, '.jsonl')));
  return paths;
}
