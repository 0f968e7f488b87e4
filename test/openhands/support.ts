// The OpenHands fixtures (fixtures/openhands/README.md) and helpers shared by the OpenHands tests.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const HOME = `${ROOT}fixtures/openhands/home`;
export const A = '3f2a9c1e8b7d4e6fa0c1d2e3f4a5b6c7';
export const B = '9b8c7d6e5f4a4b3c8d2e1f0a9b8c7d6e';
export const CONV_A = `${HOME}/conversations/${A}`;
export const CONV_B = `${HOME}/conversations/${B}`;
export const PUBLIC_STATE = `${ROOT}fixtures/openhands/public/v1_11_5_cli_default/base_state.json`;
/** A conversation folder the SDK itself persisted (v1.49.1 test fixture; fixtures/openhands/README.md). */
export const PUBLIC_CONV = `${ROOT}fixtures/openhands/public/v1_49_1_mcp`;

export function tempDir(prefix = 'sp-openhands-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A copy of a conversation folder inside `dir` (same folder name); returns its path. */
export function copyConversation(conversation: string, dir = tempDir()): string {
  mkdirSync(dir, { recursive: true });
  const target = join(dir, basename(conversation));
  cpSync(conversation, target, { recursive: true });
  return target;
}

/** A copy of the fixture home, to change. */
export function copyHome(dir = tempDir()): string {
  cpSync(HOME, join(dir, 'home'), { recursive: true });
  return join(dir, 'home');
}

/** Writes an event file after the last one of a conversation (the next index); returns its path. */
export function addEventFile(conversation: string, text: string, id = 'ffffffff-0000-4000-8000-000000000001'): string {
  const count = readdirSync(join(conversation, 'events')).filter((n) => n.startsWith('event-')).length;
  const path = join(conversation, 'events', `event-${String(count).padStart(5, '0')}-${id}.json`);
  writeFileSync(path, text);
  return path;
}
