// Fixture paths for the Continue CLI tests (fixtures/continue/README.md).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Grower, Injected } from '../contract/testAdapter.js';

export const CONTINUE = new URL('../../fixtures/continue/', import.meta.url).pathname;
export const HOME = `${CONTINUE}home`;
/** Read and Bash, an answer; a second prompt through `cn -p --resume`. */
export const READ = `${HOME}/sessions/f4014728-8397-421d-a703-82dd1dbc16ec.json`;
/** Write with text, Edit and a failing Read in one item (errored), Search (errored); then Read, MultiEdit, List after `--resume`. */
export const SUMMARY = `${HOME}/sessions/8423ddad-9e4b-4db6-b258-7339d2cd6a68.json`;
export const ALL = [READ, SUMMARY];

type Json = Record<string, any>;

export function readDocument(path: string): Json {
  return JSON.parse(readFileSync(path, 'utf8')) as Json;
}

/** A copy of a session file and the index beside it in `dir/sessions/`; returns the session file. */
export function copySession(fixture: string, dir: string): string {
  const folder = join(dir, 'sessions');
  mkdirSync(folder, { recursive: true });
  const target = join(folder, basename(fixture));
  copyFileSync(fixture, target);
  copyFileSync(join(dirname(fixture), 'sessions.json'), join(folder, 'sessions.json'));
  return target;
}

/** A copy whose history has `item` inserted after the first item (record 2). */
export function injectItem(fixture: string, dir: string, item: unknown): Injected {
  const path = copySession(fixture, dir);
  const doc = readDocument(path);
  doc.history.splice(1, 0, item);
  writeFileSync(path, JSON.stringify(doc, null, 2));
  return { path, marker: '', line: 2 };
}

/** The client rewrites the whole file per step: a copy that grows one history item at a time. */
export function growSession(fixture: string, dir: string): Grower {
  const path = copySession(fixture, dir);
  const doc = readDocument(fixture);
  const all: unknown[] = doc.history;
  let count = 0;
  const write = (history: unknown[]): void => writeFileSync(path, JSON.stringify({ ...doc, history }, null, 2));
  write([]);
  return {
    path,
    count: all.length,
    add(i) {
      count = i + 1;
      write(all.slice(0, count));
      return { from: count, to: count };
    },
    truncate() {
      count -= 1;
      write(all.slice(0, count));
    },
    rewrite() {
      const changed = structuredClone(all.slice(0, count + 1)) as Json[];
      changed[count].contextItems = [{ name: 'rewritten', content: 'x' }];
      write(changed);
    },
  };
}
