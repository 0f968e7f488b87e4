// `sp-materialize gemini`: canonical events → a NEW Gemini CLI session that the real client
// resumes with `gemini --resume <id>` (docs/formats/gemini.md §2.5). What this writer guarantees:
//   * `<home>/tmp/<slug>/chats/session-<UTC minute>-<id8>.jsonl`, created atomically, never
//     overwritten; `<slug>` is the one the client's registry finds for the project root, and a new
//     project is registered with new files only (`tmp/<slug>/.project_root`; the client records it
//     in projects.json itself), so no file of the user's is changed;
//   * line 1 metadata {sessionId, projectHash, startTime, lastUpdated, kind:"main"}, both times the
//     import time, so the client's 30-day clean-up does not delete the session;
//   * messages with string ids, types user/gemini only; each tool result once, in toolCalls[].result
//     (the client's own files also repeat it in a user message, which it then sends twice, §2.4);
//     no `<session_context>` message, no patches; a user text the client would skip (starting with
//     `/` or `?`) is prefixed with U+200B so it is sent.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { createFileAtomic, newTempPath, renameDirNoReplace } from '../../lib/fs/atomic.js';
import { removeOnInterrupt } from '../../lib/fs/private.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { toIso, type SpEvent } from '../../lib/core/event.js';
import { str, type Json } from '../../lib/core/json.js';
import { LossLedger, ensureComponent, ensureUnder, payloadOf, resumeFields, sameNativeId, writeLines, type WriterResult } from '../../lib/write/writer.js';
import { SpooledSession } from '../../lib/write/spool.js';
import { realCwd as resolveCwd } from '../../lib/fs/paths.js';
import { readMetadata } from './discover.js';
import { DEFAULT_MODEL, HOME_ENV, NATIVE_ID, defaultHome, isSessionFileName, sessionFileName, tmpDir } from './paths.js';
import { projectSlugFor } from './project.js';
import { AGENT, PART_BLOCK } from './records.js';
import { activePath, streamTurns, type ModelStep } from '../../lib/formats/content-turns.js';
import { PROVIDER_TOOL_ID } from '../../lib/write/plan.js';
import { boundHeapGrowth } from '../../lib/write/heap-growth.js';

/** The client version this writer was verified against. */
export const CLIENT_VERSION = '0.61.0';

export interface GeminiMaterializeResult extends WriterResult {
  /** The project folder, and whether this write registered it (new `.project_root`). */
  slug: string;
  registered: boolean;
}

/** What the client would skip as a slash command or `?` help (it trims first). */
export function skippedByClient(text: string): boolean {
  const t = text.trim();
  return t.startsWith('/') || t.startsWith('?');
}

function modelLine(step: ModelStep, model: string): Json {
  const record: Json = { id: randomUUID(), timestamp: toIso(step.ts), type: 'gemini', content: step.texts.join('\n\n') };
  if (step.thoughts.length > 0) {
    record.thoughts = step.thoughts.map((t) => ({ subject: t.subject ?? '', description: t.text, timestamp: toIso(t.ts) }));
  }
  if (step.usage) record.tokens = step.usage;
  record.model = model;
  if (step.calls.length > 0) {
    record.toolCalls = step.calls.map((call) => {
      // The client keeps `<tool>__<raw id>` and sends the raw id (§2.3).
      const id = call.callId.startsWith(`${call.name}__`) ? call.callId : `${call.name}__${call.callId}`;
      // Unanswered only with --no-safety: written as the client leaves a call it cancelled.
      if (!call.result) return { id, name: call.name, args: call.args, status: 'cancelled', timestamp: toIso(call.event.ts) };
      const response = call.result.isError ? { error: call.result.text } : { output: call.result.text };
      return {
        id,
        name: call.name,
        args: call.args,
        result: [{ functionResponse: { id, name: call.name, response } }],
        status: call.result.isError ? 'error' : 'success',
        timestamp: toIso(call.result.ts),
      };
    });
  }
  return record;
}

/**
 * A project the home does not know yet: its whole folder (the session and `.project_root`) is staged
 * under a temp name and renamed into place, so a kill at any moment leaves all of it or none.
 */
function writeNewProject(slugDir: string, fileName: string, lines: Iterable<string>, cwd: string, onLine?: (line: string) => void): number {
  const staging = newTempPath(dirname(slugDir), basename(slugDir));
  const release = removeOnInterrupt(staging);
  try {
    mkdirSync(join(staging, 'chats'), { recursive: true });
    const count = writeLines(join(staging, 'chats', fileName), lines, { finalNewline: true, onLine });
    createFileAtomic(join(staging, '.project_root'), [cwd], 0o644);
    // Never over a folder that appeared meanwhile, even an empty one (rename alone would replace it).
    renameDirNoReplace(staging, slugDir);
    return count;
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    if ((err as NodeJS.ErrnoException).code === 'ENOTEMPTY' || (err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new UserError('the project folder appeared while writing (another writer?): run again', slugDir);
    }
    throw err;
  } finally {
    release();
  }
}

export async function materializeGemini(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<GeminiMaterializeResult> {
  boundHeapGrowth();
  // The session is held on disk and read by position: the writer keeps one turn at a time.
  const selected = await SpooledSession.create(events, options.session);
  try {
    return writeGemini(selected, options);
  } finally {
    selected.remove();
  }
}

function writeGemini(selected: SpooledSession, options: MaterializeOptions): GeminiMaterializeResult {
  const sp = selected.start ? payloadOf(selected.start) : {};
  const sessionCwd = str(options.cwd) ?? str(sp.cwd);
  if (!sessionCwd) throw new UserError('the session names no cwd: pass --cwd DIR (the project folder the client will resume it from)');
  // The id is checked before anything is created: it goes into the file name and the resume command.
  let sessionId: string;
  if (options.sameId) {
    if (selected.start?.agent !== AGENT) throw new UserError(`--same-id keeps a Gemini CLI session's own id; this session comes from ${selected.start?.agent ?? 'an unknown agent'}`);
    sessionId = sameNativeId(NATIVE_ID, sp.native_id);
  } else {
    sessionId = randomUUID();
  }
  if (options.mkcwd && !options.dryRun) mkdirSync(resolve(sessionCwd), { recursive: true });
  const cwd = resolveCwd(sessionCwd);
  const home = resolve(options.home ?? defaultHome());
  const ledger = new LossLedger(options.onLoss);
  for (const [id, other] of selected.others) {
    ledger.add({ action: 'dropped', code: 'child-session', reason: `session ${id}${other.nativeId ? ` (native ${other.nativeId})` : ''}, ${other.count} event(s), is a separate session: not written` });
  }

  const fromGemini = selected.start?.agent === AGENT;
  const sourceModel = fromGemini ? str(sp.model) : undefined;
  const turns = streamTurns(activePath(selected.events, ledger), { ledger, target: AGENT, toolIds: PROVIDER_TOOL_ID, partBlock: PART_BLOCK, artifactsDir: options.artifactsDir, safety: options.safety !== false });
  const now = Date.now();
  const { slug, register } = projectSlugFor(home, cwd);
  // The slug may come from the home's projects.json: one plain folder name, inside the home.
  const chats = join(tmpDir(home), ensureComponent(slug, 'the project folder'), 'chats');
  const path = ensureUnder(home, join(chats, sessionFileName(now, sessionId)), 'the home');
  if (options.sameId) refuseSecondFile(chats, sessionId);

  // The lines are made as the file is written (writeLines takes them one by one); a user text the
  // client would skip is counted and reported after the plan's own entries, as when it was whole.
  let slashTexts = 0;
  function* lines(): Generator<string> {
    yield JSON.stringify({ sessionId, projectHash: createHash('sha256').update(cwd).digest('hex'), startTime: toIso(now / 1000), lastUpdated: toIso(now / 1000), kind: 'main' });
    let userTurns = 0;
    for (const turn of turns) {
      if (turn.kind === 'user') {
        const parts = turn.parts.map((part) => {
          if (typeof part.text === 'string' && skippedByClient(part.text)) {
            slashTexts += 1;
            return { ...part, text: `\u200b${part.text}` };
          }
          return part;
        });
        userTurns += 1;
        yield JSON.stringify({ id: randomUUID(), timestamp: toIso(turn.ts), type: 'user', content: parts });
      } else {
        // Another agent's model names mean nothing to the Gemini API: its steps take the default.
        yield JSON.stringify(modelLine(turn, options.model ?? (fromGemini ? turn.model ?? sourceModel : undefined) ?? DEFAULT_MODEL));
      }
    }
    if (userTurns === 0) throw new UserError('nothing to write: the session has no user message (the client lists only sessions with one)');
  }
  const records = writeSession(home, slug, register, path, lines(), cwd, options);
  for (let i = 0; i < slashTexts; i += 1) ledger.add({ action: 'transformed', code: 'slash-text', reason: 'a user text starting with / or ? (the client skips those): prefixed with U+200B' });

  const model = options.model ?? sourceModel ?? DEFAULT_MODEL;
  const result: GeminiMaterializeResult = {
    agent: AGENT,
    session_id: sessionId,
    path,
    cwd,
    // GEMINI_CLI_HOME names the folder that holds `.gemini`: a home of another name cannot be pointed at.
    ...resumeFields(cwd, ['gemini', '--resume', sessionId, '-m', model], basename(home) === '.gemini' ? { variable: HOME_ENV, value: dirname(home), builtIn: homedir() } : undefined),
    records,
    written_as: 'rebuilt',
    source_session: selected.session,
    changes: ledger.counts,
    slug,
    registered: register,
  };
  if (options.dryRun) result.dry_run = true;
  return result;
}

/** `--same-id`: another file of the same session would make `--resume` ambiguous. */
function refuseSecondFile(chats: string, sessionId: string): void {
  let names: string[] = [];
  try {
    names = readdirSync(chats).filter(isSessionFileName);
  } catch {
    names = [];
  }
  for (const name of names) {
    if (readMetadata(join(chats, name)).metadata?.sessionId === sessionId) {
      throw new UserError('exists already: --same-id never writes a second file of a session (move it away, or drop --same-id)', join(chats, name));
    }
  }
}

/** Writes the session file (and registers a new project); returns the number of lines. */
function writeSession(home: string, slug: string, register: boolean, path: string, lines: Iterable<string>, cwd: string, options: MaterializeOptions): number {
  if (options.dryRun) return writeLines(path, lines, { finalNewline: true, dryRun: true, onLine: options.onLine });
  const slugDir = join(tmpDir(home), slug);
  if (register && !existsSync(slugDir)) return writeNewProject(slugDir, basename(path), lines, cwd, options.onLine);
  // The folder is there already: the marker first (alone it is a registered project with no
  // session, which the client ignores), the session file last and atomically. A session that
  // turns out to have nothing to write takes back the marker it made.
  const marker = join(slugDir, '.project_root');
  const marks = register && !existsSync(marker);
  if (marks) createFileAtomic(marker, [cwd], 0o644);
  try {
    return writeLines(path, lines, { finalNewline: true, onLine: options.onLine });
  } catch (err) {
    if (marks) rmSync(marker, { force: true });
    throw err;
  }
}
