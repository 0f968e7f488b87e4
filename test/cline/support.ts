// Fixture paths for the Cline CLI tests (fixtures/cline/README.md).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Grower, Injected } from '../contract/testAdapter.js';

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
  const path = copySession(fixture, dir);
  const doc = readDocument(path);
  doc.messages.splice(1, 0, message);
  writeFileSync(path, JSON.stringify(doc, null, 2));
  return { path, marker: '', line: 2 };
}

/** The client rewrites the whole file per step: a copy that grows one message at a time. */
export function growSession(fixture: string, dir: string): Grower {
  const path = copySession(fixture, dir);
  const doc = readDocument(fixture);
  const all: unknown[] = doc.messages;
  let count = 0;
  const write = (messages: unknown[]): void => writeFileSync(path, JSON.stringify({ ...doc, messages }, null, 2));
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
      changed[count].id = 'rewritten';
      write(changed);
    },
  };
}
