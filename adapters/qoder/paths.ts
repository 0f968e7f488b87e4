// Where Qoder CLI keeps sessions (docs/formats/qoder.md §3): `<home>/projects/<slug of cwd>/<uuid>.jsonl`,
// the slug as Claude Code makes it; home = `$QODER_CONFIG_DIR` or `~/.qoder`.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { envPath } from '../../lib/fs/paths.js';
import { UUID, type NativeIdFormat } from '../../lib/write/native-id.js';

export const HOME_ENV = 'QODER_CONFIG_DIR';

/** The home the client uses when QODER_CONFIG_DIR is unset. */
export function builtInHome(): string {
  return join(homedir(), '.qoder');
}

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? builtInHome();
}

export function projectsDir(home: string): string {
  return join(home, 'projects');
}

/** Qoder's default tier alias. */
export const DEFAULT_MODEL = 'auto';

/** Qoder names a transcript `<session uuid>.jsonl`, as Claude Code does. */
export const NATIVE_ID: NativeIdFormat = { agent: 'Qoder', pattern: UUID, described: 'a UUID' };
