// Where Factory Droid keeps its sessions (docs/formats/droid.md §1): `~/.factory/sessions/<cwd
// slug>/<uuid>.jsonl`, next to `<uuid>.settings.json` (model, autonomy, token counts). The client
// finds `~/.factory` under FACTORY_HOME_OVERRIDE, else HOME; sp's home is the `.factory` folder
// itself (SP_DROID_HOME, else `$FACTORY_HOME_OVERRIDE/.factory`, else `~/.factory`).
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { envPath } from '../../lib/fs/paths.js';
import { UUID, type NativeIdFormat } from '../../lib/write/native-id.js';

export const HOME_ENV = 'SP_DROID_HOME';
export const CLIENT_HOME_ENV = 'FACTORY_HOME_OVERRIDE';
export { expandTilde } from '../../lib/fs/paths.js';

export function builtInHome(): string {
  const override = envPath(CLIENT_HOME_ENV);
  return join(override ?? homedir(), '.factory');
}

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? builtInHome();
}

export function sessionsDir(home: string): string {
  return join(home, 'sessions');
}

/**
 * The folder name the client gives a project: its absolute cwd with every `/` (and `\` or `:` on
 * Windows) turned into `-` (`/home/judy/acme-api` → `-home-judy-acme-api`; docs/formats/droid.md §1).
 */
export function projectSlug(cwd: string): string {
  return cwd.replace(/[\\/:]/g, '-');
}

/** The id a session file is named by (`<uuid>.jsonl`). */
export function idFromPath(path: string): string {
  return basename(path, '.jsonl');
}

/** The sidecar the client keeps beside a session (`<uuid>.settings.json`). */
export function settingsPathOf(sessionPath: string): string {
  return sessionPath.replace(/\.jsonl$/, '.settings.json');
}

/** Droid names a session by a random UUID (`session_start.id`, the file name). */
export const NATIVE_ID: NativeIdFormat = { agent: 'Factory Droid', pattern: UUID, described: 'a UUID' };

/** The model a writer names when the source names none: one of the client's built-in model ids. */
export const DEFAULT_MODEL = 'claude-sonnet-4-6';
