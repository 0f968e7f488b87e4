// Helpers for the store and sync tests: run the built binaries with a private SP_HOME, capture
// corpus sessions, read NDJSON.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Store, ensureKeys, eventKey } from '../../lib/store/index.js';
import { addTrusted } from '../../lib/store/trust.js';

export const root = resolve(import.meta.dirname, '../..');

export function bin(name: string): string {
  return join(root, 'dist/bin', `${name}.js`);
}

export function tempDir(prefix = 'sp-store-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function sp(name: string, args: string[], options: { home: string; input?: string; cwd?: string; env?: Record<string, string> }): Ran {
  const r = spawnSync(process.execPath, [bin(name), ...args], {
    input: options.input,
    cwd: options.cwd,
    encoding: 'utf8',
    maxBuffer: 256 << 20,
    env: { ...process.env, SP_HOME: options.home, SP_PROGRESS: '0', ...options.env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A corpus session captured by the real capture binary. */
export function capture(agent: string, path: string): string {
  const r = sp('sp-capture', [agent, '--path', join(root, path)], { home: tempDir() });
  if (r.status !== 0) throw new Error(`capture failed: ${r.stderr}`);
  return r.stdout;
}

export function parseLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export const CORPUS = {
  claudeLong: 'fixtures/claude/corpus/S3-long/.claude/projects/-home-alice-acme-api/fedfe4e3-0d75-4e8a-ae44-125dd06bbf71.jsonl',
  claudeDebug: 'fixtures/claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl',
  codexLong: 'fixtures/codex/corpus/S3-long/sessions/2026/11/30/rollout-2026-11-30T05-07-12-01a22ad9-94fc-7ae2-9539-88c29f4141fc.jsonl',
  piLong: 'fixtures/pi/corpus/S3-long/agent/sessions/--home-carol-acme-api--/2026-11-30T05-03-28-829Z_01a22ad6-2c3b-714c-9526-cda55a420afd.jsonl',
  piLarge: 'fixtures/pi/public/pi-mono/packages/coding-agent/test/fixtures/before-compaction.jsonl',
};

/** One machine of a sync test: its SP_HOME and the store in it. */
export interface Machine {
  home: string;
  dir: string;
}

export function machine(prefix = 'sp-sync-'): Machine {
  const home = tempDir(prefix);
  return { home, dir: join(home, 'store') };
}

/** `m` trusts `other`'s signing key (pull takes only events signed by trusted keys). */
export function trust(m: Machine, other: Machine, name: string): void {
  addTrusted(m.home, ensureKeys(other.home).publicRaw, name);
}

/** Runs `fn` on the machine's store, opened for writing, closed after. */
export async function withStore<T>(m: Machine, fn: (store: Store) => Promise<T> | T): Promise<T> {
  const store = Store.open(m.dir, { home: m.home, lockTimeoutMs: 60_000 });
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}

/** The keys of a stored session's events, sorted: two stores hold the same events when these match. */
export async function keysOf(m: Machine, session: string): Promise<string[]> {
  const store = Store.open(m.dir, { readonly: true, home: m.home });
  try {
    const keys: string[] = [];
    for await (const e of store.events(session)) keys.push(eventKey(e));
    return keys.sort();
  } finally {
    store.close();
  }
}
