// Reading a conversation folder (docs/formats/openhands.md §2) as hostile input: only plain files
// inside the folder are read (a symbolic link is reported, never followed), each file is bounded
// in size before it is read, and the event files are taken in the order of their index.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { NOT_UTF8, readUtf8File } from '../../lib/capture/json-document.js';
import { UserError, readError } from '../../lib/cli/diagnostics.js';
import { isObject, parseJsonObject, type Json } from '../../lib/core/json.js';
import { BASE_STATE, EVENTS_DIR, EVENT_FILE, LOCK_FILE } from './paths.js';

/** An event file larger than this is not read (kept as meta, reported): memory stays bounded. */
export const MAX_EVENT_BYTES = 64 * 1024 * 1024;
/** base_state.json larger than this is not read (the conversation is still captured from its events). */
export const MAX_STATE_BYTES = 16 * 1024 * 1024;

export interface EventFile {
  name: string;
  path: string;
  index: number;
  eventId: string;
}

/** What is in the events folder: event files by index, and what else lies there. */
export interface EventListing {
  files: EventFile[];
  /** Names that are not event files (the lock file aside), and symbolic links: reported, not read. */
  foreign: string[];
  links: string[];
}

export function listEvents(dir: string): EventListing {
  const events = join(dir, EVENTS_DIR);
  const listing: EventListing = { files: [], foreign: [], links: [] };
  let names: string[];
  try {
    names = readdirSync(events);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return listing;
    throw readError(err, events);
  }
  for (const name of names.sort()) {
    if (name === LOCK_FILE) continue;
    const path = join(events, name);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isSymbolicLink()) {
      listing.links.push(name);
      continue;
    }
    const m = EVENT_FILE.exec(name);
    if (!m || !stat.isFile()) {
      listing.foreign.push(name);
      continue;
    }
    listing.files.push({ name, path, index: Number(m[1]), eventId: m[2] });
  }
  listing.files.sort((a, b) => a.index - b.index || a.name.localeCompare(b.name));
  return listing;
}

/** `badUtf8Line`: the first line whose bytes are not UTF-8 (read as U+FFFD), when there is one. */
export type ReadEvent = { ok: true; record: Json; text: string; bytes: number; badUtf8Line?: number } | { ok: false; problem: 'too-large'; bytes: number } | { ok: false; problem: 'unparseable'; text: string; bytes: number; reason: string; badUtf8Line?: number };

/** One event file: its JSON object, or why not. */
export function readEvent(path: string): ReadEvent {
  let size: number;
  try {
    size = lstatSync(path).size;
  } catch (err) {
    throw readError(err, path);
  }
  if (size > MAX_EVENT_BYTES) return { ok: false, problem: 'too-large', bytes: size };
  const { text, bytes, badUtf8Line } = readUtf8File(path);
  const parsed = parseJsonObject(text);
  const bad = badUtf8Line === undefined ? {} : { badUtf8Line };
  if (parsed.value) return { ok: true, record: parsed.value, text, bytes, ...bad };
  return { ok: false, problem: 'unparseable', text, bytes, reason: parsed.reason ?? 'not a JSON object', ...bad };
}

/** base_state.json when it is there, a plain file, small enough and a JSON object; else undefined and why (`where` names a line). */
export function readBaseState(dir: string): { state?: Json; problem?: string; where?: string } {
  const path = join(dir, BASE_STATE);
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) return {};
  if (stat.isSymbolicLink()) return { problem: 'a symbolic link: not followed' };
  if (!stat.isFile()) return { problem: 'not a file' };
  if (stat.size > MAX_STATE_BYTES) return { problem: `${stat.size} bytes, over ${MAX_STATE_BYTES}: not read` };
  const { text, badUtf8Line } = readUtf8File(path);
  const parsed = parseJsonObject(text);
  if (!parsed.value) return { problem: `not JSON (${parsed.reason})` };
  if (badUtf8Line !== undefined) return { state: parsed.value, problem: NOT_UTF8, where: `${path}:${badUtf8Line}` };
  return { state: parsed.value };
}

/** What session.start and listings take from base_state.json: never the LLM settings (keys, URLs). */
export function stateSummary(state: Json | undefined): Json {
  const out: Json = {};
  if (!state) return out;
  if (typeof state.id === 'string') out.id = state.id;
  const workspace = isObject(state.workspace) ? state.workspace : undefined;
  if (typeof workspace?.working_dir === 'string') out.cwd = workspace.working_dir;
  if (typeof workspace?.kind === 'string') out.workspace_kind = workspace.kind;
  const agent = isObject(state.agent) ? state.agent : undefined;
  const llm = isObject(agent?.llm) ? agent.llm : undefined;
  if (typeof llm?.model === 'string') out.model = llm.model;
  if (Array.isArray(agent?.tools)) out.tools = agent.tools.filter(isObject).map((t) => t.name).filter((n): n is string => typeof n === 'string');
  if (isObject(agent?.condenser) && typeof agent.condenser.kind === 'string') out.condenser = agent.condenser.kind;
  if (typeof state.execution_status === 'string') out.execution_status = state.execution_status;
  if (typeof state.max_iterations === 'number') out.max_iterations = state.max_iterations;
  if (typeof state.title === 'string') out.title = state.title;
  return out;
}

/** The conversation folder a path names: the folder itself, its base_state.json, its events folder or one event file. */
export function conversationDirOf(path: string): string {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) throw new UserError('no such OpenHands conversation folder or event file', path);
  if (stat.isSymbolicLink()) throw new UserError('a symbolic link: not followed (give the conversation folder itself)', path);
  if (stat.isDirectory()) {
    const dir = path.replace(/\/+$/, '').endsWith(`/${EVENTS_DIR}`) ? join(path, '..') : path;
    // A folder with neither file is not a conversation: reading it as an empty one would pass a wrong path silently.
    if (!lstatSync(join(dir, BASE_STATE), { throwIfNoEntry: false }) && !lstatSync(join(dir, EVENTS_DIR), { throwIfNoEntry: false })) {
      throw new UserError(`not an OpenHands conversation folder: it holds neither ${BASE_STATE} nor ${EVENTS_DIR}/`, path);
    }
    return dir;
  }
  const parent = join(path, '..');
  if (path.endsWith(`/${BASE_STATE}`)) return parent;
  if (EVENT_FILE.test(path.slice(path.lastIndexOf('/') + 1)) && parent.endsWith(`/${EVENTS_DIR}`)) return join(parent, '..');
  throw new UserError('not an OpenHands conversation: give its folder (conversations/<id>), its base_state.json or one of its event files', path);
}
