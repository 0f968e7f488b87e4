// One task folder and what lies around it (docs/formats/cline-tasks.md §2): the conversation files,
// the task metadata, and the task's entry in the history index: Roo's and Kilo's `history_item.json`
// beside the messages (or their `tasks/_index.json`), Cline's `state/taskHistory.json` in the
// extension's storage. Older versions kept the history only in the editor's state database, which
// is not read: such a task has no title or cwd beyond what its messages say.
import { lstatSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Diagnose } from '../../adapter/interface.js';
import { UserError } from '../../cli/diagnostics.js';
import { isObject } from '../../core/json.js';
import { expandTilde } from '../../fs/paths.js';
import { API_HISTORY, CONVERSATION_FILES, HISTORY_ITEM, TASK_METADATA, UI_MESSAGES, isTaskId } from './paths.js';
import { readObjectFile, readTaskFile } from './read.js';

type Json = Record<string, unknown>;

/** The task folder a path names: the folder itself, or one of the files in it. */
export function taskFolderOf(path: string): string {
  const plain = resolve(expandTilde(path));
  let isDir: boolean;
  try {
    isDir = statSync(plain).isDirectory();
  } catch (err) {
    throw new UserError(`cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, path);
  }
  const folder = isDir ? plain : dirname(plain);
  if (!isDir && !([API_HISTORY, UI_MESSAGES, TASK_METADATA, HISTORY_ITEM] as string[]).includes(basename(plain))) {
    throw new UserError(`not a task file (a task folder holds ${API_HISTORY} and ${UI_MESSAGES})`, path);
  }
  if (!isTaskId(basename(folder))) throw new UserError(`the folder name "${basename(folder).slice(0, 80)}" is not a task id`, path);
  return folder;
}

/** The file a task's ref names: its API history, else its UI messages (plain files only); undefined when it has neither. */
export function primaryFile(folder: string): string | undefined {
  for (const name of CONVERSATION_FILES) {
    try {
      if (lstatSync(join(folder, name)).isFile()) return join(folder, name);
    } catch {
      // not there
    }
  }
  return undefined;
}

/** The newest modification time (epoch seconds) of a task's conversation files. */
export function taskMtime(folder: string): number {
  let newest = 0;
  for (const name of CONVERSATION_FILES) {
    try {
      const stat = lstatSync(join(folder, name));
      if (stat.isFile()) newest = Math.max(newest, stat.mtimeMs / 1000);
    } catch {
      // not there
    }
  }
  return newest;
}

/** The history entries of one extension storage by task id (Cline's state file, Roo's and Kilo's index). */
export function storageHistory(storage: string, onDiagnostic?: Diagnose): Map<string, Json> {
  const out = new Map<string, Json>();
  const cline = readTaskFile(join(storage, 'state', 'taskHistory.json'), onDiagnostic);
  const roo = readObjectFile(join(storage, 'tasks', '_index.json'), onDiagnostic);
  const lists = [cline.state === 'ok' && Array.isArray(cline.value) ? cline.value : [], Array.isArray(roo?.entries) ? roo.entries : []];
  for (const list of lists) for (const item of list) if (isObject(item) && typeof item.id === 'string' && !out.has(item.id)) out.set(item.id, item);
  return out;
}

/** The storage folder a task folder lies in (`<storage>/tasks/<id>`). */
export function storageOf(folder: string): string {
  return dirname(dirname(folder));
}

/** A task's history entry: its own `history_item.json`, else the storage's index. */
export function historyItemOf(folder: string, index: Map<string, Json> | undefined, onDiagnostic?: Diagnose): Json | undefined {
  return readObjectFile(join(folder, HISTORY_ITEM), onDiagnostic) ?? (index ?? storageHistory(storageOf(folder))).get(basename(folder));
}

/** The workspace a history entry names: Cline's `cwdOnTaskInitialization`, Roo's and Kilo's `workspace`. */
export function cwdOf(item: Json | undefined): string | undefined {
  const cwd = item?.cwdOnTaskInitialization ?? item?.workspace;
  return typeof cwd === 'string' && cwd !== '' ? cwd : undefined;
}

/** The editor whose user data holds a storage folder (`…/<editor>/User/globalStorage/<extension>`), when the path says. */
export function editorOf(storage: string): string | undefined {
  const m = /[\\/]([^\\/]+)[\\/](?:data[\\/])?User[\\/]globalStorage[\\/][^\\/]+[\\/]?$/.exec(storage);
  return m ? m[1] : undefined;
}
