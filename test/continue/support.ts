// Fixture paths for the Continue CLI tests (fixtures/continue/README.md).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Grower, Injected } from '../contract/testAdapter.js';
import { growItems, insertItem } from '../support/documentList.js';

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
  return insertItem(copySession(fixture, dir), 'history', item);
}

/** The client rewrites the whole file per step: a copy that grows one history item at a time. */
export function growSession(fixture: string, dir: string): Grower {
  return growItems(fixture, copySession(fixture, dir), 'history', (item) => {
    item.contextItems = [{ name: 'rewritten', content: 'x' }];
  });
}
