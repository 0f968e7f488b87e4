// Runs the pinned real Factory Droid (`@factory/cli`, fetched by `node scripts/clients.mjs prepare`) offline
// (docs/formats/droid.md §6): a custom Anthropic-wire model in `<home>/.factory/settings.json` whose
// base URL is the mock model, and FACTORY_API_BASE_URL at the same mock, whose 404 for
// `GET /api/sessions/<id>` tells `droid exec -s` the session is local. A fresh HOME per run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { droid } from '../../adapters/droid/index.js';
import { fetchedClientBin } from './fetchedClient.js';
import { runClient, type ClientRun } from './run.js';

// Not a devDependency (scripts/clients.mjs says why): `npm test` fetches it into a cache first.
// SP_CLIENT_BIN_DROID first: the drift watch (scripts/drift.mjs) points the runner at the newest release.
export const DROID_BIN = process.env.SP_CLIENT_BIN_DROID || process.env.DROID_BIN || fetchedClientBin(droid);
/** The id the client gives the one custom model configured below (`custom:<displayName>-<index>`). */
export const DROID_MODEL = 'custom:Mock-0';

/** Writes the settings naming the mock as the only custom model; returns the `.factory` home. */
export function configureDroid(home: string, anthropicUrl: string): string {
  const factory = join(home, '.factory');
  mkdirSync(factory, { recursive: true });
  writeFileSync(join(factory, 'settings.json'), JSON.stringify({ customModels: [{ model: 'claude-mock', displayName: 'Mock', baseUrl: anthropicUrl, apiKey: 'sk-mock', provider: 'anthropic' }] }));
  return factory;
}

/** `droid exec -s ID -m custom:Mock-0 --auto low PROMPT` from `cwd`. */
export function runDroid(sessionId: string, prompt: string, options: { home: string; cwd: string; apiUrl: string; timeoutMs?: number }): Promise<ClientRun> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: options.home, TMPDIR: process.env.TMPDIR ?? '/tmp', FACTORY_API_BASE_URL: options.apiUrl, FACTORY_DROID_AUTO_UPDATE_ENABLED: 'false' };
  return runClient(DROID_BIN, ['exec', '-s', sessionId, '-m', DROID_MODEL, '--auto', 'low', '-o', 'json', prompt], { cwd: options.cwd, env, timeoutMs: options.timeoutMs ?? 60_000, killGroup: true });
}
