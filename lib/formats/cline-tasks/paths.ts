// Where the VS Code extensions of the Cline family keep their tasks (docs/formats/cline-tasks.md §1):
// the editor's `User/globalStorage/<extension id>/` folder holds `tasks/<task id>/`, one folder per
// task. Every editor built on VS Code has its own user-data folder, so the same extension installed in
// VS Code and in Cursor keeps two separate stores; discovery looks in each that exists.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { envPath, expandTilde } from '../../fs/paths.js';
import type { TaskStoreFlavor } from './flavor.js';

/** The files of one task folder (docs/formats/cline-tasks.md §2). */
export const API_HISTORY = 'api_conversation_history.json';
export const UI_MESSAGES = 'ui_messages.json';
export const TASK_METADATA = 'task_metadata.json';
/** Roo Code and Kilo Code: the task's history entry, beside its messages. */
export const HISTORY_ITEM = 'history_item.json';
/** The files capture reads, in the order a ref prefers as its path. */
export const CONVERSATION_FILES = [API_HISTORY, UI_MESSAGES] as const;

/** The user-data folders (each with `User/globalStorage/`) of the editors that run these extensions. */
export const EDITORS = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf'] as const;
/** Remote servers (SSH, WSL, containers) keep the extension host's data under the home. */
const REMOTE_SERVERS = ['.vscode-server', '.vscode-server-insiders', '.cursor-server', '.windsurf-server'] as const;

/** The folder that holds every editor's user data on this platform. */
export function userDataBase(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support');
  if (platform === 'win32') return process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming');
  return process.env.XDG_CONFIG_HOME && process.env.XDG_CONFIG_HOME.trim() !== '' ? process.env.XDG_CONFIG_HOME : join(homedir(), '.config');
}

/** Every place an extension's globalStorage folder can be, most common editor first (they may not exist). */
export function candidateStorages(extensionId: string): string[] {
  const base = userDataBase();
  const local = EDITORS.map((editor) => join(base, editor, 'User', 'globalStorage', extensionId));
  const remote = REMOTE_SERVERS.map((server) => join(homedir(), server, 'data', 'User', 'globalStorage', extensionId));
  return [...local, ...remote];
}

export function tasksDir(storage: string): string {
  return join(storage, 'tasks');
}

/**
 * Task ids as the extensions make them: Cline's epoch milliseconds, Roo's and Kilo's UUIDs. A name
 * that is not one (a `..`, a separator, an index file such as Roo's `_index.json`) is never a task.
 */
export const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/;

export function isTaskId(value: string): boolean {
  return TASK_ID.test(value);
}

/** What `--follow` watches for a task: both conversation files of its folder. */
export function taskWatchPaths(ref: { path: string }): string[] {
  return CONVERSATION_FILES.map((name) => join(dirname(ref.path), name));
}

/** The storage folders to look in: the home given, else the variable's, else every editor's that exists. */
export function storagesOf(flavor: TaskStoreFlavor, home: string | undefined): string[] {
  const given = home !== undefined ? resolve(expandTilde(home)) : envPath(flavor.homeEnv);
  if (given !== undefined) return [given];
  return flavor.extensionIds.flatMap(candidateStorages).filter((storage) => existsSync(tasksDir(storage)));
}

/** The storage sp names when asked for one: the variable's, else the first editor's that exists, else VS Code's. */
export function defaultStorage(flavor: TaskStoreFlavor): string {
  return storagesOf(flavor, undefined)[0] ?? candidateStorages(flavor.extensionIds[0])[0];
}
