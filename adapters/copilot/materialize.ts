// `sp-materialize copilot`: canonical events → a NEW Copilot CLI session,
// `$COPILOT_HOME/session-state/<uuid>/events.jsonl` (docs/formats/copilot.md §3–§5). What the client
// needs, and what this writer does:
//   * line 1 `session.start` {sessionId = the folder name, version 1, producer, copilotVersion,
//     startTime, context.cwd}; every line an envelope {type, data, id: UUID, timestamp: ISO with Z,
//     parentId: the previous line's id} (the client validates every line and refuses the file on one bad one);
//   * `user.message` {content} per user turn; one `assistant.message` {messageId, content,
//     toolRequests[{toolCallId, name, arguments (object), type}], reasoningText} per assistant turn,
//     each call followed by its `tool.execution_complete` {toolCallId, success, result.content |
//     error.message} (a stub for a call without a result: an unanswered call breaks the provider API);
//   * a Copilot source's compaction as `session.compaction_complete` (the client replaces what came
//     before with its summary); reasoning signatures only back to Copilot's own Anthropic wire;
//   * the folder is built under a temporary name and renamed into place: it appears whole or not at all,
//     and an existing session is never touched. A workspace.yaml (cwd, name) lets pickers show it.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { createFolderAtomic } from '../../lib/write/folder.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { toIso, type SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { beginWrite, type WriteStart } from '../../lib/write/begin.js';
import { PROVIDER_TOOL_ID, ToolIds } from '../../lib/write/plan.js';
import { activeBranchView } from '../../lib/write/branches.js';
import { SpooledLines } from '../../lib/write/spool.js';
import { callsOf, turnsOf, turnsOutline, type AssistantTurn, type Report, type UserTurn } from '../../lib/write/turns.js';
import { ensureUnder, payloadOf, resumeFields, type WriterResult } from '../../lib/write/writer.js';
import { AGENT } from './events.js';
import { builtInHome, defaultHome, EVENTS_FILE, HOME_ENV, NATIVE_ID, sessionStateDir, yamlScalar } from './paths.js';

/** The client version the written files claim (the one the writer was verified with). */
export const COPILOT_VERSION = '1.0.102';

export interface CopilotMaterializeResult extends WriterResult {
  title?: string;
}

function envelope(type: string, data: Json, ts: number, parentId: string | null): Json {
  return { type, data, id: randomUUID(), timestamp: toIso(ts), parentId };
}

/** Copilot source fields carried back as they were (same agent: its own bookkeeping). */
function copilotExtra(event: SpEvent): Json {
  if (event.agent !== AGENT) return {};
  const extra = payloadOf(event).extra;
  return isObject(extra) ? extra : {};
}

/** The lines of the new events.jsonl as they are made, spooled to disk: each an envelope chained to the one before. */
class EventLines {
  readonly lines = new SpooledLines();
  private parent: string | null = null;
  private ts: number;

  constructor(
    start: number,
    private readonly now: number,
  ) {
    this.ts = start;
  }

  push(type: string, data: Json, at?: number): void {
    // Timestamps never go backwards (events without a source time take the previous one).
    if (typeof at === 'number' && Number.isFinite(at) && at > this.ts) this.ts = at;
    const line = envelope(type, data, Math.min(this.ts, this.now), this.parent);
    this.parent = line.id as string;
    this.lines.push(JSON.stringify(line));
  }
}

interface TurnContext {
  out: EventLines;
  report: Report;
  sameAgent: boolean;
  model?: string;
  /** The tool id written for a call (and its result). */
  callId: (id: string, event: SpEvent) => string;
}

export async function materializeCopilot(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<CopilotMaterializeResult> {
  const begun = await beginWrite(events, options, { agent: AGENT, displayName: 'Copilot', nativeId: NATIVE_ID, newSessionId: randomUUID, defaultHome }, { spool: true });
  try {
    return writeCopilot(begun, options);
  } finally {
    begun.selected.remove();
  }
}

function writeCopilot(begun: WriteStart, options: MaterializeOptions): CopilotMaterializeResult {
  const { selected, source: sp, ledger, report, sameAgent, safety, home, cwd, sessionId } = begun;
  const start = selected.start;
  const root = sessionStateDir(home);
  const dir = ensureUnder(home, join(root, sessionId), 'the home');
  if (existsSync(dir)) throw new UserError('a session with this id exists already; nothing was written (never overwritten)', dir);

  // The session is read twice by position: once for what line 1 needs (a model), once to write.
  const chosen = options.branch === 'active' ? activeBranchView(selected.events, report) : selected.events;
  const outline = turnsOutline(chosen, { safety });
  if (!outline.hasUser) throw new UserError('nothing to write: the session has no user message');

  const model = options.model ?? (sameAgent ? str(sp.model) ?? outline.lastModel : undefined);
  const now = Date.now() / 1000;
  const out = new EventLines(typeof start?.ts === 'number' ? start.ts : now, now);
  try {
    const startData: Json = { sessionId, version: 1, producer: 'copilot-agent', copilotVersion: COPILOT_VERSION, startTime: toIso(now) };
    if (model) startData.selectedModel = model;
    const context: Json = { cwd };
    if (str(sp.git_branch)) context.branch = sp.git_branch;
    if (str(sp.git_head)) context.headCommit = sp.git_head;
    startData.context = context;
    out.push('session.start', startData, start?.ts);

    // Ids the provider APIs accept, unique in the file (results are matched by them): lib/write/plan.ts.
    const toolIds = new ToolIds(PROVIDER_TOOL_ID, report);
    const ctx: TurnContext = { out, report, sameAgent, model, callId: (id, event) => toolIds.id(id, event) };
    let title: string | undefined = str(sp.title);
    for (const turn of turnsOf(chosen, report, { safety })) {
      if (turn.role === 'user') {
        const firstLine = writeUser(turn, ctx);
        title ??= firstLine;
      }
      else if (turn.role === 'assistant') writeAssistant(turn, ctx);
      else writeOther(turn.event, ctx);
    }

    if (options.onLine) for (const line of out.lines.lines()) options.onLine(line);
    if (!options.dryRun) writeFolder(root, dir, sessionId, out.lines, { cwd, title, created: toIso(now) });

    const result: CopilotMaterializeResult = {
      agent: AGENT,
      session_id: sessionId,
      path: join(dir, EVENTS_FILE),
      cwd,
      ...resumeFields(cwd, ['copilot', `--resume=${sessionId}`], { variable: HOME_ENV, value: home, builtIn: builtInHome() }),
      records: out.lines.length,
      source_session: selected.session,
      changes: ledger.counts,
      written_as: 'rebuilt',
    };
    if (model) result.model = model;
    if (title) result.title = title;
    if (options.dryRun) result.dry_run = true;
    return result;
  } finally {
    out.lines.remove();
  }
}

/** A user turn as `user.message`; returns the title it would give (its first line). */
function writeUser(turn: UserTurn, { out, report, sameAgent }: TurnContext): string {
  const p = payloadOf(turn.event);
  let text = turn.text;
  for (const image of turn.images) {
    text += `${text ? '\n' : ''}[image: ${image.media_type ?? 'image'} (not carried over)]`;
    report('rendered', 'image', 'an image in a user message written as a text marker (events.jsonl holds attachments as file paths only)', turn.event);
  }
  for (const file of turn.files) {
    text += `${text ? '\n' : ''}[file: ${String(file.filename ?? file.url ?? 'attachment')}${file.url ? ` (${String(file.url)})` : ''}]`;
    report('rendered', 'file', 'a file attachment written as a text marker (its content, when the model saw it, is in the text around it)', turn.event);
  }
  const data: Json = { content: text, ...copilotExtra(turn.event) };
  if (sameAgent && turn.event.agent === AGENT && typeof p.transformed_content === 'string') data.transformedContent = p.transformed_content;
  if (sameAgent && str(p.message_id)) data.messageId = p.message_id;
  else data.messageId = randomUUID();
  out.push('user.message', data, turn.event.ts);
  return text.split('\n')[0].slice(0, 80);
}

/** An assistant turn as one `assistant.message`, then each call's `tool.execution_complete`. */
function writeAssistant(turn: AssistantTurn, { out, report, sameAgent, model, callId }: TurnContext): void {
  const texts = turn.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : []));
  const thinking = turn.parts.flatMap((p) => (p.kind === 'thinking' ? [p] : []));
  const calls = callsOf(turn);
  const first = turn.events[0];
  const data: Json = { ...copilotExtra(first) };
  data.messageId = sameAgent && str(payloadOf(first).message_id) ? payloadOf(first).message_id : randomUUID();
  if (turn.model ?? model) data.model = turn.model ?? model;
  data.content = texts.join('\n\n');
  const ids = calls.map((c) => callId(c.call_id, c.event));
  data.toolRequests = calls.map((c, i) => ({ toolCallId: ids[i], name: c.name, arguments: isObject(c.input) ? c.input : { input: c.input }, type: 'function' }));
  calls.forEach((c) => {
    if (!isObject(c.input)) report('transformed', 'tool-input', `tool call ${c.call_id} input is not an object: written as {input: …}`, c.event);
  });
  if (thinking.length > 0) {
    data.reasoningText = thinking.map((t) => t.text).join('\n\n');
    const signed = thinking.filter((t) => t.signature);
    const blocks = sameAgent ? thinking.map((t) => payloadOf(t.event).reasoning_blocks).find(isObject) : undefined;
    if (blocks) {
      data.reasoningBlocks = blocks;
      const opaque = thinking.map((t) => payloadOf(t.event).reasoning_opaque).find((v) => typeof v === 'string');
      if (opaque) data.reasoningOpaque = opaque;
    } else if (signed.length > 0) {
      report('transformed', 'reasoning-signature', 'reasoning written as text; its signature stays behind (it only verifies with the model and wire that made it)', signed[0].event);
    }
  }
  out.push('assistant.message', data, first.ts);
  calls.forEach((c, i) => {
    const result: Json = { toolCallId: ids[i], success: !c.is_error };
    if (c.is_error) result.error = { message: c.content, code: 'failure' };
    else result.result = { content: c.content };
    if (c.result && c.result.agent === AGENT) {
      const extra = payloadOf(c.result).extra;
      if (isObject(extra)) Object.assign(result, extra, { toolCallId: ids[i] });
    }
    out.push('tool.execution_complete', result, c.result?.ts ?? c.event.ts);
  });
}

/** What a turn cannot hold: Copilot's own compaction is written back, the rest reported. */
function writeOther(event: SpEvent, { out, report, sameAgent }: TurnContext): void {
  const p = payloadOf(event);
  if (event.type === 'checkpoint' && p.kind === 'compaction' && typeof p.summary === 'string' && sameAgent && event.agent === AGENT) {
    out.push('session.compaction_start', {}, event.ts);
    out.push('session.compaction_complete', { ...(isObject(p.extra) ? p.extra : {}), success: true, summaryContent: p.summary }, event.ts);
  } else if (event.type === 'checkpoint' && p.kind === 'compaction') {
    report('dropped', 'compaction', `a ${event.agent} compaction: not written, the whole history is written instead (Copilot would drop everything before it)`, event);
  } else if (event.type === 'meta') {
    report('dropped', 'meta', `meta ${String(p.key ?? '')} from ${event.agent}: no Copilot event carries it`, event);
  } else {
    report('dropped', event.type, `${event.type} from ${event.agent}: no Copilot event carries it`, event);
  }
}

/** The session folder, built under a temporary name and renamed into place (whole or not at all). */
function writeFolder(root: string, dir: string, sessionId: string, lines: SpooledLines, about: { cwd: string; title?: string; created: string }): void {
  mkdirSync(root, { recursive: true });
  const { cwd, title, created } = about;
  const yaml = [`id: ${sessionId}`, `cwd: ${yamlScalar(cwd)}`, ...(title ? [`name: ${yamlScalar(title.replace(/\s+/g, ' ').trim())}`] : []), 'user_named: false', 'summary_count: 0', 'fork_count: 0', `created_at: ${created}`, `updated_at: ${created}`, ''];
  createFolderAtomic(root, dir, `sp-${sessionId}`, [
    [EVENTS_FILE, () => lines.chunks()],
    ['workspace.yaml', () => [yaml.join('\n')]],
  ]);
}
