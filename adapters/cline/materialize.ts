// `sp-materialize cline`: canonical events → a NEW Cline CLI session,
// `$CLINE_DIR/data/sessions/<id>/` (docs/formats/cline.md §5). What the client needs to resume it
// (`cline --id <id>` in its terminal UI, or `session/load` over `cline --acp`), and what this writer does:
//   * `<id>.messages.json`: {version 1, updated_at, agent "lead", sessionId, origin, messages}, the
//     messages in the Anthropic Messages shape the client stores: a user text wrapped in
//     `<user_input mode="act">`, an assistant message with text / thinking / tool_use blocks, then one
//     user message per tool_result (the client merges them when it sends the history);
//   * `<id>.json`: the manifest (cwd, provider, model, title, status completed) the client adopts the
//     session from when its sessions.db does not know it (the database is never touched);
//   * every call answered (a stub for a call without a result), orphans dropped, ids [A-Za-z0-9_-]
//     (lib/write/plan.ts); a signature only back to Cline (it verifies only with the model that made it);
//   * the folder is built under a temporary name and renamed into place: it appears whole or not at all,
//     and an existing session is never touched; the session is read from a spool on disk and the
//     messages go into the file one at a time (memory stays flat however long the session).
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { createFolderAtomic } from '../../lib/write/folder.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { toIso, type SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { beginWrite, type WriteStart } from '../../lib/write/begin.js';
import { activeBranchView } from '../../lib/write/branches.js';
import { jsonDocumentChunks, keepingText } from '../../lib/write/json-document-out.js';
import { PROVIDER_TOOL_ID, ToolIds } from '../../lib/write/plan.js';
import { callsOf, turnsOf, turnsOutline, type AssistantTurn, type Report, type UserTurn } from '../../lib/write/turns.js';
import { ensureUnder, payloadOf, resumeFields, type WriterResult } from '../../lib/write/writer.js';
import { boundHeapGrowth } from '../../lib/write/heap-growth.js';
import { AGENT, CLINE_VERSION, DEFAULT_MODEL, HOME_ENV, MESSAGES_SUFFIX, NATIVE_ID, builtInHome, defaultHome, newSessionId, sessionsDir } from './paths.js';

export interface ClineMaterializeResult extends WriterResult {
  title?: string;
}

function messageId(): string {
  return `msg_${randomBytes(6).toString('base64url')}`;
}

/** The user's words as the client stores them (the wrapper says which mode they were typed in). */
function wrapUserInput(text: string, mode = 'act'): string {
  return `<user_input mode="${/^[a-z]+$/.test(mode) ? mode : 'act'}">${text}</user_input>`;
}

export async function materializeCline(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<ClineMaterializeResult> {
  boundHeapGrowth();
  const begun = await beginWrite(events, options, { agent: AGENT, displayName: 'Cline', nativeId: NATIVE_ID, newSessionId, defaultHome }, { spool: true });
  try {
    return writeCline(begun, options);
  } finally {
    begun.selected.remove();
  }
}

/** What the message steps share: the report, the tool ids, the clock and what the manifest learns on the way. */
interface MessageContext {
  report: Report;
  sameAgent: boolean;
  model: string;
  provider: string;
  toolIds: ToolIds;
  /** A time for a message (ms), never going backwards, never in the future. */
  at: (ts: number | undefined) => number;
  seen: { records: number; title: string | undefined; prompt: string | undefined };
}

/** A user turn as one user message (texts wrapped, images inline or as markers); undefined when nothing is left. */
function userMessage(turn: UserTurn, ctx: MessageContext): Json | undefined {
  const p = payloadOf(turn.event);
  const mode = turn.event.agent === AGENT && str(p.user_input_mode) ? (p.user_input_mode as string) : 'act';
  const content: Json[] = [];
  if (turn.text !== '') content.push({ type: 'text', text: wrapUserInput(turn.text, mode) });
  for (const image of turn.images) {
    if (typeof image.data === 'string') content.push({ type: 'image', source: { type: 'base64', media_type: image.media_type ?? 'image/png', data: image.data } });
    else {
      content.push({ type: 'text', text: `[image: ${image.media_type ?? 'image'} (not carried over)]` });
      ctx.report('rendered', 'image', 'an image stored by reference (no inline data) written as a text marker', turn.event);
    }
  }
  for (const file of turn.files) {
    content.push({ type: 'text', text: `[file: ${String(file.filename ?? file.url ?? 'attachment')}]` });
    ctx.report('rendered', 'file', 'a file attachment written as a text marker', turn.event);
  }
  if (content.length === 0) return undefined;
  ctx.seen.prompt ??= turn.text;
  ctx.seen.title ??= turn.text.split('\n')[0].slice(0, 80);
  return { id: randomUUID(), role: 'user', content, ts: ctx.at(turn.event.ts) };
}

/** An assistant turn: its message (text, thinking, tool_use), then one user message per tool_result. */
function* assistantMessages(turn: AssistantTurn, ctx: MessageContext): Generator<Json> {
  const { report, sameAgent } = ctx;
  const content: Json[] = [];
  const calls = callsOf(turn);
  const ids = new Map(calls.map((c) => [c, ctx.toolIds.id(c.call_id, c.event)]));
  for (const part of turn.parts) {
    if (part.kind === 'text') {
      if (part.text.trim() !== '') content.push({ type: 'text', text: part.text });
    } else if (part.kind === 'thinking') {
      if (sameAgent && part.event.agent === AGENT && part.signature) content.push({ type: 'thinking', thinking: part.text, signature: part.signature });
      else if (sameAgent && part.event.agent === AGENT && part.opaque) content.push({ type: 'redacted_thinking', data: part.opaque });
      else report('dropped', 'reasoning', 'reasoning without a signature the provider verifies: not written (the API refuses an unsigned thinking block)', part.event);
    } else {
      const c = part.call;
      if (!isObject(c.input)) report('transformed', 'tool-input', `tool call ${c.call_id} input is not an object: written as {input: …}`, c.event);
      content.push({ type: 'tool_use', id: ids.get(c)!, name: c.name, input: isObject(c.input) ? c.input : { input: c.input } });
    }
  }
  if (content.length === 0) return;
  const message: Json = { id: messageId(), role: 'assistant', content, ts: ctx.at(turn.ts) };
  message.modelInfo = { id: turn.model ?? ctx.model, provider: ctx.provider };
  ctx.seen.records += 1;
  yield message;
  for (const c of calls) {
    const result: Json = { type: 'tool_result', tool_use_id: ids.get(c)!, name: c.name, content: c.content };
    if (c.is_error) result.is_error = true;
    ctx.seen.records += 1;
    yield { id: messageId(), role: 'user', content: [result], ts: ctx.at(c.result?.ts ?? c.event.ts) };
  }
}

/** An item no Cline message carries: reported as dropped. */
function dropOther(event: SpEvent, report: Report): void {
  const p = payloadOf(event);
  if (event.type === 'meta') report('dropped', 'meta', `meta ${String(p.key ?? '')} from ${event.agent}: no Cline message carries it`, event);
  else report('dropped', event.type, `${event.type} from ${event.agent}: no Cline message carries it`, event);
}

/** The manifest `<id>.json` the client adopts the session from (title and prompt known once the messages are written). */
function manifest(at: { sessionId: string; started: string; updated: string; provider: string; model: string; cwd: string; file: string }, seen: MessageContext['seen']): Json {
  const { prompt, title } = seen;
  return {
    version: 1,
    session_id: at.sessionId,
    source: 'cli',
    pid: 0,
    started_at: at.started,
    ended_at: at.updated,
    exit_code: 0,
    status: 'completed',
    interactive: false,
    provider: at.provider,
    model: at.model,
    cwd: at.cwd,
    workspace_root: at.cwd,
    enable_tools: true,
    enable_spawn: true,
    enable_teams: true,
    ...(prompt !== undefined ? { prompt: wrapUserInput(prompt) } : {}),
    metadata: { sessionHistoryOrigin: { mode: 'user', version: CLINE_VERSION }, ...(title ? { title: title.replace(/\s+/g, ' ').trim() } : {}) },
    messages_path: at.file,
  };
}

/**
 * The session folder built under a temp name and renamed into place (whole or not at all): the
 * messages document written as it is made, then the manifest.
 */
function writeFolder(root: string, dir: string, sessionId: string, document: Iterable<string>, manifestText: () => string): void {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  createFolderAtomic(root, dir, `sp-${sessionId}`, [
    [`${sessionId}${MESSAGES_SUFFIX}`, () => document],
    [`${sessionId}.json`, () => [manifestText()]],
  ]);
}

// The session is read by position from its spool: once for what the document's head needs (a user
// message at all, the model), once to write the messages straight into the file, one at a time.
function writeCline(begun: WriteStart, options: MaterializeOptions): ClineMaterializeResult {
  const { selected, source: sp, ledger, report, sameAgent, safety, home, cwd, sessionId } = begun;
  const start = selected.start;
  const root = sessionsDir(home);
  const dir = ensureUnder(home, join(root, sessionId), 'the home');
  if (existsSync(dir)) throw new UserError('a session with this id exists already; nothing was written (never overwritten)', dir);

  const chosen = options.branch === 'active' ? activeBranchView(selected.events, report) : selected.events;
  const outline = turnsOutline(chosen, { safety });
  if (!outline.hasUser) throw new UserError('nothing to write: the session has no user message');

  const model = options.model ?? (sameAgent ? str(sp.model) ?? outline.lastModel : undefined) ?? DEFAULT_MODEL;
  const provider = sameAgent && str(sp.provider) ? (sp.provider as string) : 'anthropic';
  const now = Date.now();
  let clock = typeof start?.ts === 'number' ? Math.round(start.ts * 1000) : now;
  const ctx: MessageContext = {
    report,
    sameAgent,
    model,
    provider,
    toolIds: new ToolIds(PROVIDER_TOOL_ID, report, safety),
    // Events without a source time take the previous one.
    at: (ts) => {
      if (typeof ts === 'number' && Number.isFinite(ts) && ts * 1000 > clock) clock = Math.round(ts * 1000);
      return Math.min(clock, now);
    },
    seen: { records: 0, title: str(sp.title), prompt: undefined },
  };

  function* messages(): Generator<Json> {
    for (const turn of turnsOf(chosen, report, { safety })) {
      if (turn.role === 'user') {
        const message = userMessage(turn, ctx);
        if (message === undefined) continue;
        ctx.seen.records += 1;
        yield message;
      } else if (turn.role === 'assistant') yield* assistantMessages(turn, ctx);
      else dropOther(turn.event, report);
    }
  }

  const updated = toIso(now / 1000);
  const origin = { source: 'cli', mode: 'user', sessionId, version: CLINE_VERSION };
  // A Cline source's system prompt goes back with it; for other sources the client builds its own.
  const tail = sameAgent && typeof sp.system_prompt === 'string' ? { system_prompt: sp.system_prompt } : {};
  const document = jsonDocumentChunks({ version: 1, updated_at: updated, agent: 'lead', sessionId, origin }, 'messages', messages(), () => tail);
  const file = join(dir, `${sessionId}${MESSAGES_SUFFIX}`);
  const started = toIso((typeof start?.ts === 'number' ? Math.min(start.ts * 1000, now) : now) / 1000);

  // The preview (a dry run) is the document as one text; a write holds one message at a time.
  const preview = { text: '' };
  if (options.dryRun) for (const chunk of document) preview.text += chunk;
  else {
    const manifestText = (): string => JSON.stringify(manifest({ sessionId, started, updated, provider, model, cwd, file }, ctx.seen), null, 2);
    writeFolder(root, dir, sessionId, keepingText(document, options.onLine !== undefined, preview), manifestText);
  }
  if (options.onLine) options.onLine(preview.text);

  const title = ctx.seen.title;
  const result: ClineMaterializeResult = {
    agent: AGENT,
    session_id: sessionId,
    path: file,
    cwd,
    ...resumeFields(cwd, ['cline', '--id', sessionId], { variable: HOME_ENV, value: home, builtIn: builtInHome() }),
    records: ctx.seen.records,
    source_session: selected.session,
    changes: ledger.counts,
    written_as: 'rebuilt',
    model,
  };
  if (title) result.title = title;
  if (options.dryRun) result.dry_run = true;
  return result;
}
