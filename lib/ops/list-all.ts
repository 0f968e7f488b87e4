// Every session of every agent on this machine, newest first: `sp-capture --all-agents --list`,
// the "what do I have where" question. It walks the registry it is given (so an adapter added
// under adapters/ appears without an edit here) and asks each agent's home in turn: a home that
// does not exist is an agent this machine does not run (skipped, silently); a home that exists
// but cannot be read is reported once and the other agents still list.
import { statSync } from 'node:fs';
import type { Adapter, Diagnose, SessionRef } from '../adapter/interface.js';
import { UserError, errorCode } from '../cli/diagnostics.js';
import { NdjsonWriter } from '../core/ndjson.js';
import { printTable } from '../term/listing.js';
import { relativeTime } from '../term/time.js';
import { shortId } from '../term/views.js';

/** One listed session: what a user needs to find it again, and what `--session` takes. */
export interface ListedSession {
  agent: string;
  native_id: string;
  /** The project directory the session ran in, when the agent records one. */
  cwd?: string;
  /** The agent's title, else the first prompt (redacted when the caller passes a redactor). */
  title?: string;
  /** Last activity, epoch seconds (the last record's time, else the file's modification time). */
  last_ts?: number;
  path: string;
  messages?: number;
  parent_native_id?: string;
}

export interface ListAllOptions {
  /** The adapters to ask, by id (adapters/index.ts `adapters`). */
  registry: Readonly<Record<string, Adapter>>;
  /** The home of an adapter (--home is per agent, so the caller decides: config file, env, default). */
  homeOf?: (adapter: Adapter) => string;
  /** Only sessions of this project directory (as each agent's own `--list --cwd`). */
  cwd?: string;
  /** Applied to titles (they are what a user typed: a pasted secret would reach the screen). */
  redactText?: (text: string) => string;
  /** A problem with one agent's home or one of its files; listing goes on. */
  onDiagnostic: Diagnose;
}

export interface ListAllResult {
  sessions: ListedSession[];
  /** Agents whose home exists and was read (possibly with per-file diagnostics). */
  read: string[];
  /** Agents whose home exists but could not be read at all. */
  failed: string[];
  /** Agents with no home on this machine. */
  absent: string[];
}

/** Whether `home` exists: false when it (or a folder above it) is missing; throws what else stat says. */
function homeExists(home: string): boolean {
  try {
    statSync(home);
    return true;
  } catch (err) {
    const code = errorCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw err;
  }
}

function describe(err: unknown): string {
  if (err instanceof UserError) return err.message;
  const code = errorCode(err);
  const message = err instanceof Error ? err.message : String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/** Lists every registered agent's sessions, newest first (ties: by agent, then id, so runs compare). */
export async function listAllSessions(options: ListAllOptions): Promise<ListAllResult> {
  const result: ListAllResult = { sessions: [], read: [], failed: [], absent: [] };
  for (const id of Object.keys(options.registry).sort()) {
    const adapter = options.registry[id]!;
    const home = options.homeOf ? options.homeOf(adapter) : adapter.defaultHome();
    try {
      if (!homeExists(home)) {
        result.absent.push(id);
        continue;
      }
      const found: ListedSession[] = [];
      for await (const ref of adapter.discover({ home, cwd: options.cwd, details: true, onDiagnostic: options.onDiagnostic })) found.push(listed(id, ref, options.redactText));
      result.sessions.push(...found);
      result.read.push(id);
    } catch (err) {
      // A home that holds none of the agent's folders yet (the client was installed, never run) is absent too.
      if (/\bENOENT\b/.test(describe(err))) {
        result.absent.push(id);
        continue;
      }
      // One agent's unreadable home (a loop of symlinks, a corrupt database) must not hide the others.
      options.onDiagnostic(err instanceof UserError && err.where !== undefined ? err.where : home, `${adapter.displayName}: ${describe(err)}`);
      result.failed.push(id);
    }
  }
  result.sessions.sort(
    (a, b) => (b.last_ts ?? 0) - (a.last_ts ?? 0) || a.agent.localeCompare(b.agent) || a.native_id.localeCompare(b.native_id),
  );
  return result;
}

function listed(agent: string, ref: SessionRef, redactText: ((text: string) => string) | undefined): ListedSession {
  const title = ref.title ?? ref.first_prompt;
  const row: ListedSession = { agent, native_id: ref.native_id, path: ref.path };
  if (ref.cwd !== undefined) row.cwd = ref.cwd;
  if (title !== undefined) row.title = redactText ? redactText(title) : title;
  const last = ref.last_ts ?? ref.mtime;
  if (typeof last === 'number' && Number.isFinite(last)) row.last_ts = last;
  if (ref.messages !== undefined) row.messages = ref.messages;
  if (ref.parent_native_id !== undefined) row.parent_native_id = ref.parent_native_id;
  return row;
}

/** One line of text: tabs and line breaks inside a field would split it. */
const field = (text: string | undefined): string => (text ?? '-').replace(/[\t\r\n]+/g, ' ');

/**
 * Prints the listing: `table` (a terminal), `lines` (tab-separated: last activity as ISO 8601, agent,
 * id, project, title; for grep and cut), or `json` (one NDJSON row per session, `last_activity` added).
 */
export async function printListedSessions(sessions: ListedSession[], as: 'table' | 'lines' | 'json', out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number } = process.stdout): Promise<void> {
  const iso = (s: ListedSession) => (s.last_ts === undefined ? undefined : new Date(s.last_ts * 1000).toISOString());
  if (as === 'table') {
    printTable(
      sessions,
      [
        { header: 'WHEN', cell: (r) => relativeTime(r.last_ts), color: () => 'dim' },
        { header: 'AGENT', cell: (r) => r.agent },
        { header: 'ID', cell: (r) => shortId(r.native_id), color: () => 'cyan' },
        { header: 'PROJECT', cell: (r) => r.cwd ?? '-', max: 40 },
        { header: 'TITLE', flex: true, cell: (r) => (r.parent_native_id !== undefined ? '↳ ' : '') + field(r.title) },
      ],
      { empty: '(no sessions)', out },
    );
    return;
  }
  const writer = new NdjsonWriter(out as never);
  for (const s of sessions) {
    if (as === 'json') await writer.write({ ...s, last_activity: iso(s) });
    else await writer.writeLine([iso(s), s.agent, s.native_id, s.cwd, s.title].map(field).join('\t'));
  }
  await writer.end();
}
