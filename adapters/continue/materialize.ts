// `sp-materialize continue`: canonical events → a NEW Continue CLI session (docs/formats/continue.md §6).
// What the client needs to resume it (`cn --fork <id>` by id, or `cn --resume`, which takes the newest
// session file), and what this writer does:
//   * `sessions/<id>.json` {sessionId, title, workspaceDirectory, history, usage}: a user item per
//     turn (editorState the same text, as the client saves it), an assistant item per run of text and
//     calls with `toolCalls` and, on the same item, `toolCallStates` holding each result (the client
//     turns them into `tool` messages when it sends the history); every call answered (a stub for a
//     call without a result), orphans dropped, ids [A-Za-z0-9_-];
//   * one entry appended to `sessions/sessions.json` (what `cn ls` lists): the index is backed up
//     first, parsed, the entry added, and written back atomically; the other entries are written as
//     they were read, and a change to the index between reading and writing is refused;
//   * the session is read from a spool on disk and its history written into the temp file item by
//     item (memory stays flat however long the session);
//   * both files are written to temps and take their names back to back (the session file never
//     over another): an interrupted write leaves neither; if the index cannot be written the session
//     file is removed again.
import { closeSync, constants, copyFileSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { writeTemp } from '../../lib/fs/atomic.js';
import { makePrivateDir, settleInterrupt } from '../../lib/fs/private.js';
import { beginWrite, type WriteStart } from '../../lib/write/begin.js';
import { activeBranchView } from '../../lib/write/branches.js';
import { jsonDocumentChunks, keepingText } from '../../lib/write/json-document-out.js';
import { PROVIDER_TOOL_ID, ToolIds } from '../../lib/write/plan.js';
import { turnsOf, type AssistantTurn, type Report, type ToolCall, type UserTurn } from '../../lib/write/turns.js';
import { ensureUnder, payloadOf, resumeFields, type WriterResult } from '../../lib/write/writer.js';
import { boundHeapGrowth } from '../../lib/write/heap-growth.js';
import { AGENT, DEFAULT_MODEL, HOME_ENV, NATIVE_ID, UNTITLED, builtInHome, defaultHome, indexPath, newSessionId, sessionPath, sessionsDir } from './paths.js';
import { backupName } from '../../lib/fs/backup.js';

export interface ContinueMaterializeResult extends WriterResult {
  title: string;
  /** The index the session was added to, and the backup made first. */
  registered: { index: string; backup?: string };
}

const RESULT_NAME = 'Tool Result';
const RESULT_DESCRIPTION = 'Tool execution result';

function userItem(turn: UserTurn, report: Report): Json | undefined {
  const parts: Json[] = [];
  for (const image of turn.images) {
    if (typeof image.data === 'string') parts.push({ type: 'imageUrl', imageUrl: { url: `data:${image.media_type ?? 'image/png'};base64,${image.data}` } });
    else report('dropped', 'image', 'an image stored by reference (no inline data): not written', turn.event);
  }
  for (const file of turn.files) report('rendered', 'file', `a file attachment written as a text marker: ${String(file.filename ?? file.url ?? 'attachment')}`, turn.event);
  const markers = turn.files.map((file) => `[file: ${String(file.filename ?? file.url ?? 'attachment')}]`);
  const text = [turn.text, ...markers].filter((t) => t !== '').join('\n');
  if (text === '' && parts.length === 0) return undefined;
  // Text alone is a string, as the client stores what is typed; with images, parts.
  const content = parts.length === 0 ? text : [...(text !== '' ? [{ type: 'text', text }] : []), ...parts];
  return { message: { role: 'user', content }, contextItems: [], editorState: content };
}

/** The assistant items of one turn: a run of text then the calls that follow it is one item. */
function assistantItems(turn: AssistantTurn, toolIds: ToolIds, report: Report, sameAgent: boolean): Json[] {
  const items: Json[] = [];
  let texts: string[] = [];
  let calls: ToolCall[] = [];
  let usage: Json | undefined;
  const flush = (): void => {
    if (texts.length === 0 && calls.length === 0) return;
    const message: Json = { role: 'assistant', content: texts.join('\n\n') };
    const states: Json[] = [];
    if (calls.length > 0) {
      const written = calls.map((c) => {
        if (!isObject(c.input)) report('transformed', 'tool-input', `tool call ${c.call_id} input is not an object: written as {input: …}`, c.event);
        const input = isObject(c.input) ? c.input : { input: c.input };
        return { call: c, input, native: { id: toolIds.id(c.call_id, c.event), type: 'function', function: { name: c.name, arguments: JSON.stringify(input) } } };
      });
      message.toolCalls = written.map((w) => w.native);
      for (const w of written) {
        states.push({
          toolCallId: w.native.id,
          toolCall: w.native,
          status: w.call.is_error ? 'errored' : 'done',
          parsedArgs: w.input,
          output: [{ content: w.call.content, name: RESULT_NAME, description: RESULT_DESCRIPTION }],
        });
      }
    }
    if (usage) message.usage = usage;
    const item: Json = { message, contextItems: [] };
    if (states.length > 0) item.toolCallStates = states;
    items.push(item);
    texts = [];
    calls = [];
    usage = undefined;
  };
  for (const part of turn.parts) {
    if (part.kind === 'text') {
      if (calls.length > 0) flush();
      if (part.text.trim() !== '') texts.push(part.text);
      const p = payloadOf(part.event);
      if (sameAgent && part.event.agent === AGENT && isObject(p.usage)) usage = p.usage;
    } else if (part.kind === 'thinking') {
      report('dropped', 'reasoning', 'reasoning: not written (the client replays a thinking item as an answer of its own)', part.event);
    } else calls.push(part.call);
  }
  flush();
  return items;
}

/** The index's text and entries; a missing index is empty, an unreadable one refuses the write. */
function readIndexFile(path: string): { text?: string; entries: unknown[]; mode: number } {
  if (!existsSync(path)) return { entries: [], mode: 0o600 };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read the session index: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; nothing was written`, path);
  }
  let value: unknown = [];
  if (text.trim() !== '') {
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new UserError(`the session index is not JSON (${(err as Error).message}); the client cannot index sessions either until it is fixed; nothing was written`, path);
    }
  }
  if (!Array.isArray(value)) throw new UserError('the session index is not a JSON list; nothing was written', path);
  return { text, entries: value, mode: statSync(path).mode & 0o777 };
}

/**
 * Creates the session file (`text`, its chunks as they are made) and appends `entry` (asked for once the file is written) to the index (backed up first unless `backup` is
 * false); returns the backup's path. Both files are written to temps first and take their names back
 * to back (the session file never over another, then the index), so an interrupted write leaves
 * neither; if the index cannot take its name the session file is removed again.
 */
function commit(file: string, text: Iterable<string>, index: string, entry: () => Json, sessionId: string, backup: boolean): string | undefined {
  const before = readIndexFile(index);
  if (before.entries.some((e) => isObject(e) && e.sessionId === sessionId)) throw new UserError(`the session index names ${sessionId} already; nothing was written`, index);
  let saved: string | undefined;
  if (backup && before.text !== undefined) {
    saved = backupName(index);
    copyFileSync(index, saved, constants.COPYFILE_EXCL);
  }
  const temps = [writeTemp(file, text, 0o600)];
  try {
    temps.push(writeTemp(index, [JSON.stringify([...before.entries, entry()], undefined, 2)], before.mode));
    // The client rewrites the index without a lock: a change since it was read is not overwritten.
    const now = existsSync(index) ? readFileSync(index, 'utf8') : undefined;
    if (now !== before.text) throw new UserError('the session index changed while sp was writing (is the client running?); nothing was written; try again', index);
    try {
      linkSync(temps[0], file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new UserError('a session with this id appeared meanwhile; nothing was written', file);
      throw err;
    }
    try {
      renameSync(temps[1], index);
    } catch (err) {
      rmSync(file, { force: true });
      throw err;
    }
  } finally {
    for (const temp of temps) {
      rmSync(temp, { force: true });
      settleInterrupt(temp);
    }
  }
  try {
    const dir = openSync(dirname(file), 'r');
    fsyncSync(dir);
    closeSync(dir);
  } catch {
    // Some filesystems cannot fsync a folder; the files themselves are durable.
  }
  return saved;
}

export async function materializeContinue(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<ContinueMaterializeResult> {
  boundHeapGrowth();
  const begun = await beginWrite(events, options, { agent: AGENT, displayName: 'Continue', nativeId: NATIVE_ID, newSessionId, defaultHome }, { spool: true });
  try {
    return writeContinue(begun, options);
  } finally {
    begun.selected.remove();
  }
}

/**
 * The first prompt (the title comes before the history in the document), from a pass of its own
 * over the turns (reports muted: the writing pass makes them); undefined when no user turn is written.
 */
function firstPromptOf(events: readonly SpEvent[], safety: boolean): { hasUser: boolean; prompt?: string } {
  let hasUser = false;
  for (const turn of turnsOf(events, () => {}, { safety })) {
    if (turn.role !== 'user') continue;
    hasUser = true;
    if (userItem(turn, () => {})) return { hasUser, prompt: turn.text };
  }
  return { hasUser };
}

// The session is read by position from its spool: once for the title, once to write the history
// straight into the file, one item at a time.
function writeContinue(begun: WriteStart, options: MaterializeOptions): ContinueMaterializeResult {
  const { selected, source: sp, report, ledger, sameAgent, safety, home, cwd, sessionId } = begun;
  const file = ensureUnder(home, sessionPath(home, sessionId), 'the home');
  const index = ensureUnder(home, indexPath(home), 'the home');
  if (existsSync(file)) throw new UserError('a session with this id exists already; nothing was written (never overwritten)', file);

  const chosen = options.branch === 'active' ? activeBranchView(selected.events, report) : selected.events;
  const first = firstPromptOf(chosen, safety);
  if (!first.hasUser) throw new UserError('nothing to write: the session has no user message');

  const toolIds = new ToolIds(PROVIDER_TOOL_ID, report, safety);
  let records = 0;
  let assistantItemCount = 0;
  let lastModel: string | undefined;
  function* history(): Generator<Json> {
    for (const turn of turnsOf(chosen, report, { safety })) {
      if (turn.role === 'user') {
        const item = userItem(turn, report);
        if (!item) continue;
        records += 1;
        yield item;
      } else if (turn.role === 'assistant') {
        lastModel = turn.model ?? lastModel;
        for (const item of assistantItems(turn, toolIds, report, sameAgent)) {
          records += 1;
          assistantItemCount += 1;
          yield item;
        }
      } else {
        const p = payloadOf(turn.event);
        const what = turn.event.type === 'meta' ? `meta ${String(p.key ?? '')}` : turn.event.type;
        report('dropped', turn.event.type, `${what} from ${turn.event.agent}: no Continue history item carries it`, turn.event);
      }
    }
  }

  const sourceTitle = str(sp.title);
  const title = (sourceTitle && sourceTitle !== UNTITLED ? sourceTitle : first.prompt?.split('\n')[0].slice(0, 80).trim()) || UNTITLED;
  const usage = { totalCost: 0, promptTokens: 0, completionTokens: 0, promptTokensDetails: { cachedTokens: 0, cacheWriteTokens: 0 } };
  const tail = { usage, ...(sameAgent && str(sp.mode) ? { mode: sp.mode } : {}) };
  const document = jsonDocumentChunks({ sessionId, title, workspaceDirectory: cwd }, 'history', history(), () => tail, 2);
  // The index entry counts the assistant items: asked for once the history is written.
  const created = String(Date.now());
  const entry = (): Json => ({ sessionId, title, dateCreated: created, workspaceDirectory: cwd, messageCount: assistantItemCount });

  // The preview (a dry run) is the document as one text; a write holds one item at a time.
  const preview = { text: '' };
  let backup: string | undefined;
  if (options.dryRun) for (const chunk of document) preview.text += chunk;
  else {
    makePrivateDir(sessionsDir(home));
    try {
      backup = commit(file, keepingText(document, options.onLine !== undefined, preview), index, entry, sessionId, options.backup !== false);
    } catch (err) {
      if (err instanceof UserError) throw err;
      throw new UserError(`cannot write the session (nothing was written): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, file);
    }
  }
  if (options.onLine) options.onLine(preview.text);

  const result: ContinueMaterializeResult = {
    agent: AGENT,
    session_id: sessionId,
    path: file,
    cwd,
    ...resumeFields(cwd, ['cn', '--fork', sessionId], { variable: HOME_ENV, value: home, builtIn: builtInHome() }),
    records,
    source_session: selected.session,
    changes: ledger.counts,
    written_as: 'rebuilt',
    model: options.model ?? lastModel ?? DEFAULT_MODEL,
    title,
    registered: { index, ...(backup ? { backup } : {}) },
  };
  if (options.dryRun) result.dry_run = true;
  return result;
}
