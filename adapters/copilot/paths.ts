// Where GitHub Copilot CLI keeps its sessions (docs/formats/copilot.md §2): one folder per session,
// `$COPILOT_HOME/session-state/<uuid>/events.jsonl` (default home `~/.copilot`), next to a
// `workspace.yaml` (cwd, name) the pickers show. The folder name is the session id.
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { envPath } from '../../lib/fs/paths.js';

export const HOME_ENV = 'COPILOT_HOME';
export const EVENTS_FILE = 'events.jsonl';
export { UUID } from '../../lib/write/native-id.js';

export { expandTilde } from '../../lib/fs/paths.js';
import { UUID, type NativeIdFormat } from '../../lib/write/native-id.js';

/** The home the client uses when COPILOT_HOME is unset. */
export function builtInHome(): string {
  return join(homedir(), '.copilot');
}

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? builtInHome();
}

export function sessionStateDir(home: string): string {
  return join(home, 'session-state');
}

/** The session folder's name: the id the client resumes it by. */
export function idFromPath(eventsPath: string): string {
  return basename(dirname(eventsPath));
}

/** `workspace.yaml` of a session folder as flat `key: value` pairs (the client writes no nesting there). */
export function readWorkspace(eventsPath: string): Record<string, string> | undefined {
  const path = join(dirname(eventsPath), 'workspace.yaml');
  if (!existsSync(path)) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*):\s?(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2].trim();
    if (/^".*"$/.test(value)) {
      try {
        value = JSON.parse(value) as string;
      } catch {
        // kept as written
      }
    } else if (/^'.*'$/.test(value)) value = value.slice(1, -1).replace(/''/g, "'");
    out[m[1]] = value;
  }
  return out;
}

/** A YAML scalar for workspace.yaml: plain when unambiguous, else double-quoted (JSON escapes are YAML escapes). */
export function yamlScalar(value: string): string {
  return /^[A-Za-z0-9/_.@+-][A-Za-z0-9 /_.@+,()-]*$/.test(value) && !/^(true|false|null|yes|no|on|off|~|[-+]?[0-9.]+)$/i.test(value) && !value.endsWith(' ')
    ? value
    : JSON.stringify(value);
}

/** Line 1 of a file (at most `max` bytes of it); undefined for an empty file. */
export function readFirstLine(path: string, max = 1 << 16): string | undefined {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(max);
    const n = readSync(fd, buffer, 0, max, 0);
    if (n === 0) return undefined;
    const at = buffer.subarray(0, n).indexOf(0x0a);
    const text = buffer.toString('utf8', 0, at === -1 ? n : at);
    return text.replace(/^\ufeff/, '').replace(/\r$/, '');
  } finally {
    closeSync(fd);
  }
}

/** The model a writer gives assistant messages that name none. */
export const DEFAULT_MODEL = 'gpt-4.1';

/** Copilot CLI names a session folder by its UUID (session-state/<uuid>/). */
export const NATIVE_ID: NativeIdFormat = { agent: 'Copilot CLI', pattern: UUID, described: 'a UUID' };
