// Where OpenHands keeps conversations (docs/formats/openhands.md §1): the CLI (and the agent server
// it runs) persists each one under `~/.openhands/conversations/<id>/`, `<id>` the conversation's
// UUID as 32 hex digits, holding `base_state.json` and `events/event-<index>-<event id>.json`.
// The client has no variable that moves the folder; `OPENHANDS_HOME` is sp's own, for homes
// elsewhere (a copy, a server's persistence dir).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { envPath, expandTilde } from '../../lib/fs/paths.js';

export const AGENT = 'openhands';
export const HOME_ENV = 'OPENHANDS_HOME';
export const CONVERSATIONS_DIR = 'conversations';
export const BASE_STATE = 'base_state.json';
export const EVENTS_DIR = 'events';
/** The SDK's lock file beside the events; not an event. */
export const LOCK_FILE = '.eventlog.lock';

/** `event-<index, 5 digits or more>-<event id>.json`, as the SDK names and accepts them. */
export const EVENT_FILE = /^event-(\d{5,})-([0-9a-fA-F-]{8,})\.json$/;

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? join(homedir(), '.openhands');
}

export function conversationsDirOf(home: string): string {
  return join(resolve(expandTilde(home)), CONVERSATIONS_DIR);
}

/** A conversation id: a UUID, with or without its dashes. Nothing that could be a path. */
export const NATIVE_ID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;

/** The folder name the SDK gives a conversation id (`uuid.hex`: lower case, no dashes). */
export function folderOfId(id: string): string {
  return id.replace(/-/g, '').toLowerCase();
}
