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
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { createFileAtomic, newTempPath } from '../../lib/fs/atomic.js';
import { removeOnInterrupt } from '../../lib/fs/private.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { toIso, type SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { beginWrite, type WriteStart } from '../../lib/write/begin.js';
import { activeBranchView } from '../../lib/write/branches.js';
import { jsonDocumentChunks, keepingText } from '../../lib/write/json-document-out.js';
import { PROVIDER_TOOL_ID, ToolIds } from '../../lib/write/plan.js';
import { callsOf, turnsOf, turnsOutline } from '../../lib/write/turns.js';
import { ensureUnder, payloadOf, resumeFields, type WriterResult } from '../../lib/write/writer.js';
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
  const begun = await beginWrite(events, options, { agent: AGENT, displayName: 'Cline', nativeId: NATIVE_ID, newSessionId, defaultHome }, { spool: true });
  try {
    return writeCline(begun, options);
  } finally {
    begun.selected.remove();
  }
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
  // Times never go backwards and never lie in the future (events without a source time take the previous one).
  const at = (ts: number | undefined): number => {
    if (typeof ts === 'number' && Number.isFinite(ts) && ts * 1000 > clock) clock = Math.round(ts * 1000);
    return Math.min(clock, now);
  };
  const toolIds = new ToolIds(PROVIDER_TOOL_ID, report, safety);
  let records = 0;
  let title = str(sp.title);
  let prompt: string | undefined;

  function* messages(): Generator<Json> {
    for (const turn of turnsOf(chosen, report, { safety })) {
      if (turn.role === 'user') {
        const p = payloadOf(turn.event);
        const mode = turn.event.agent === AGENT && str(p.user_input_mode) ? (p.user_input_mode as string) : 'act';
        const content: Json[] = [];
        if (turn.text !== '') content.push({ type: 'text', text: wrapUserInput(turn.text, mode) });
        for (const image of turn.images) {
          if (typeof image.data === 'string') content.push({ type: 'image', source: { type: 'base64', media_type: image.media_type ?? 'image/png', data: image.data } });
          else {
            content.push({ type: 'text', text: `[image: ${image.media_type ?? 'image'} (not carried over)]` });
            report('rendered', 'image', 'an image stored by reference (no inline data) written as a text marker', turn.event);
          }
        }
        for (const file of turn.files) {
          content.push({ type: 'text', text: `[file: ${String(file.filename ?? file.url ?? 'attachment')}]` });
          report('rendered', 'file', 'a file attachment written as a text marker', turn.event);
        }
        if (content.length === 0) continue;
        prompt ??= turn.text;
        title ??= turn.text.split('\n')[0].slice(0, 80);
        records += 1;
        yield { id: randomUUID(), role: 'user', content, ts: at(turn.event.ts) };
      } else if (turn.role === 'assistant') {
        const content: Json[] = [];
        const calls = callsOf(turn);
        const ids = new Map(calls.map((c) => [c, toolIds.id(c.call_id, c.event)]));
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
        if (content.length === 0) continue;
        const message: Json = { id: messageId(), role: 'assistant', content, ts: at(turn.ts) };
        message.modelInfo = { id: turn.model ?? model, provider };
        records += 1;
        yield message;
        for (const c of calls) {
          const result: Json = { type: 'tool_result', tool_use_id: ids.get(c)!, name: c.name, content: c.content };
          if (c.is_error) result.is_error = true;
          records += 1;
          yield { id: messageId(), role: 'user', content: [result], ts: at(c.result?.ts ?? c.event.ts) };
        }
      } else {
        const event = turn.event;
        const p = payloadOf(event);
        if (event.type === 'meta') report('dropped', 'meta', `meta ${String(p.key ?? '')} from ${event.agent}: no Cline message carries it`, event);
        else report('dropped', event.type, `${event.type} from ${event.agent}: no Cline message carries it`, event);
      }
    }
  }

  const updated = toIso(now / 1000);
  const origin = { source: 'cli', mode: 'user', sessionId, version: CLINE_VERSION };
  // A Cline source's system prompt goes back with it; for other sources the client builds its own.
  const tail = sameAgent && typeof sp.system_prompt === 'string' ? { system_prompt: sp.system_prompt } : {};
  const document = jsonDocumentChunks({ version: 1, updated_at: updated, agent: 'lead', sessionId, origin }, 'messages', messages(), () => tail);
  const file = join(dir, `${sessionId}${MESSAGES_SUFFIX}`);
  const started = toIso((typeof start?.ts === 'number' ? Math.min(start.ts * 1000, now) : now) / 1000);
  // Title and first prompt are known once the messages are written.
  const manifest = (): Json => ({
    version: 1,
    session_id: sessionId,
    source: 'cli',
    pid: 0,
    started_at: started,
    ended_at: updated,
    exit_code: 0,
    status: 'completed',
    interactive: false,
    provider,
    model,
    cwd,
    workspace_root: cwd,
    enable_tools: true,
    enable_spawn: true,
    enable_teams: true,
    ...(prompt !== undefined ? { prompt: wrapUserInput(prompt) } : {}),
    metadata: { sessionHistoryOrigin: { mode: 'user', version: CLINE_VERSION }, ...(title ? { title: title.replace(/\s+/g, ' ').trim() } : {}) },
    messages_path: file,
  });

  // The preview (a dry run) is the document as one text; a write holds one message at a time.
  const preview = { text: '' };
  if (options.dryRun) for (const chunk of document) preview.text += chunk;
  else {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    const staging = newTempPath(root, `sp-${sessionId}`);
    const release = removeOnInterrupt(staging);
    try {
      mkdirSync(staging, { mode: 0o700 });
      createFileAtomic(join(staging, `${sessionId}${MESSAGES_SUFFIX}`), keepingText(document, options.onLine !== undefined, preview), 0o600);
      createFileAtomic(join(staging, `${sessionId}.json`), [JSON.stringify(manifest(), null, 2)], 0o600);
      if (existsSync(dir)) throw new UserError('a session with this id appeared meanwhile; nothing was written', dir);
      renameSync(staging, dir);
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      if (err instanceof UserError) throw err;
      throw new UserError(`cannot write the session: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, dir);
    } finally {
      release();
    }
  }
  if (options.onLine) options.onLine(preview.text);

  const result: ClineMaterializeResult = {
    agent: AGENT,
    session_id: sessionId,
    path: file,
    cwd,
    ...resumeFields(cwd, ['cline', '--id', sessionId], { variable: HOME_ENV, value: home, builtIn: builtInHome() }),
    records,
    source_session: selected.session,
    changes: ledger.counts,
    written_as: 'rebuilt',
    model,
  };
  if (title) result.title = title;
  if (options.dryRun) result.dry_run = true;
  return result;
}
