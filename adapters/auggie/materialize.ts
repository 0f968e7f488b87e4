// `sp-materialize auggie`: canonical events → a NEW Auggie session, `<cache dir>/sessions/<uuid>.json`
// (docs/formats/auggie.md §5). What the client needs to resume it (`auggie -r <id>`), and what this
// writer does:
//   * one JSON document {sessionId, created, modified, chatHistory, agentState}; the client sends
//     every exchange's request and response nodes as `chat_history` on the next request;
//   * an exchange is one request (the user's text node, or the tool results answering the calls of
//     the exchange before, then an IDE state node naming the cwd) and one response (text and tool_use
//     nodes in order); a user message right after tool results shares their request;
//   * every call answered (a stub for a call without a result), orphans dropped, ids [A-Za-z0-9_-]
//     (lib/write/plan.ts); reasoning is not written (the client replays none);
//   * no task list is written (the client makes one on resume: its task storage is never touched);
//   * the session is read from a spool on disk and the history written into the temp file one
//     exchange at a time (memory stays flat however long the session);
//   * the file is created atomically, never over an existing one.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { toIso, type SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { createFileAtomic } from '../../lib/fs/atomic.js';
import { beginWrite, type WriteStart } from '../../lib/write/begin.js';
import { activeBranchView } from '../../lib/write/branches.js';
import { jsonDocumentChunks, keepingText } from '../../lib/write/json-document-out.js';
import { PROVIDER_TOOL_ID, ToolIds } from '../../lib/write/plan.js';
import { callsOf, turnsOf, type AssistantTurn, type Report, type UserTurn } from '../../lib/write/turns.js';
import { ensureUnder, payloadOf, resumeFields, type WriterResult } from '../../lib/write/writer.js';
import { boundHeapGrowth } from '../../lib/write/heap-growth.js';
import { REQUEST_IDE_STATE, REQUEST_TEXT, REQUEST_TOOL_RESULT, RESPONSE_TEXT, RESPONSE_TOOL_USE } from './exchange.js';
import { AGENT, CACHE_DIR_FLAG, NATIVE_ID, builtInHome, defaultHome, newSessionId, sessionPath, sessionsDir } from './paths.js';

export interface AuggieMaterializeResult extends WriterResult {
  title?: string;
}

/** The request written before an answer that opens the session. */
const LEADING_REQUEST = '(The session continues from here.)';

interface Exchange {
  request_message: string;
  response_text: string;
  request_id: string;
  request_nodes: Json[];
  response_nodes: Json[];
}

/**
 * Builds `chatHistory` one exchange at a time; times never go backwards nor into the future. An
 * entry is complete when the next one opens (a response grows until then): `take()` gives the
 * completed ones, so a writer holds one exchange at a time.
 */
class HistoryBuilder {
  /** Entries made so far. */
  count = 0;
  private done: Json[] = [];
  private last?: Json;
  private current?: Exchange;
  /** Tool results the next request carries (the calls of the last response). */
  private pending: Json[] = [];
  private clock: number;

  constructor(
    private readonly cwd: string,
    start: number,
    private readonly now: number,
  ) {
    this.clock = start;
  }

  at(ts: number | undefined): string {
    if (typeof ts === 'number' && Number.isFinite(ts) && ts * 1000 > this.clock) this.clock = Math.round(ts * 1000);
    return toIso(Math.min(this.clock, this.now) / 1000);
  }

  private open(ts: number | undefined, text?: string): Exchange {
    const nodes: Json[] = [...this.pending];
    this.pending = [];
    if (text !== undefined) nodes.push({ id: 0, type: REQUEST_TEXT, text_node: { content: text } });
    nodes.push({ id: 0, type: REQUEST_IDE_STATE, ide_state_node: { workspace_folders: [{ repository_root: this.cwd, folder_root: this.cwd }], workspace_folders_unchanged: this.count > 0, current_terminal: { terminal_id: 0, current_working_directory: this.cwd } } });
    nodes.forEach((node, i) => (node.id = i + 1));
    const exchange: Exchange = { request_message: text ?? '', response_text: '', request_id: randomUUID(), request_nodes: nodes, response_nodes: [] };
    if (this.last) this.done.push(this.last);
    this.count += 1;
    this.last = { exchange, completed: true, sequenceId: this.count, finishedAt: this.at(ts), changedFiles: [], changedFilesSkipped: [], changedFilesSkippedCount: 0, source: 'local' };
    this.current = exchange;
    return exchange;
  }

  /** The entries completed since the last call (all of them once `finish` was called). */
  take(): Json[] {
    const done = this.done;
    this.done = [];
    return done;
  }

  user(turn: UserTurn): void {
    this.open(turn.event.ts, turn.text);
  }

  /** The response of the current exchange; a new exchange when results are waiting or none is open. */
  assistant(turn: AssistantTurn, ids: ToolIds, report: Report): void {
    let exchange: Exchange;
    if (this.pending.length > 0) exchange = this.open(turn.ts);
    else if (this.current) exchange = this.current;
    else {
      // A request needs words (a model API refuses an empty turn): the session's opening answer gets a stub request.
      exchange = this.open(turn.ts, LEADING_REQUEST);
      report('stubbed', 'leading-assistant', `an assistant message with no user message before it: written after a stub request "${LEADING_REQUEST}"`, turn.events[0]);
    }
    const texts: string[] = [];
    for (const part of turn.parts) {
      const id = exchange.response_nodes.length;
      const ms = Date.parse(this.at(part.kind === 'call' ? part.call.event.ts : part.event.ts));
      if (part.kind === 'text') {
        if (part.text.trim() === '') continue;
        exchange.response_nodes.push({ id, type: RESPONSE_TEXT, content: part.text, timestamp_ms: ms });
        texts.push(part.text);
      } else if (part.kind === 'thinking') {
        report('dropped', 'reasoning', 'reasoning: not written (Auggie replays no reasoning to its models)', part.event);
      } else {
        const c = part.call;
        const toolUseId = ids.id(c.call_id, c.event);
        if (!isObject(c.input)) report('transformed', 'tool-input', `tool call ${c.call_id} input is not an object: written as {input: …}`, c.event);
        const input = isObject(c.input) ? c.input : { input: c.input };
        exchange.response_nodes.push({ id, type: RESPONSE_TOOL_USE, content: '', tool_use: { tool_use_id: toolUseId, tool_name: c.name, input_json: JSON.stringify(input) }, timestamp_ms: ms });
        this.pending.push({ id: 0, type: REQUEST_TOOL_RESULT, tool_result_node: { tool_use_id: toolUseId, content: c.content, is_error: c.is_error } });
      }
    }
    exchange.response_text = [exchange.response_text, ...texts].filter((t) => t !== '').join('\n');
  }

  /** Results of the last response still waiting: one more exchange carries them (its response empty). */
  finish(): void {
    if (this.pending.length > 0) this.open(undefined);
    if (this.last) this.done.push(this.last);
    this.last = undefined;
  }
}

export async function materializeAuggie(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<AuggieMaterializeResult> {
  boundHeapGrowth();
  const begun = await beginWrite(events, options, { agent: AGENT, displayName: 'Auggie', nativeId: NATIVE_ID, newSessionId, defaultHome }, { spool: true });
  try {
    return writeAuggie(begun, options);
  } finally {
    begun.selected.remove();
  }
}

// The session is read by position from its spool: once to know it has a user message, once to write
// the history straight into the file, one exchange at a time.
function writeAuggie(begun: WriteStart, options: MaterializeOptions): AuggieMaterializeResult {
  const { selected, source: sp, ledger, report, sameAgent, safety, home, cwd, sessionId } = begun;
  const start = selected.start;
  const root = sessionsDir(home);
  const path = ensureUnder(home, sessionPath(home, sessionId), 'the home');

  const chosen = options.branch === 'active' ? activeBranchView(selected.events, report) : selected.events;
  if (!hasUserTurn(chosen, safety)) throw new UserError('nothing to write: the session has no user message');

  const now = Date.now();
  const started = typeof start?.ts === 'number' ? Math.min(Math.round(start.ts * 1000), now) : now;
  const history = new HistoryBuilder(cwd, started, now);
  const toolIds = new ToolIds(PROVIDER_TOOL_ID, report, safety);
  let title = str(sp.title);
  function* entries(): Generator<Json> {
    for (const turn of turnsOf(chosen, report, { safety })) {
      if (turn.role === 'user') {
        for (const image of turn.images) report('dropped', 'image', `an image (${image.media_type ?? 'image'}) in a user message: not written (the writer carries text only)`, turn.event);
        for (const file of turn.files) report('rendered', 'file', `a file attachment written as a text marker`, turn.event);
        const markers = turn.files.map((f) => `[file: ${String(f.filename ?? f.url ?? 'attachment')}]`);
        const text = [turn.text, ...markers].filter((t) => t !== '').join('\n');
        if (text === '') continue;
        title ??= text.split('\n')[0].slice(0, 80);
        history.user({ ...turn, text });
      } else if (turn.role === 'assistant') {
        if (callsOf(turn).length > 0 || turn.parts.length > 0) history.assistant(turn, toolIds, report);
      } else {
        const p = payloadOf(turn.event);
        const what = turn.event.type === 'meta' ? `meta ${String(p.key ?? '')}` : turn.event.type;
        report('dropped', turn.event.type === 'meta' ? 'meta' : turn.event.type, `${what} from ${turn.event.agent}: no Auggie exchange carries it`, turn.event);
      }
      yield* history.take();
    }
    history.finish();
    yield* history.take();
  }

  const header = sameAgent && isObject(sp.header) ? sp.header : undefined;
  const sourceState = header && isObject(header.agentState) ? header.agentState : undefined;
  const model = options.model ?? (sameAgent ? str(sourceState?.modelId) : undefined) ?? '';
  const agentState: Json = { userGuidelines: str(sourceState?.userGuidelines) ?? '', workspaceGuidelines: str(sourceState?.workspaceGuidelines) ?? '', modelId: model };
  const document = jsonDocumentChunks({ sessionId, created: toIso(started / 1000), modified: toIso(now / 1000) }, 'chatHistory', entries(), () => ({ agentState }));

  // The preview (a dry run) is the document as one text; a write holds one exchange at a time.
  const preview = { text: '' };
  if (options.dryRun) for (const chunk of document) preview.text += chunk;
  else {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    ensureUnder(home, path, 'the home');
    createFileAtomic(path, keepingText(document, options.onLine !== undefined, preview), 0o600);
  }
  if (options.onLine) options.onLine(preview.text);

  const argv = home === builtInHome() ? ['auggie', '-r', sessionId] : ['auggie', CACHE_DIR_FLAG, home, '-r', sessionId];
  const result: AuggieMaterializeResult = {
    agent: AGENT,
    session_id: sessionId,
    path,
    cwd,
    ...resumeFields(cwd, argv),
    records: history.count,
    source_session: selected.session,
    changes: ledger.counts,
    written_as: 'rebuilt',
    model,
  };
  if (title) result.title = title;
  if (options.dryRun) result.dry_run = true;
  return result;
}

/** Whether any user turn is written (a pass of its own, its reports muted: the writing pass makes them). */
function hasUserTurn(events: readonly SpEvent[], safety: boolean): boolean {
  for (const turn of turnsOf(events, () => {}, { safety })) if (turn.role === 'user') return true;
  return false;
}
