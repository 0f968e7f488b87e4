// Where Cursor keeps chats (docs/formats/cursor.md §1): the CLI's `~/.cursor/chats/<md5(cwd)>/<chatId>/store.db`
// (+ `meta.json`), agent transcripts `~/.cursor/projects/<slug>/agent-transcripts/<id>/<id>.jsonl`, and
// the IDE's global `…/Cursor/User/globalStorage/state.vscdb` (CURSOR_IDE_DIR overrides `…/Cursor/User`).
// A ref's path names one source; `state.vscdb#<composerId>` names one IDE chat.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { envPath } from '../../lib/fs/paths.js';

export const AGENT = 'cursor';
export const HOME_ENV = 'CURSOR_HOME';
export const IDE_ENV = 'CURSOR_IDE_DIR';

export { expandTilde } from '../../lib/fs/paths.js';
import { UUID, type NativeIdFormat } from '../../lib/write/native-id.js';

/** The home the client uses when CURSOR_HOME is unset. */
export function builtInHome(): string {
  return join(homedir(), '.cursor');
}

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? builtInHome();
}

/** `…/Cursor/User` of the IDE on this platform. */
export function defaultIdeDir(): string {
  const fromEnv = envPath(IDE_ENV);
  if (fromEnv) return fromEnv;
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Cursor', 'User');
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Cursor', 'User');
  return join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Cursor', 'User');
}

export type SourceKind = 'cli-store' | 'ide-global' | 'transcript';

export function kindOf(path: string): SourceKind {
  const name = basename(path.replace(/#[^/]*$/, ''));
  if (name.endsWith('.vscdb')) return 'ide-global';
  if (name.endsWith('.jsonl')) return 'transcript';
  return 'cli-store';
}

/** `state.vscdb#<composerId>` → the file and the composer. */
export function splitLocator(path: string): { file: string; composer?: string } {
  const m = /^(.*\.vscdb)#([^/#]+)$/.exec(path);
  return m ? { file: m[1], composer: m[2] } : { file: path };
}

/** `meta.json` next to a CLI store (2026.07+): `{schemaVersion, createdAtMs, hasConversation, updatedAtMs, cwd}`. */
export function readMetaJson(storePath: string): Record<string, unknown> | undefined {
  const path = join(dirname(storePath), 'meta.json');
  if (!existsSync(path)) return undefined;
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Text of a user turn without Cursor's `<user_query>` wrapper. */
export function unwrapQuery(text: string): string {
  const m = /^\s*<user_query>\s*([\s\S]*?)\s*<\/user_query>\s*$/.exec(text);
  return m ? m[1] : text;
}

/** Why the writer is experimental (a Cursor client cannot run here). */
export const UNVERIFIED = 'no Cursor client ran here: the store follows the layout SpecStory writes and cursor-agent --resume is reported to accept (docs/formats/cursor.md §7)';

/** Cursor CLI's chat id (agentId) is a UUID and names the chat's folder. */
export const NATIVE_ID: NativeIdFormat = { agent: 'Cursor', pattern: UUID, described: 'a UUID' };
