// Fixture paths for the OpenCode tests, and copies of the corpus database (never opened in place:
// a read-write open would checkpoint it).
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const OPENCODE = new URL('../../fixtures/opencode/', import.meta.url).pathname;
export const DATA = `${OPENCODE}corpus/.local/share/opencode`;
export const DB = `${DATA}/opencode.db`;
export const FEATURE = 'ses_dd50d7ac9ffeopDbUmApW0BTAX';
export const FAILING = 'ses_dd50cf703ffetO3iMhNtrSb7wl';
export const ATTACHMENT = 'ses_dd4fd1302ffeOUIzjT5Q4WL6Yw';
export const SESSIONS = [FEATURE, FAILING, ATTACHMENT];
export const exportOf = (id: string): string => `${OPENCODE}corpus/exports/export-${id}.json`;
export const LEGACY = `${OPENCODE}corpus/legacy-1.1.58/.local/share/opencode`;
export const LEGACY_SESSION = 'ses_dd4ff67e0ffe5ENcP9WnTfyHs2';
export const LEGACY_EXPORT = `${OPENCODE}corpus/legacy-1.1.58/export-${LEGACY_SESSION}.json`;
export const PUBLIC_STORAGE = `${OPENCODE}public/agent-sessions/storage_v2`;
export const locator = (store: string, id: string): string => `${store}#${id}`;

/** A copy of the corpus database in `dir` (a data dir: `<dir>/opencode.db`). */
export function copyDb(dir: string, source = DB): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'opencode.db');
  copyFileSync(source, path);
  return path;
}
