// Finding OpenHands conversations (docs/formats/openhands.md §1): every folder under
// `<home>/conversations/` that has an events folder, newest first by its last write (the events
// folder or base_state.json, whichever changed last); `cwd` keeps those whose workspace
// working_dir is that directory. Symbolic links in the home are never followed.
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { isObject } from '../../lib/core/json.js';
import { expandTilde } from '../../lib/fs/paths.js';
import { OpsError } from '../../lib/ops/errors.js';
import { conversationDirOf, listEvents, readBaseState, readEvent, stateSummary } from './files.js';
import { AGENT, BASE_STATE, EVENTS_DIR, HOME_ENV, NATIVE_ID, conversationsDirOf, defaultHome, folderOfId } from './paths.js';

function mtimeOf(path: string): number {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  return stat && !stat.isSymbolicLink() ? stat.mtimeMs / 1000 : 0;
}

/** The first user message's text, reading event files in order until one is found. */
function firstPrompt(dir: string): string | undefined {
  for (const file of listEvents(dir).files) {
    const read = readEvent(file.path);
    if (!read.ok || read.record.kind !== 'MessageEvent' || read.record.source !== 'user') continue;
    const message = isObject(read.record.llm_message) ? read.record.llm_message : {};
    const content = Array.isArray(message.content) ? message.content : [];
    const text = content.filter(isObject).filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => String(b.text)).join('\n');
    if (text !== '') return text;
  }
  return undefined;
}

/** The ref of one conversation folder. */
export function conversationRef(dir: string, details = false): SessionRef {
  const { state } = readBaseState(dir);
  const summary = stateSummary(state);
  const folder = basename(dir);
  const stateId = typeof summary.id === 'string' && NATIVE_ID.test(summary.id) ? folderOfId(summary.id) : undefined;
  const nativeId = NATIVE_ID.test(folder) ? folderOfId(folder) : stateId ?? folder;
  const ref: SessionRef = { agent: AGENT, native_id: nativeId, path: dir, mtime: Math.max(mtimeOf(join(dir, EVENTS_DIR)), mtimeOf(join(dir, BASE_STATE))) };
  if (typeof summary.cwd === 'string') ref.cwd = summary.cwd;
  if (typeof summary.title === 'string') ref.title = summary.title;
  if (typeof summary.model === 'string') ref.model = summary.model;
  if (!details) return ref;
  const listing = listEvents(dir);
  ref.messages = listing.files.length;
  const prompt = firstPrompt(dir);
  if (prompt !== undefined) {
    const title = promptTitle(prompt);
    if (title !== undefined) ref.first_prompt = title;
  }
  return ref;
}

function conversationDirs(home: string): string[] {
  const root = conversationsDirOf(home);
  let stat;
  try {
    stat = statSync(root);
  } catch {
    throw new UserError(`no OpenHands conversations folder here (set --home or ${HOME_ENV})`, root);
  }
  if (!stat.isDirectory()) throw new UserError('the OpenHands conversations folder is not a directory', root);
  const out: string[] = [];
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    const entry = lstatSync(dir, { throwIfNoEntry: false });
    // A link could lead out of the home; a plain file is not a conversation.
    if (!entry || !entry.isDirectory()) continue;
    const events = lstatSync(join(dir, EVENTS_DIR), { throwIfNoEntry: false });
    if (events?.isDirectory()) out.push(dir);
  }
  return out;
}

async function allConversations(home: string, options: DiscoverOptions): Promise<SessionRef[]> {
  const cwd = options.cwd !== undefined ? resolve(expandTilde(options.cwd)) : undefined;
  const refs: SessionRef[] = [];
  for (const dir of conversationDirs(home)) {
    const ref = conversationRef(dir, Boolean(options.details));
    if (cwd !== undefined && (ref.cwd === undefined || resolve(ref.cwd) !== cwd)) continue;
    ref.home = home;
    refs.push(ref);
  }
  refs.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || a.path.localeCompare(b.path));
  return refs;
}

export async function* discoverConversations(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  yield* await allConversations(options.home ?? defaultHome(), options);
}

export async function openConversation(path: string): Promise<SessionRef> {
  return conversationRef(conversationDirOf(resolve(expandTilde(path))));
}

/** A conversation by id (with or without dashes) or a unique prefix; anything that is not hex is refused. */
export async function findConversation(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  if (!/^[0-9a-fA-F-]{1,36}$/.test(id)) throw new UserError(`"${id}" is not an OpenHands conversation id (a UUID, 32 hex digits)`);
  const wanted = folderOfId(id);
  const refs = await allConversations(options.home ?? defaultHome(), { ...options, cwd: undefined });
  const exact = refs.find((r) => r.native_id === wanted);
  const matches = exact ? [exact] : refs.filter((r) => r.native_id.startsWith(wanted));
  if (matches.length > 1) throw new OpsError('ambiguous', `"${id}" matches ${matches.length} conversations (${matches.slice(0, 3).map((m) => m.native_id).join(', ')}…); give more of the id`, undefined, matches.map((m) => m.native_id));
  if (matches.length === 0) throw new OpsError('not-found', `no OpenHands conversation "${id}" (sp-capture openhands --list shows them)`);
  return matches[0];
}
