// `sp-materialize droid`: canonical events → a NEW Factory Droid session,
// `<home>/sessions/<cwd slug>/<uuid>.jsonl` plus its `<uuid>.settings.json` (docs/formats/droid.md
// §1–§3). What the client needs, and what this writer does:
//   * line 1 `session_start` {id = the file name, title, owner, version 2, cwd} (the loader refuses a
//     file without it);
//   * then `message` records {id, parentId: the previous message, timestamp, message: {role, content}}
//     in conversation order, Anthropic-style blocks: a user turn's text; one assistant record per
//     assistant turn (text, then tool_use blocks); right after it one user record with a tool_result
//     for each call (a stub for a call without a result: an unanswered call breaks the provider API);
//   * signed thinking goes back only to Droid's own sessions; other agents' reasoning is dropped and
//     reported, as are compactions, meta and derived events;
//   * the session is read from a spool on disk and its records written into a temp file as they are
//     made (memory stays flat however long the session); then the settings sidecar is created and
//     the session file takes its name last, neither overwriting anything: discovery keys on the
//     .jsonl, so the session appears whole or not at all.
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { createFileAtomic, writeTemp } from '../../lib/fs/atomic.js';
import { removeOnInterrupt, settleInterrupt } from '../../lib/fs/private.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { toIso, type SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { beginWrite, type WriteStart } from '../../lib/write/begin.js';
import { activeBranchView } from '../../lib/write/branches.js';
import { PROVIDER_TOOL_ID, ToolIds } from '../../lib/write/plan.js';
import { callsOf, turnsOf, turnsOutline, type Report, type UserTurn } from '../../lib/write/turns.js';
import { ensureComponent, ensureUnder, lineChunks, payloadOf, resumeFields, type WriterResult } from '../../lib/write/writer.js';
import { boundHeapGrowth } from '../../lib/write/heap-growth.js';
import { AGENT } from './events.js';
import { CLIENT_HOME_ENV, DEFAULT_MODEL, NATIVE_ID, builtInHome, defaultHome, projectSlug, sessionsDir } from './paths.js';

export interface DroidMaterializeResult extends WriterResult {
  title?: string;
}

export async function materializeDroid(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<DroidMaterializeResult> {
  boundHeapGrowth();
  const begun = await beginWrite(events, options, { agent: AGENT, displayName: 'Droid', nativeId: NATIVE_ID, newSessionId: randomUUID, defaultHome }, { spool: true });
  try {
    return writeDroid(begun, options);
  } finally {
    begun.selected.remove();
  }
}

/** A user turn's text as written: its words, then a marker per image and file attachment. */
function userText(turn: UserTurn, report: Report): string {
  let text = turn.text;
  for (const image of turn.images) {
    text += `${text ? '\n' : ''}[image: ${image.media_type ?? 'image'} (not carried over)]`;
    report('rendered', 'image', 'an image in a user message written as a text marker', turn.event);
  }
  for (const file of turn.files) {
    text += `${text ? '\n' : ''}[file: ${String(file.filename ?? file.url ?? 'attachment')}]`;
    report('rendered', 'file', 'a file attachment written as a text marker', turn.event);
  }
  return text;
}

/** The first user turn's text (line 1's title comes from it), from a pass of its own with its reports muted; undefined: no user turn. */
function firstUserText(events: readonly SpEvent[], safety: boolean): string | undefined {
  for (const turn of turnsOf(events, () => {}, { safety })) if (turn.role === 'user') return userText(turn, () => {});
  return undefined;
}

// The session is read by position from its spool: a pass for what line 1 needs (the title, and the
// model when it comes from the turns), then one to write the records straight into the file.
function writeDroid(begun: WriteStart, options: MaterializeOptions): DroidMaterializeResult {
  const { selected, source: sp, ledger, report, sameAgent, safety, home, cwd, sessionId } = begun;
  const start = selected.start;
  if (basename(home) !== '.factory') report('transformed', 'home', `the home ${home} is not a folder named .factory: the client finds sessions only under $${CLIENT_HOME_ENV}/.factory or ~/.factory`);
  const root = sessionsDir(home);
  const folder = ensureUnder(home, join(root, ensureComponent(projectSlug(cwd), 'the project folder')), 'the home');
  const path = join(folder, `${sessionId}.jsonl`);
  const settingsPath = join(folder, `${sessionId}.settings.json`);
  for (const existing of [path, settingsPath]) if (existsSync(existing)) throw new UserError('a session with this id exists already; nothing was written (never overwritten)', existing);

  const chosen = options.branch === 'active' ? activeBranchView(selected.events, report) : selected.events;
  const firstText = firstUserText(chosen, safety);
  if (firstText === undefined) throw new UserError('nothing to write: the session has no user message');

  const model = options.model ?? (sameAgent ? turnsOutline(chosen, { safety }).lastModel : undefined) ?? DEFAULT_MODEL;
  const title: string | undefined = str(sp.title) ?? firstText.split('\n')[0].slice(0, 80);
  const now = Date.now() / 1000;
  let records = 0;
  let parent: string | undefined;
  let ts = typeof start?.ts === 'number' ? start.ts : now;
  const record = (role: 'user' | 'assistant', content: Json[], at: number | undefined, extra: Json = {}): string => {
    // Timestamps never go backwards (events without a source time take the previous one).
    if (typeof at === 'number' && Number.isFinite(at) && at > ts) ts = at;
    const id = randomUUID();
    const line: Json = { type: 'message', id, ...(parent ? { parentId: parent } : {}), timestamp: toIso(Math.min(ts, now)), message: { role, content, ...extra } };
    parent = id;
    records += 1;
    return JSON.stringify(line);
  };

  // Ids the provider APIs accept, unique in the file (results are matched by them): lib/write/plan.ts.
  const toolIds = new ToolIds(PROVIDER_TOOL_ID, report);
  function* lines(): Generator<string> {
    const header: Json = { type: 'session_start', id: sessionId, title: (title ?? 'Session').replace(/\s+/g, ' ').trim() || 'Session', owner: 'unknown', version: 2, cwd };
    records += 1;
    yield JSON.stringify(header);
    for (const turn of turnsOf(chosen, report, { safety })) {
      if (turn.role === 'user') {
        yield record('user', [{ type: 'text', text: userText(turn, report) }], turn.event.ts);
      } else if (turn.role === 'assistant') {
        const content: Json[] = [];
        for (const part of turn.parts) {
          if (part.kind === 'text') content.push({ type: 'text', text: part.text });
          else if (part.kind === 'thinking') {
            if (sameAgent && part.event.agent === AGENT && part.signature) {
              const extra = payloadOf(part.event).extra;
              content.push({ type: 'thinking', ...(isObject(extra) ? extra : {}), thinking: part.text, signature: part.signature });
            }
            else report('dropped', 'thinking', 'reasoning not written: a signature verifies only with the model that made it, and unsigned reasoning cannot be sent back', part.event);
          }
        }
        const calls = callsOf(turn);
        const ids = calls.map((c) => toolIds.id(c.call_id, c.event));
        calls.forEach((c, i) => {
          if (!isObject(c.input)) report('transformed', 'tool-input', `tool call ${c.call_id} input is not an object: written as {input: …}`, c.event);
          content.push({ type: 'tool_use', id: ids[i], name: c.name, input: isObject(c.input) ? c.input : { input: c.input } });
        });
        yield record('assistant', content, turn.events[0].ts, { modelId: turn.model && sameAgent ? turn.model : model });
        if (calls.length > 0) {
          const results = calls.map((c, i) => ({ type: 'tool_result', tool_use_id: ids[i], is_error: c.is_error, content: c.content }));
          yield record('user', results, calls.map((c) => c.result?.ts ?? c.event.ts).reduce((a, b) => Math.max(a, b), 0));
        }
      } else {
        const event = turn.event;
        const p = payloadOf(event);
        if (event.type === 'checkpoint' && p.kind === 'compaction') report('dropped', 'compaction', `a ${event.agent} compaction: not written, the whole history is written instead`, event);
        else if (event.type === 'meta') report('dropped', 'meta', `meta ${String(p.key ?? '')} from ${event.agent}: no Droid record carries it`, event);
        else report('dropped', event.type, `${event.type} from ${event.agent}: no Droid record carries it`, event);
      }
    }
  }

  if (options.dryRun) {
    for (const line of lines()) options.onLine?.(line);
  } else {
    const onLine = options.onLine;
    const shown = onLine ? (function* (): Generator<string> { for (const line of lines()) { onLine(line); yield line; } })() : lines();
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      // Re-checked after the folder exists: a symlink planted meanwhile is refused.
      ensureUnder(home, folder, 'the home');
      writeSession(path, settingsPath, lineChunks(shown), model);
    } catch (err) {
      if (err instanceof UserError) throw err;
      throw new UserError(`cannot write the session: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, path);
    }
  }

  const result: DroidMaterializeResult = {
    agent: AGENT,
    session_id: sessionId,
    path,
    cwd,
    ...resumeFields(cwd, ['droid', '--resume', sessionId], { variable: CLIENT_HOME_ENV, value: dirname(home), builtIn: dirname(builtInHome()) }),
    records,
    source_session: selected.session,
    changes: ledger.counts,
    written_as: 'rebuilt',
  };
  result.model = model;
  if (title) result.title = title;
  if (options.dryRun) result.dry_run = true;
  return result;
}

/**
 * The session file written whole under a temp name first (the long part), then the settings
 * sidecar, then the session takes its name: discovery keys on the .jsonl, so the session appears
 * whole or not at all, and a kill while the records are written leaves no sidecar without a
 * session (only a temp the next write sweeps). Neither file is written over an existing one.
 */
function writeSession(path: string, settingsPath: string, chunks: Iterable<string>, model: string): void {
  const temp = writeTemp(path, chunks, 0o600);
  try {
    createFileAtomic(settingsPath, [`${JSON.stringify({ model, reasoningEffort: 'none', interactionMode: 'auto', autonomyLevel: 'low' }, null, 2)}\n`], 0o600);
    // From here to the session's link the sidecar is ours to remove on an interrupt.
    const releaseSettings = removeOnInterrupt(settingsPath);
    try {
      linkSync(temp, path);
    } catch (err) {
      rmSync(settingsPath, { force: true });
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new UserError('a session with this id appeared meanwhile; nothing was written', path);
      throw err;
    } finally {
      releaseSettings();
    }
  } finally {
    rmSync(temp, { force: true });
    settleInterrupt(temp);
  }
  try {
    const dir = openSync(dirname(path), 'r');
    fsyncSync(dir);
    closeSync(dir);
  } catch {
    // Some filesystems cannot fsync a folder; the files themselves are durable.
  }
}
