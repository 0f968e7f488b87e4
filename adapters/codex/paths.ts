// Where Codex keeps things (docs/formats/codex.md §1): `$CODEX_HOME` (default ~/.codex), rollouts at
// `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl` (UTC start time), thread titles
// in `session_index.jsonl`, the thread index in `state_<N>.sqlite`.
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { envPath } from '../../lib/fs/paths.js';
import { UUID, type NativeIdFormat } from '../../lib/write/native-id.js';

export const HOME_ENV = 'CODEX_HOME';
export const AGENT = 'codex';

/** The home the client uses when CODEX_HOME is unset. */
export function builtInHome(): string {
  return join(homedir(), '.codex');
}

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? builtInHome();
}

export function sessionsDir(home: string): string {
  return join(home, 'sessions');
}

export function sessionIndexPath(home: string): string {
  return join(home, 'session_index.jsonl');
}

const ROLLOUT_NAME = /^rollout-(\d{4})-(\d\d)-(\d\d)T(\d\d)-(\d\d)-(\d\d)-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

/** What a rollout's file name says: its start time (UTC, epoch seconds) and thread id; undefined for other names. */
export function parseRolloutName(path: string): { id: string; startedAt: number } | undefined {
  const m = ROLLOUT_NAME.exec(basename(path));
  if (!m) return undefined;
  const startedAt = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) / 1000;
  return { id: m[7], startedAt };
}

/** `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl` for a start time (epoch seconds, UTC). */
export function rolloutRelPath(startedAt: number, id: string): string {
  const iso = new Date(Math.floor(startedAt) * 1000).toISOString(); // 2026-11-30T05:06:52.000Z
  const [y, mo, d] = [iso.slice(0, 4), iso.slice(5, 7), iso.slice(8, 10)];
  const stamp = `${iso.slice(0, 10)}T${iso.slice(11, 19).replace(/:/g, '-')}`;
  return join('sessions', y, mo, d, `rollout-${stamp}-${id}.jsonl`);
}

/** The home a rollout lies in when it sits at `<home>/sessions/YYYY/MM/DD/<name>` (or `<home>/sessions/<name>`). */
export function homeOfRollout(path: string): string | undefined {
  const parts = resolve(path).split('/');
  for (const up of [5, 2]) {
    const at = parts.length - up;
    if (at > 0 && parts[at] === 'sessions') return parts.slice(0, at).join('/') || '/';
  }
  return undefined;
}

/** `state_<N>.sqlite` files of a home, the highest N first (the client opens its newest schema). */
export function stateDbs(home: string): string[] {
  let names: string[];
  try {
    names = readdirSync(home);
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, n: /^state_(\d+)\.sqlite$/.exec(name)?.[1] }))
    .filter((e): e is { name: string; n: string } => e.n !== undefined)
    .sort((a, b) => Number(b.n) - Number(a.n))
    .map((e) => join(home, e.name));
}

/** Codex resumes only an id that parses as a UUID (0.171 mints v7, older versions v4); anything else is read as a thread name. */
export const NATIVE_ID: NativeIdFormat = { agent: 'Codex', pattern: UUID, described: 'a UUID' };
