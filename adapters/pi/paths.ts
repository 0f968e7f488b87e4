// Where the Pi coding agent keeps its sessions (docs/formats/pi.md §1):
// `<agentDir>/sessions/--<escaped cwd>--/<fileTimestamp>_<sessionId>.jsonl`, agentDir from
// `PI_CODING_AGENT_DIR` (a leading `~` expanded, as the client does), else `~/.pi/agent`.
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { envPath, expandTilde } from '../../lib/fs/paths.js';

export const HOME_ENV = 'PI_CODING_AGENT_DIR';

export { expandTilde } from '../../lib/fs/paths.js';
import { UUID, type NativeIdFormat } from '../../lib/write/native-id.js';

/** The home the client uses when PI_CODING_AGENT_DIR is unset. */
export function builtInHome(): string {
  return join(homedir(), '.pi', 'agent');
}

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? builtInHome();
}

export function sessionsDir(home: string): string {
  return join(home, 'sessions');
}

/**
 * The folder name of a cwd: drop ONE leading `/` or `\`, then `/`, `\` and `:` become `-`, wrapped
 * in `--…--`. Not injective (`/a-b/c` and `/a/b-c` collide); the client only lists the folder.
 */
export function cwdFolder(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
}

/** `2026-11-30T04-30-59-610Z_<id>.jsonl`: the ISO creation time with `:` and `.` made `-`. */
export function sessionFileName(createdMs: number, sessionId: string): string {
  return `${new Date(createdMs).toISOString().replace(/[:.]/g, '-')}_${sessionId}.jsonl`;
}

/** The session id a file name carries (`<ts>_<id>.jsonl`), if it has that shape. */
export function idFromFileName(path: string): string | undefined {
  const name = basename(path);
  const match = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z_(.+)\.jsonl$/.exec(name);
  return match?.[1];
}

/** The agent dir of a file at `<home>/sessions/--cwd--/<file>`, when it lies there. */
export function homeOfSessionFile(path: string): string | undefined {
  const folder = dirname(resolve(path));
  const sessions = dirname(folder);
  return basename(sessions) === 'sessions' && /^--.*--$/.test(basename(folder)) ? dirname(sessions) : undefined;
}

/**
 * The cwd as the client will see it: `pi -c` files sessions under `process.cwd()`, which is the
 * physical path, so symlinks are resolved when the directory exists; otherwise only made absolute.
 */
export function resolveCwd(cwd: string): string {
  const absolute = resolve(expandTilde(cwd));
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/** Pi writes UUIDv7 session ids (v1-era files: v4) into `<time>_<id>.jsonl`. */
export const NATIVE_ID: NativeIdFormat = { agent: 'Pi', pattern: UUID, described: 'a UUID' };
