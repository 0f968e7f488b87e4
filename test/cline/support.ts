// Fixture paths for the Cline CLI tests (fixtures/cline/README.md).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Grower, Injected } from '../contract/testAdapter.js';
import { growItems, insertItem } from '../support/documentList.js';

export const CLINE = new URL('../../fixtures/cline/', import.meta.url).pathname;
export const HOME = `${CLINE}home`;
/** One prompt: read_files, then a final answer (the probe run). */
export const READ = `${HOME}/data/sessions/1796189508652_gbs95/1796189508652_gbs95.messages.json`;
/** Two prompts (the second through session/load over ACP): read_files and run_commands in one message, editor, answers. */
export const SUMMARY = `${HOME}/data/sessions/1796190077287_76d81/1796190077287_76d81.messages.json`;
export const ALL = [READ, SUMMARY];

type Json = Record<string, any>;

export function readDocument(path: string): Json {
  return JSON.parse(readFileSync(path, 'utf8')) as Json;
}

/** A copy of a session folder (messages file and manifest) in `dir`; returns the messages file. */
export function copySession(fixture: string, dir: string): string {
  const folder = join(dir, basename(dirname(fixture)));
  mkdirSync(folder, { recursive: true });
  const target = join(folder, basename(fixture));
  copyFileSync(fixture, target);
  const manifest = fixture.replace(/\.messages\.json$/, '.json');
  copyFileSync(manifest, target.replace(/\.messages\.json$/, '.json'));
  return target;
}

/** A copy whose message list has `message` inserted after the first message (record 2). */
export function injectMessage(fixture: string, dir: string, message: unknown): Injected {
  return insertItem(copySession(fixture, dir), 'messages', message);
}

/** The client rewrites the whole file per step: a copy that grows one message at a time. */
export function growSession(fixture: string, dir: string): Grower {
  return growItems(fixture, copySession(fixture, dir), 'messages', (item) => {
    item.id = 'rewritten';
  });
}
