// Where VS Code's chat keeps its sessions (docs/formats/vscode-copilot.md §1). Every editor built on
// VS Code has a user folder (`Code/User`, `Code - Insiders/User`, `VSCodium/User` …); under it each
// workspace has `workspaceStorage/<hash>/chatSessions/<session id>.json` (before 1.109) or `.jsonl`
// (1.109 on: a mutation log), with `workspace.json` naming the folder next to `chatSessions/`.
// Windows without a folder keep theirs in `globalStorage/emptyWindowChatSessions/`. sp's home is
// the editor's `User` folder: SP_VSCODE_COPILOT_HOME, else every editor's that exists.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { envPath, expandTilde } from '../../lib/fs/paths.js';

export const AGENT = 'vscode-copilot';
export const HOME_ENV = 'SP_VSCODE_COPILOT_HOME';

/** The editors whose chat store has this layout, most common first. */
export const EDITORS = ['Code', 'Code - Insiders', 'VSCodium', 'VSCodium - Insiders', 'Code - OSS'] as const;

export const WORKSPACE_STORAGE = 'workspaceStorage';
export const CHAT_SESSIONS = 'chatSessions';
export const WORKSPACE_JSON = 'workspace.json';
export const EMPTY_WINDOW_SESSIONS = join('globalStorage', 'emptyWindowChatSessions');

/**
 * A session id as the editor makes it (a UUID) or any plain name: letters, digits, `-` and `_`.
 * A name with a dot, a separator or `..` is never a session, so an id can never name another place.
 */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
/** A session file: `<id>.json` (flat, before 1.109) or `<id>.jsonl` (mutation log). */
export const SESSION_FILE = /^([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.(json|jsonl)$/;
/** A workspace folder's name in workspaceStorage (a hash, or `no-workspace` from older releases). */
export const WORKSPACE_HASH = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** The folder that holds every editor's user data on this platform. */
export function userDataBase(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support');
  if (platform === 'win32') return process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming');
  const xdg = process.env.XDG_CONFIG_HOME;
  return xdg && xdg.trim() !== '' ? xdg : join(homedir(), '.config');
}

/** Every editor's `User` folder on this machine, whether it exists or not. */
export function candidateHomes(): string[] {
  const base = userDataBase();
  return EDITORS.map((editor) => join(base, editor, 'User'));
}

/** The homes to look in: the one given, else the variable's, else every editor's that exists. */
export function homesOf(home: string | undefined): string[] {
  const given = home !== undefined ? resolve(expandTilde(home)) : envPath(HOME_ENV);
  if (given !== undefined) return [resolve(given)];
  return candidateHomes().filter((candidate) => existsSync(join(candidate, WORKSPACE_STORAGE)) || existsSync(join(candidate, EMPTY_WINDOW_SESSIONS)));
}

export function defaultHome(): string {
  return homesOf(undefined)[0] ?? candidateHomes()[0];
}

/** The session id a file is named by, or undefined when the name is not a session file's. */
export function idOfFile(path: string): string | undefined {
  return SESSION_FILE.exec(basename(path))?.[1];
}

/** The editor a home belongs to (`Code`, `VSCodium` …), read from its path. */
export function editorOf(home: string): string | undefined {
  const parts = home.split(/[\\/]/);
  const at = parts.lastIndexOf('User');
  const editor = at > 0 ? parts[at - 1] : undefined;
  return editor && (EDITORS as readonly string[]).includes(editor) ? editor : undefined;
}
