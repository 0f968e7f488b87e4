// Fixture paths for the Auggie tests (fixtures/auggie/README.md).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Grower, Injected } from '../contract/testAdapter.js';
import { growItems, insertItem } from '../support/documentList.js';

export const AUGGIE = new URL('../../fixtures/auggie/', import.meta.url).pathname;
export const HOME = `${AUGGIE}home`;
/** Text only, two prompts (the second through `-r`). */
export const CHAT = `${HOME}/sessions/81688f41-374d-4f8d-81d7-af76c775919a.json`;
/** Two prompts: view, launch-process, save-file, str-replace-editor, then a view of a missing file (an error). */
export const TOOLS = `${HOME}/sessions/4eda74e3-f534-4811-900d-a54c4e206d92.json`;
export const ALL = [CHAT, TOOLS];

type Json = Record<string, any>;

export function readDocument(path: string): Json {
  return JSON.parse(readFileSync(path, 'utf8')) as Json;
}

/** A copy of a session file in `dir/sessions/`; returns its path. */
export function copySession(fixture: string, dir: string): string {
  const folder = join(dir, 'sessions');
  mkdirSync(folder, { recursive: true });
  const target = join(folder, basename(fixture));
  copyFileSync(fixture, target);
  return target;
}

/** A copy whose history has `entry` inserted after the first exchange (record 2). */
export function injectEntry(fixture: string, dir: string, entry: unknown): Injected {
  return insertItem(copySession(fixture, dir), 'chatHistory', entry);
}

/** The client rewrites the whole file per step: a copy that grows one exchange at a time. */
export function growSession(fixture: string, dir: string): Grower {
  return growItems(fixture, copySession(fixture, dir), 'chatHistory', (item) => {
    item.sequenceId = 'rewritten';
  });
}
