// The tables the listings print on a terminal (sp-capture --list, sp-sync ls, search and status).
import type { SessionRef } from '../adapter/interface.js';
import { printTable } from './listing.js';
import { relativeTime } from './time.js';
import { formatCount } from './table.js';

const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? formatCount(n) : '-');

/** sp-capture --list: newest first, as discovered. */
export function printSessionRefs(refs: SessionRef[], now = Date.now()): void {
  printTable(
    refs,
    [
      { header: 'WHEN', cell: (r) => relativeTime(r.last_ts ?? r.mtime, now), color: () => 'dim' },
      // A unique prefix is enough for --session: the start of the id, like git's short hashes.
      { header: 'ID', cell: (r) => shortId(r.native_id), color: () => 'cyan' },
      { header: 'MSGS', align: 'right', cell: (r) => count(r.messages) },
      { header: 'TOOLS', align: 'right', cell: (r) => count(r.tool_calls) },
      { header: 'CWD', cell: (r) => shortenHome(r.cwd ?? '-'), max: 32 },
      { header: 'TITLE', flex: true, cell: (r) => (r.parent_native_id !== undefined ? '↳ ' : '') + (r.title ?? r.first_prompt ?? '') },
    ],
    { empty: '(no sessions)' },
  );
}

export interface StoredSessionRow {
  id: string;
  agent: string | null;
  events: number;
  last_ts: number | null;
  owner: string | null;
  title?: string | null;
  deleted?: boolean;
  redaction?: string;
}

/** sp-sync ls. */
export function printStoredSessions(rows: StoredSessionRow[], now = Date.now()): void {
  printTable(
    rows,
    [
      { header: 'WHEN', cell: (r) => relativeTime(r.last_ts, now), color: () => 'dim' },
      { header: 'SESSION', cell: (r) => shortId(r.id), color: () => 'cyan' },
      { header: 'AGENT', cell: (r) => r.agent ?? '-' },
      { header: 'EVENTS', align: 'right', cell: (r) => count(r.events) },
      { header: 'OWNER', cell: (r) => r.owner ?? '-', max: 12 },
      {
        header: 'TITLE',
        flex: true,
        cell: (r) => (r.deleted ? '[deleted] ' : '') + (r.redaction === 'unredacted' ? '[unredacted] ' : '') + (r.title ?? ''),
        color: (r) => (r.deleted ? 'dim' : r.redaction === 'unredacted' ? 'yellow' : undefined),
      },
    ],
    { empty: '(no stored sessions)' },
  );
}

export interface SearchRow {
  session: string;
  seq: number;
  type: string;
  ts: number | null;
  snippet?: string | null;
}

/** sp-sync search. */
export function printSearchHits(rows: SearchRow[], now = Date.now()): void {
  printTable(
    rows,
    [
      { header: 'WHEN', cell: (r) => relativeTime(r.ts, now), color: () => 'dim' },
      { header: 'SESSION', cell: (r) => shortId(r.session), color: () => 'cyan' },
      { header: 'SEQ', align: 'right', cell: (r) => String(r.seq) },
      { header: 'TYPE', cell: (r) => r.type },
      { header: 'MATCH', flex: true, cell: (r) => r.snippet ?? '' },
    ],
    { empty: '(no matches)' },
  );
}

function shortenHome(path: string): string {
  const home = process.env.HOME;
  return home && home !== '/' && (path === home || path.startsWith(`${home}/`)) ? `~${path.slice(home.length)}` : path;
}

/** The first 8 characters of an id (after a `sess_` prefix): what a person types back. */
export function shortId(id: string): string {
  const prefix = id.startsWith('sess_') ? 'sess_' : '';
  const rest = id.slice(prefix.length);
  return rest.length > 12 ? prefix + rest.slice(0, 8) : id;
}

/** What the status table needs of lib/sync/status.ts's rows (the shape, so lib/term imports nothing of sync). */
export interface SyncStatusRow {
  session: string;
  local: { events: number };
  owner: string | null;
  remotes: Array<{ remote: string; ahead: number; behind: number; waiting: Array<{ machine: string; reason: string }> }>;
  in_sync: boolean;
}

/** `sp-sync status` on a terminal: one line per session and remote (a session with no remote: one line). */
export function printSyncStatus(rows: SyncStatusRow[]): void {
  const lines = rows.flatMap((row) => (row.remotes.length ? row.remotes : [undefined]).map((remote) => ({ row, remote })));
  printTable(
    lines,
    [
      { header: 'SESSION', cell: (l) => shortId(l.row.session), color: () => 'cyan' },
      { header: 'EVENTS', align: 'right', cell: (l) => String(l.row.local.events) },
      { header: 'OWNER', cell: (l) => l.row.owner ?? '-' },
      { header: 'REMOTE', cell: (l) => l.remote?.remote ?? '(none)' },
      { header: 'AHEAD', align: 'right', cell: (l) => (l.remote ? String(l.remote.ahead) : '') },
      { header: 'BEHIND', align: 'right', cell: (l) => (l.remote ? String(l.remote.behind) : '') },
      { header: 'WAITING', flex: true, cell: (l) => (l.remote?.waiting.length ? l.remote.waiting.map((w) => `${w.machine}: ${w.reason}`).join('; ') : '') },
      { header: 'STATE', cell: (l) => (l.row.in_sync ? 'in sync' : 'out of sync'), color: (l) => (l.row.in_sync ? 'green' : 'yellow') },
    ],
    { empty: '(no stored sessions)' },
  );
}
