// Finding the tasks of one extension (docs/formats/cline-tasks.md §1): with a home, the tasks under
// it; without one, the tasks of every editor's storage for the extension that exists, all merged
// newest first. A task folder that is a symbolic link, or whose name is not a task id, is skipped
// and reported: a link could lead discovery out of the storage.
import { readdirSync, type Dirent } from 'node:fs';
import { basename, join } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../adapter/interface.js';
import { findByIdPrefix, noteTime, sessionRefsNewestFirst } from '../../capture/discover.js';
import { promptTitle } from '../../capture/titles.js';
import { UserError, errorCode } from '../../cli/diagnostics.js';
import { expandTilde } from '../../fs/paths.js';
import { isObject, str } from '../../core/json.js';
import type { TaskStoreFlavor } from './flavor.js';
import { isTaskId, storagesOf, tasksDir } from './paths.js';
import { messageList, readTaskFile } from './read.js';
import { cwdOf, editorOf, historyItemOf, primaryFile, storageHistory, storageOf, taskFolderOf, taskMtime } from './task.js';

type Json = Record<string, unknown>;

function refOf(flavor: TaskStoreFlavor, path: string, index: Map<string, Json> | undefined): SessionRef {
  const folder = join(path, '..');
  const storage = storageOf(folder);
  const ref: SessionRef = { agent: flavor.agent, native_id: basename(folder), path, mtime: taskMtime(folder), storage };
  const item = historyItemOf(folder, index);
  const cwd = cwdOf(item);
  if (cwd) ref.cwd = cwd;
  if (typeof item?.task === 'string' && item.task.trim() !== '') ref.title = promptTitle(item.task);
  const parent = str(item?.parentTaskId);
  if (parent) ref.parent_native_id = parent;
  const editor = editorOf(storage);
  if (editor) ref.editor = editor;
  return ref;
}

/** `--list` details: times, message and tool call counts from the API history (or the UI messages). */
async function summarize(ref: SessionRef): Promise<SessionRef> {
  const out: SessionRef = { ...ref };
  const { messages } = messageList(readTaskFile(ref.path), ref.path);
  let count = 0;
  let calls = 0;
  for (const message of messages) {
    if (!isObject(message)) continue;
    noteTime(out, message.ts);
    if (message.role === 'user' || message.role === 'assistant' || message.type === 'say') count += 1;
    if (Array.isArray(message.content)) calls += message.content.filter((b) => isObject(b) && (b.type === 'tool_use' || b.type === 'tool-call')).length;
  }
  out.messages = count;
  out.tool_calls = calls;
  return out;
}

/** The conversation files of one storage's task folders, skipping (and reporting) what is not a task. */
function taskFiles(storage: string, options: DiscoverOptions): string[] {
  const root = tasksDir(storage);
  let entries: Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch (err) {
    throw new UserError(`cannot read the tasks folder: ${errorCode(err)} (set --home to the extension's globalStorage folder)`, root);
  }
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name.startsWith('_')) continue;
    const where = join(root, entry.name);
    if (entry.isSymbolicLink()) options.onDiagnostic?.(where, 'a symbolic link: not followed (a task folder must lie in the storage)');
    else if (!entry.isDirectory()) continue;
    else if (!isTaskId(entry.name)) options.onDiagnostic?.(where, 'not a task id: skipped');
    else {
      const file = primaryFile(where);
      if (file) files.push(file);
      else options.onDiagnostic?.(where, 'a task folder with neither api_conversation_history.json nor ui_messages.json: skipped');
    }
  }
  return files;
}

export async function* discoverTasks(flavor: TaskStoreFlavor, options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const storages = storagesOf(flavor, options.home);
  if (storages.length === 0) {
    throw new UserError(`no ${flavor.label} task storage found (looked in every editor's globalStorage/${flavor.extensionIds.join(' and ')}); set --home or ${flavor.homeEnv}`);
  }
  const cwd = options.cwd !== undefined ? expandTilde(options.cwd) : undefined;
  const all: SessionRef[] = [];
  for (const storage of storages) {
    const index = storageHistory(storage);
    const refs = sessionRefsNewestFirst(taskFiles(storage, options), { home: storage, cwd, details: options.details }, (path) => refOf(flavor, path, index), summarize);
    for await (const ref of refs) all.push(ref);
  }
  all.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || a.path.localeCompare(b.path));
  yield* all;
}

export async function openTask(flavor: TaskStoreFlavor, path: string): Promise<SessionRef> {
  const folder = taskFolderOf(path);
  const file = primaryFile(folder);
  if (!file) throw new UserError('a task folder with neither api_conversation_history.json nor ui_messages.json (as plain files)', folder);
  const ref = refOf(flavor, file, undefined);
  ref.home = storageOf(folder);
  return ref;
}

export async function findTask(flavor: TaskStoreFlavor, id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  // An id chooses a folder name: anything but a task id's characters could name another place.
  if (!/^[A-Za-z0-9-]{1,128}$/.test(id)) throw new UserError(`"${id.slice(0, 80)}" is not a task id (digits, letters and dashes)`);
  const tasks = discoverTasks(flavor, { home: options.home, onDiagnostic: options.onDiagnostic });
  return findByIdPrefix(tasks, id, `no ${flavor.label} task "${id}" (sp-capture ${flavor.agent} --list shows the tasks)`);
}
