// Claude Code's own defaults: its home (`$CLAUDE_CONFIG_DIR` or ~/.claude), default model and session
// id form. The layout under a home is the format's (lib/formats/claude-code/paths.ts).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { envPath } from '../../lib/fs/paths.js';
import { UUID, type NativeIdFormat } from '../../lib/write/native-id.js';

export const HOME_ENV = 'CLAUDE_CONFIG_DIR';

/** The home the client uses when CLAUDE_CONFIG_DIR is unset. */
export function builtInHome(): string {
  return join(homedir(), '.claude');
}

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? builtInHome();
}

/** `message.model` for assistant messages that name none, when the session names none either. */
export const DEFAULT_MODEL = 'claude-sonnet-4-5';

/** Claude Code names a transcript `<session uuid>.jsonl`; `--resume` takes the UUID. */
export const NATIVE_ID: NativeIdFormat = { agent: 'Claude Code', pattern: UUID, described: 'a UUID' };
