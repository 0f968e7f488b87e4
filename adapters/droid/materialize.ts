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
//   * the settings sidecar is created first and the session file last, each atomically, neither
//     overwriting anything: discovery keys on the .jsonl, so the session appears whole or not at all.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { createFileAtomic } from '../../lib/fs/atomic.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { toIso, type SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { beginWrite } from '../../lib/write/begin.js';
import { PROVIDER_TOOL_ID, ToolIds } from '../../lib/write/plan.js';
import { activeBranch, buildTurns, callsOf, type AssistantTurn } from '../../lib/write/turns.js';
import { ensureComponent, ensureUnder, lineChunks, payloadOf, resumeFields, type WriterResult } from '../../lib/write/writer.js';
import { AGENT } from './events.js';
import { CLIENT_HOME_ENV, DEFAULT_MODEL, NATIVE_ID, builtInHome, defaultHome, projectSlug, sessionsDir } from './paths.js';

export interface DroidMaterializeResult extends WriterResult {
  title?: string;
}

export async function materializeDroid(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<DroidMaterializeResult> {
  const { selected, source: sp, ledger, report, sameAgent, safety, home, cwd, sessionId } = await beginWrite(events, options, {
    agent: AGENT,
    displayName: 'Droid',
    nativeId: NATIVE_ID,
    newSessionId: randomUUID,
    defaultHome,
  });
  const start = selected.start;
  if (basename(home) !== '.factory') report('transformed', 'home', `the home ${home} is not a folder named .factory: the client finds sessions only under $${CLIENT_HOME_ENV}/.factory or ~/.factory`);
  const root = sessionsDir(home);
  const folder = ensureUnder(home, join(root, ensureComponent(projectSlug(cwd), 'the project folder')), 'the home');
  const path = join(folder, `${sessionId}.jsonl`);
  const settingsPath = join(folder, `${sessionId}.settings.json`);
  for (const existing of [path, settingsPath]) if (existsSync(existing)) throw new UserError('a session with this id exists already; nothing was written (never overwritten)', existing);

  const chosen = options.branch === 'active' ? activeBranch(selected.events, report) : selected.events;
  const turns = buildTurns(chosen, report, { safety });
  if (!turns.some((t) => t.role === 'user')) throw new UserError('nothing to write: the session has no user message');

  const lastModel = [...turns].reverse().find((t): t is AssistantTurn => t.role === 'assistant' && t.model !== undefined)?.model;
  const model = options.model ?? (sameAgent ? lastModel : undefined) ?? DEFAULT_MODEL;
  const now = Date.now() / 1000;
  const lines: Json[] = [];
  let parent: string | undefined;
  let ts = typeof start?.ts === 'number' ? start.ts : now;
  const push = (role: 'user' | 'assistant', content: Json[], at: number | undefined, extra: Json = {}): void => {
    // Timestamps never go backwards (events without a source time take the previous one).
    if (typeof at === 'number' && Number.isFinite(at) && at > ts) ts = at;
    const id = randomUUID();
    const record: Json = { type: 'message', id, ...(parent ? { parentId: parent } : {}), timestamp: toIso(Math.min(ts, now)), message: { role, content, ...extra } };
    parent = id;
    lines.push(record);
  };

  // Ids the provider APIs accept, unique in the file (results are matched by them): lib/write/plan.ts.
  const toolIds = new ToolIds(PROVIDER_TOOL_ID, report);
  let title: string | undefined = str(sp.title);
  for (const turn of turns) {
    if (turn.role === 'user') {
      let text = turn.text;
      for (const image of turn.images) {
        text += `${text ? '\n' : ''}[image: ${image.media_type ?? 'image'} (not carried over)]`;
        report('rendered', 'image', 'an image in a user message written as a text marker', turn.event);
      }
      for (const file of turn.files) {
        text += `${text ? '\n' : ''}[file: ${String(file.filename ?? file.url ?? 'attachment')}]`;
        report('rendered', 'file', 'a file attachment written as a text marker', turn.event);
      }
      title ??= text.split('\n')[0].slice(0, 80);
      push('user', [{ type: 'text', text }], turn.event.ts);
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
      push('assistant', content, turn.events[0].ts, { modelId: turn.model && sameAgent ? turn.model : model });
      if (calls.length > 0) {
        const results = calls.map((c, i) => ({ type: 'tool_result', tool_use_id: ids[i], is_error: c.is_error, content: c.content }));
        push('user', results, calls.map((c) => c.result?.ts ?? c.event.ts).reduce((a, b) => Math.max(a, b), 0));
      }
    } else {
      const event = turn.event;
      const p = payloadOf(event);
      if (event.type === 'checkpoint' && p.kind === 'compaction') report('dropped', 'compaction', `a ${event.agent} compaction: not written, the whole history is written instead`, event);
      else if (event.type === 'meta') report('dropped', 'meta', `meta ${String(p.key ?? '')} from ${event.agent}: no Droid record carries it`, event);
      else report('dropped', event.type, `${event.type} from ${event.agent}: no Droid record carries it`, event);
    }
  }

  const header: Json = { type: 'session_start', id: sessionId, title: (title ?? 'Session').replace(/\s+/g, ' ').trim() || 'Session', owner: 'unknown', version: 2, cwd };
  const texts = [JSON.stringify(header), ...lines.map((l) => JSON.stringify(l))];
  if (options.onLine) for (const line of texts) options.onLine(line);
  if (!options.dryRun) {
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      // Re-checked after the folder exists: a symlink planted meanwhile is refused.
      ensureUnder(home, folder, 'the home');
      createFileAtomic(settingsPath, [`${JSON.stringify({ model, reasoningEffort: 'none', interactionMode: 'auto', autonomyLevel: 'low' }, null, 2)}\n`], 0o600);
      try {
        createFileAtomic(path, lineChunks(texts), 0o600);
      } catch (err) {
        rmSync(settingsPath, { force: true });
        throw err;
      }
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
    records: texts.length,
    source_session: selected.session,
    changes: ledger.counts,
    written_as: 'rebuilt',
  };
  result.model = model;
  if (title) result.title = title;
  if (options.dryRun) result.dry_run = true;
  return result;
}
