// Where Qoder CLI keeps sessions (formats/qoder.md §3): `<home>/projects/<slug of cwd>/<uuid>.jsonl`,
// the slug as Claude Code makes it; home = `$QODER_CONFIG_DIR` or `~/.qoder`.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const HOME_ENV = 'QODER_CONFIG_DIR';

export function defaultHome(): string {
  const fromEnv = process.env[HOME_ENV];
  return fromEnv && fromEnv.trim() !== '' ? resolve(fromEnv) : join(homedir(), '.qoder');
}

export function projectsDir(home: string): string {
  return join(home, 'projects');
}
