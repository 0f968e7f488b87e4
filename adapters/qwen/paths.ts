// Where Qwen Code keeps sessions (docs/formats/qwen.md §3.1): `<runtime>/projects/<cwd with every
// [^A-Za-z0-9] → "->/chats/<sessionId>.jsonl`. The home is `$QWEN_HOME` (it IS the `.qwen` folder)
// or `~/.qwen`; `QWEN_RUNTIME_DIR` moves `projects/` (and other runtime data) elsewhere.
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { envPath } from '../../lib/fs/paths.js';
import { UUID, type NativeIdFormat } from '../../lib/write/native-id.js';

export const HOME_ENV = 'QWEN_HOME';

/** The home the client uses when QWEN_HOME is unset. */
export function builtInHome(): string {
  return join(homedir(), '.qwen');
}

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? builtInHome();
}

/** The folder holding `projects/`: QWEN_RUNTIME_DIR when the home is the default one. */
export function runtimeDir(home: string | undefined): string {
  if (home !== undefined) return resolve(home);
  const runtime = process.env.QWEN_RUNTIME_DIR;
  return runtime && runtime.trim() !== '' ? resolve(runtime) : defaultHome();
}

export function projectsDir(runtime: string): string {
  return join(runtime, 'projects');
}

/** The project folder name of a cwd (the client lower-cases it on Windows only). */
export function projectFolder(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

/** The client's accepted session file names. */
export const SESSION_FILE = /^[0-9a-fA-F-]{32,36}\.jsonl$/;

/** For `<runtime>/projects/<folder>/chats/<id>.jsonl`: the runtime folder. */
export function runtimeOfFile(path: string): string | undefined {
  const chats = dirname(resolve(path));
  if (basename(chats) !== 'chats') return undefined;
  const projects = dirname(dirname(chats));
  return basename(projects) === 'projects' ? dirname(projects) : undefined;
}

/** The model assistant records name when the source names none (the client continues with its own). */
export const DEFAULT_MODEL = 'qwen3-coder-plus';

/** Qwen Code names a session file `<session uuid>.jsonl` (SESSION_FILE). */
export const NATIVE_ID: NativeIdFormat = { agent: 'Qwen Code', pattern: UUID, described: 'a UUID' };
