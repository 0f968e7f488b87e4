// Which folder a chat session belongs to (docs/formats/vscode-copilot.md §1): a workspace's sessions
// lie in `workspaceStorage/<hash>/chatSessions/`, and `workspace.json` beside that folder names the
// workspace as a URI (`folder` for one folder, `workspace` for a .code-workspace file). Only a local
// `file:` folder becomes the cwd; a remote URI is kept as it is, never turned into a path here.
import { lstatSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isObject, str } from '../../lib/core/json.js';
import { CHAT_SESSIONS, WORKSPACE_JSON } from './paths.js';

/** workspace.json is a few hundred bytes; anything much larger is not one. */
const MAX_WORKSPACE_JSON_BYTES = 64 * 1024;

export interface Place {
  storage: 'workspace' | 'empty-window' | 'other';
  /** The local folder the workspace is, when it is one. */
  cwd?: string;
  /** The workspace URI as workspace.json names it. */
  workspace?: string;
}

/** The URI's local path when it is a `file:` URI, else undefined. */
export function localPath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

export function workspaceOf(sessionPath: string): Place {
  const folder = dirname(sessionPath);
  if (basename(folder) === 'emptyWindowChatSessions') return { storage: 'empty-window' };
  if (basename(folder) !== CHAT_SESSIONS) return { storage: 'other' };
  const file = join(dirname(folder), WORKSPACE_JSON);
  let value: unknown;
  try {
    const stat = lstatSync(file);
    if (!stat.isFile() || stat.size > MAX_WORKSPACE_JSON_BYTES) return { storage: 'workspace' };
    value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return { storage: 'workspace' };
  }
  if (!isObject(value)) return { storage: 'workspace' };
  const uri = str(value.folder) ?? str(value.workspace);
  if (!uri) return { storage: 'workspace' };
  const path = str(value.folder) ? localPath(uri) : undefined;
  return { storage: 'workspace', workspace: uri, ...(path ? { cwd: path } : {}) };
}
