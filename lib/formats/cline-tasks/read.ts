// Reading one task folder's JSON files as hostile input (docs/formats/cline-tasks.md §2): a file is
// never followed through a symbolic link, one over the size limit is refused with a clear error
// before it is read, and a file that is not JSON, or not the shape expected, is reported as
// `file:line` and left out while the rest of the task is captured.
import { lstatSync, readFileSync, type Stats } from 'node:fs';
import type { Diagnose } from '../../adapter/interface.js';
import { UserError, errorCode } from '../../cli/diagnostics.js';
import { isObject } from '../../core/json.js';

export const MAX_FILE_BYTES_ENV = 'SP_TASK_FILE_MAX_BYTES';
/** The extensions write each file whole with JSON.stringify; a task past this is refused, not parsed. */
const DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024;

/** The size limit of one task file: SP_TASK_FILE_MAX_BYTES when it is a positive integer. */
export function maxFileBytes(): number {
  const value = Number(process.env[MAX_FILE_BYTES_ENV]);
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_MAX_FILE_BYTES;
}

/** What reading a task file gave: nothing there, a parsed value, or a problem already reported. */
export type TaskFile = { state: 'absent' } | { state: 'ok'; value: unknown; size: number } | { state: 'broken'; reason: string; text: string };

/** The file's lstat, or undefined when it does not exist. */
function lstatOrAbsent(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return undefined;
    throw new UserError(`cannot read: ${errorCode(err)}`, path);
  }
}

/** The 1-based line of character `at` in `text`. */
function lineAt(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}

/** The line a JSON.parse error points at (V8 names the position), else the last line. */
function errorLine(text: string, message: string): number {
  const m = /position (\d+)/.exec(message);
  return lineAt(text, m ? Number(m[1]) : text.length);
}

/**
 * One task file parsed. A symbolic link is not followed (it could lead anywhere) and a file that
 * is not JSON is broken: both are reported through `onDiagnostic` and the caller goes on. A file
 * over the size limit is a UserError (exit 2): reading it would hold it all in memory.
 */
export function readTaskFile(path: string, onDiagnostic?: Diagnose): TaskFile {
  const stat = lstatOrAbsent(path);
  if (!stat) return { state: 'absent' };
  if (stat.isSymbolicLink()) {
    onDiagnostic?.(path, 'a symbolic link: not followed (a task file must be a plain file in its task folder)');
    return { state: 'broken', reason: 'symbolic link not followed', text: '' };
  }
  if (!stat.isFile()) {
    onDiagnostic?.(path, 'not a plain file: skipped');
    return { state: 'broken', reason: 'not a plain file', text: '' };
  }
  const limit = maxFileBytes();
  if (stat.size > limit) throw new UserError(`is ${stat.size} bytes, over the ${limit}-byte limit for one task file (${MAX_FILE_BYTES_ENV} raises it)`, path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read: ${errorCode(err)}`, path);
  }
  try {
    return { state: 'ok', value: JSON.parse(text) as unknown, size: stat.size };
  } catch (err) {
    const reason = (err as Error).message;
    onDiagnostic?.(`${path}:${errorLine(text, reason)}`, `not JSON (${reason.slice(0, 200)}): the file is left out, the rest of the task is captured`);
    return { state: 'broken', reason, text: text.slice(0, 4096) };
  }
}

/**
 * The message list a conversation file holds: Cline's and older Roo's plain array, or Roo's
 * versioned `{version, messages}` envelope. Anything else is reported and read as no messages.
 */
export function messageList(file: TaskFile, path: string, onDiagnostic?: Diagnose): { messages: unknown[]; envelope?: Record<string, unknown>; problem?: string } {
  if (file.state !== 'ok') return { messages: [] };
  const value = file.value;
  if (Array.isArray(value)) return { messages: value };
  if (isObject(value) && Array.isArray(value.messages)) {
    const { messages, ...envelope } = value;
    return { messages: messages as unknown[], envelope };
  }
  const problem = `not a list of messages (a JSON ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value})`;
  onDiagnostic?.(`${path}:1`, `${problem}: the file is left out, the rest of the task is captured`);
  return { messages: [], problem };
}

/** A JSON object file (metadata, history item); undefined when absent, broken or another value. */
export function readObjectFile(path: string, onDiagnostic?: Diagnose): Record<string, unknown> | undefined {
  const file = readTaskFile(path, onDiagnostic);
  return file.state === 'ok' && isObject(file.value) ? file.value : undefined;
}
