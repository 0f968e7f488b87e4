// The tables the listings print on a terminal (sp-capture --list, sp-sync ls, sp-sync search).
import type { SessionRef } from '../adapter.js';
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
