// The two-machine resume scenario's recording: the Codex S2 session as if recorded in Alice's
// checkout (`/home/alice/acme-api`) of a repository with a known origin, unchained (the store chains it).
import { expect } from 'vitest';
import { S2 } from './codexFixtures.js';
import { runBin } from './streams.js';

export const ALICE_ROOT = '/home/alice/acme-api';

/** Canonical events (NDJSON text) of Codex S2 moved under ALICE_ROOT, its session.start naming `origin`. */
export function aliceRecording(origin: string): string {
  const captured = runBin('sp-capture', ['codex', '--path', S2]);
  expect(captured.code, captured.stderr).toBe(0);
  return captured.stdout
    .trim()
    .split('\n')
    .map((line) => {
      const event = JSON.parse(line.replaceAll('/home/bob/acme-api', ALICE_ROOT)) as Record<string, unknown> & { type: string; payload: Record<string, unknown> };
      delete event.checksum;
      if (event.type === 'session.start') event.payload.git_origin = origin;
      return JSON.stringify(event);
    })
    .join('\n');
}
