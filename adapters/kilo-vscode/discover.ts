// Finding Kilo Code (VS Code) tasks: the shared task-store discovery (lib/formats/cline-tasks/discover.ts)
// over this extension's storage folders.
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { discoverTasks, findTask, openTask } from '../../lib/formats/cline-tasks/discover.js';
import { flavor } from './paths.js';

export function discoverKiloVscode(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  return discoverTasks(flavor, options);
}

export function openKiloVscode(path: string): Promise<SessionRef> {
  return openTask(flavor, path);
}

export function findKiloVscode(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  return findTask(flavor, id, options);
}
