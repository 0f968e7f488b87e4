// Fixture paths for the Kilo Code CLI tests (fixtures/kilo/README.md), and copies of the corpus
// database (never opened in place: a read-write open would checkpoint it).
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const KILO = new URL('../../fixtures/kilo/', import.meta.url).pathname;
export const DATA = `${KILO}corpus/.local/share/kilo`;
export const DB = `${DATA}/kilo.db`;
export const SESSION = 'ses_dc9efdf60ffec5P1gideThrRrP';
export const EXPORT = `${KILO}corpus/exports/export-${SESSION}.json`;
export const locator = (store: string, id: string): string => `${store}#${id}`;

/** A copy of the corpus database in `dir` (a data dir: `<dir>/kilo.db`). */
export function copyDb(dir: string, source = DB): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'kilo.db');
  copyFileSync(source, path);
  return path;
}
