// The write-ahead journal (<store>/journal): before a writer appends to a session's log it records
// the session, the byte range it is about to write (start = the signed end, end = start + length)
// and the SHA-256 of those bytes, signed with this SP_HOME's key and fsynced. After a crash the next
// writer may only complete exactly such a range (the bytes hash to the entry and chain onto the
// signed head) or cut the log back to the signed end. Bytes past a manifest that no signed entry
// covers were not written by this store's writer and are never adopted.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonObject } from '../core/json.js';
import { checkSignature, signDocument, type KeyPair } from './identity.js';
import { appendDurably } from './log.js';
import { SESSION_ID_PATTERN } from './paths.js';

export const JOURNAL_FILE = 'journal';

export interface JournalEntry {
  session: string;
  /** The log's signed length when the append began (the manifest's bytes, 0 for a new session). */
  start: number;
  /** The length the log has once the append completes. */
  end: number;
  /** sha256:<hex> of the bytes [start, end). */
  sha256: string;
  /** Who signed the entry (set when read back). */
  key_id?: string;
}

export function journalPath(storeDir: string): string {
  return join(storeDir, JOURNAL_FILE);
}

/** Records appends before they happen: one signed JSON line each, all fsynced at once. */
export function journalAppend(storeDir: string, entries: JournalEntry | JournalEntry[], keys: KeyPair): void {
  const lines = (Array.isArray(entries) ? entries : [entries]).map((entry) => JSON.stringify(signDocument({ ...entry }, keys)) + '\n');
  appendDurably(journalPath(storeDir), Buffer.from(lines.join('')));
}

/**
 * The journal's entries that carry a valid signature by a trusted key (the own key for a writer);
 * anything else in the file (hand-written ids, edited ranges, torn lines) counts for nothing.
 */
export function readJournal(storeDir: string, trusted: Map<string, Buffer>): JournalEntry[] {
  const path = journalPath(storeDir);
  if (!existsSync(path)) return [];
  const out: JournalEntry[] = [];
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    const value = parseJsonObject(text).value;
    if (!value) continue;
    const { session, start, end, sha256 } = value;
    if (typeof session !== 'string' || !SESSION_ID_PATTERN.test(session)) continue;
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || (start as number) < 0 || (end as number) <= (start as number)) continue;
    if (typeof sha256 !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(sha256)) continue;
    const signature = checkSignature(value, trusted);
    if (signature.status !== 'trusted') continue;
    out.push({ session, start: start as number, end: end as number, sha256, key_id: signature.key_id });
  }
  return out;
}

/** The entry that covers an append to `session` starting at its signed end `start`, if any. */
export function pendingAppend(entries: JournalEntry[], session: string, start: number): JournalEntry | undefined {
  let found: JournalEntry | undefined;
  for (const e of entries) if (e.session === session && e.start === start) found = e;
  return found;
}
