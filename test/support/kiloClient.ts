// Runs the pinned real Kilo Code CLI (`@kilocode/cli` 7.7.7, fetched by `scripts/clients.mjs prepare`
// into the clients cache) offline against our own mock model API (test/pi/mockModel.ts): a fresh
// HOME with XDG dirs inside, a `mock` provider in ~/.config/kilo/kilo.json (docs/formats/kilo.md §1),
// the phone-home switches off (telemetry too: its shutdown waits for PostHog, §5). The database
// comes from the caller (the writer adds rows to a database the client made and migrated).
// `kiloTarget` is the relay matrix's target shape (matrixTargets.ts), one of the drift watch's
// recorders (driftTargets.ts): not in the matrix's TARGETS, where 28 cells of a client this slow
// would not fit in CI.
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { kilo } from '../../adapters/kilo/index.js';
import type { MockModel } from '../pi/mockModel.js';
import { copyDb } from '../kilo/support.js';
import { fetchedClientBin } from './fetchedClient.js';
import { resumeOpenCodeFamily, type MatrixTarget } from './matrixTargets.js';
import { configureFamily, familyHome, runFamily, type OpenCodeFamilyClient, type OpenCodeHome } from './opencodeClient.js';
import type { ClientRun } from './run.js';

export const KILO_BIN = process.env.SP_CLIENT_BIN_KILO || process.env.KILO_BIN || fetchedClientBin(kilo);
export const kiloPresent = (): boolean => existsSync(KILO_BIN);

/** A client as slow as this one under load: 25 s of CPU per run, two minutes of wall time on a busy machine. */
export const KILO_TIMEOUT = 300_000;

const KILO: OpenCodeFamilyClient = {
  name: 'kilo',
  envPrefix: 'KILO',
  bin: KILO_BIN,
  env: {
    KILO_DISABLE_SESSION_INGEST: '1',
    // Anything but `all` turns PostHog off (and with it a shutdown that waits for the flush to fail).
    KILO_TELEMETRY_LEVEL: 'off',
  },
  timeoutMs: KILO_TIMEOUT,
};

/** `<dir>/home`, with `.local/share/kilo` (where kilo.db lives). */
export const kiloHome = (dir: string): OpenCodeHome => familyHome(dir, KILO);
export const configureKilo = (home: string, mock: MockModel): void => configureFamily(home, mock, KILO);

/**
 * `kilo run --session ID --format json PROMPT` from `cwd` (the session's directory). The prompt must
 * be one word: `run` re-joins positional words with spaces in quotes, as OpenCode's does.
 */
export const runKilo = (sessionId: string, prompt: string, options: { home: string; cwd: string; model?: string; timeoutMs?: number }): Promise<ClientRun> =>
  runFamily(KILO, sessionId, prompt, options);

/** Kilo Code CLI as a relay target (the MatrixTarget shape): rows into a copy of the corpus kilo.db, resumed by `kilo run`. */
export const kiloTarget: MatrixTarget = {
  id: 'kilo',
  label: 'Kilo Code CLI',
  compileFor: 'kilo',
  prepare(dir) {
    const { home, data } = kiloHome(dir);
    copyDb(data);
    const cwd = join(dir, 'project');
    mkdirSync(cwd, { recursive: true });
    return { dir, home, options: { home: data, cwd: realpathSync(cwd), backup: false } };
  },
  resume: (result, place) => resumeOpenCodeFamily(KILO, result, place),
};
