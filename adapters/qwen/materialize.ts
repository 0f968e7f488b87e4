// `sp-materialize qwen`: canonical events → a NEW Qwen Code session that the real client resumes
// with `qwen --resume <id>` (docs/formats/qwen.md §3.3–§3.5). What this writer guarantees:
//   * `<runtime>/projects/<cwd, [^A-Za-z0-9] → ->/chats/<uuid>.jsonl`, created atomically, never
//     overwritten (no other file is touched: the client needs no registry);
//   * one linear `parentUuid` chain (null only at the root, the last line the leaf), one sessionId,
//     types user/assistant/tool_result only, `cwd` = the exact project root on every record;
//   * `message` = {role: "user"|"model", parts: Part objects}; function calls and responses with
//     matching ids, one tool_result record per call right after the assistant record that made it.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { toIso, type SpEvent } from '../../lib/core/event.js';
import { str, type Json } from '../../lib/core/json.js';
import { LossLedger, ensureUnder, payloadOf, resumeFields, sameNativeId, writeLines, type WriterResult } from '../../lib/write/writer.js';
import { SpooledSession } from '../../lib/write/spool.js';
import { realCwd as resolveCwd } from '../../lib/fs/paths.js';
import { activePath, streamTurns } from '../../lib/formats/content-turns.js';
import { PROVIDER_TOOL_ID } from '../../lib/write/plan.js';
import { boundHeapGrowth } from '../../lib/write/heap-growth.js';
import { DEFAULT_MODEL, HOME_ENV, NATIVE_ID, builtInHome, defaultHome, projectFolder, projectsDir, runtimeDir } from './paths.js';
import { AGENT, PART_BLOCK } from './records.js';

export const CLIENT_VERSION = '0.24.4';

export function sessionPath(runtime: string, cwd: string, sessionId: string): string {
  return join(projectsDir(runtime), projectFolder(cwd), 'chats', `${sessionId}.jsonl`);
}

export async function materializeQwen(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<WriterResult> {
  boundHeapGrowth();
  // The session is held on disk and read by position: the writer keeps one turn at a time.
  const selected = await SpooledSession.create(events, options.session);
  try {
    return writeQwen(selected, options);
  } finally {
    selected.remove();
  }
}

function writeQwen(selected: SpooledSession, options: MaterializeOptions): WriterResult {
  const sp = selected.start ? payloadOf(selected.start) : {};
  const sessionCwd = str(options.cwd) ?? str(sp.cwd);
  if (!sessionCwd) throw new UserError('the session names no cwd: pass --cwd DIR (the project folder the client will resume it from)');
  const fromQwen = selected.start?.agent === AGENT;
  // The id is checked before anything is created: it becomes the file name and a word of the resume command.
  let sessionId: string;
  if (options.sameId) {
    if (!fromQwen) throw new UserError(`--same-id keeps a Qwen Code session's own id; this session comes from ${selected.start?.agent ?? 'an unknown agent'}`);
    sessionId = sameNativeId(NATIVE_ID, sp.native_id);
  } else {
    sessionId = randomUUID();
  }
  if (options.mkcwd && !options.dryRun) mkdirSync(resolve(sessionCwd), { recursive: true });
  const cwd = resolveCwd(sessionCwd);
  const runtime = runtimeDir(options.home);
  const ledger = new LossLedger(options.onLoss);
  for (const [id, other] of selected.others) {
    ledger.add({ action: 'dropped', code: 'child-session', reason: `session ${id}${other.nativeId ? ` (native ${other.nativeId})` : ''}, ${other.count} event(s), is a separate session: not written` });
  }
  const path = ensureUnder(runtime, sessionPath(runtime, cwd, sessionId), 'the home');
  if (existsSync(path)) throw new UserError('exists already: a session is never overwritten', path);

  const turns = streamTurns(activePath(selected.events, ledger), { ledger, target: AGENT, toolIds: PROVIDER_TOOL_ID, partBlock: PART_BLOCK, artifactsDir: options.artifactsDir, safety: options.safety !== false });
  const gitBranch = str(sp.git_branch);
  let parent: string | null = null;
  const record = (type: string, ts: number, body: Json): string => {
    const uuid = randomUUID();
    const head: Json = { uuid, parentUuid: parent, sessionId, timestamp: toIso(ts), type, cwd, version: CLIENT_VERSION };
    if (gitBranch) head.gitBranch = gitBranch;
    parent = uuid;
    return JSON.stringify({ ...head, ...body });
  };
  // The records are made as the file is written: one turn is held at a time.
  function* lines(): Generator<string> {
    let users = 0;
    for (const turn of turns) {
      if (turn.kind === 'user') {
        users += 1;
        yield record('user', turn.ts, { provenance: 'real_user', message: { role: 'user', parts: turn.parts } });
        continue;
      }
      const parts: Json[] = [];
      for (const t of turn.thoughts) parts.push({ text: t.subject ? `**${t.subject}** ${t.text}` : t.text, thought: true });
      for (const text of turn.texts) parts.push({ text });
      for (const call of turn.calls) parts.push({ functionCall: { id: call.callId, name: call.name, args: call.args } });
      if (parts.length === 0) continue;
      const model = options.model ?? (fromQwen ? turn.model ?? str(sp.model) : undefined) ?? DEFAULT_MODEL;
      yield record('assistant', turn.ts, { provenance: 'assistant_output', model, message: { role: 'model', parts } });
      for (const call of turn.calls) {
        const result = call.result;
        if (!result) continue; // unanswered: only with --no-safety, written as it was
        const response = result.isError ? { error: result.text } : { output: result.text };
        yield record('tool_result', result.ts, {
          provenance: 'tool_result',
          message: { role: 'user', parts: [{ functionResponse: { id: call.callId, name: call.name, response } }] },
          toolCallResult: { callId: call.callId, status: result.isError ? 'error' : 'success' },
        });
      }
    }
    if (users === 0) throw new UserError('nothing to write: the session has no user message');
  }
  const records = writeLines(path, lines(), { finalNewline: true, dryRun: options.dryRun, onLine: options.onLine });
  const result: WriterResult = {
    agent: AGENT,
    session_id: sessionId,
    path,
    cwd,
    ...resumeFields(cwd, ['qwen', '--resume', sessionId], { variable: HOME_ENV, value: options.home ?? defaultHome(), builtIn: builtInHome() }),
    records,
    written_as: 'rebuilt',
    source_session: selected.session,
    changes: ledger.counts,
  };
  if (options.dryRun) result.dry_run = true;
  return result;
}
