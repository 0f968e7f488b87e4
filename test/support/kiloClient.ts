// Runs the pinned real Kilo Code CLI (`@kilocode/cli` 7.7.7, fetched by `scripts/clients.mjs prepare`
// into the clients cache) offline against our own mock model API (test/pi/mockModel.ts): a fresh
// HOME with XDG dirs inside, a `mock` provider in ~/.config/kilo/kilo.json (docs/formats/kilo.md §1),
// the phone-home switches off (telemetry too: its shutdown waits for PostHog, §5). The database
// comes from the caller (the writer adds rows to a database the client made and migrated).
// `kiloTarget` is the relay matrix's target shape (matrixTargets.ts), to be registered in a drift
// list: not in the matrix's TARGETS, where 28 cells of a client this slow would not fit in CI.
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kilo } from '../../adapters/kilo/index.js';
import type { MockModel } from '../pi/mockModel.js';
import { startMockModel } from '../pi/mockModel.js';
import { copyDb } from '../kilo/support.js';
import { fetchedClientBin } from './fetchedClient.js';
import { anthropicObserved, chatObserved, PROBE, type MatrixTarget, type Observed } from './matrixTargets.js';
import { runClient, type ClientRun } from './run.js';

export const KILO_BIN = process.env.SP_CLIENT_BIN_KILO || process.env.KILO_BIN || fetchedClientBin(kilo);
export const kiloPresent = (): boolean => existsSync(KILO_BIN);

/** A client as slow as this one under load: 25 s of CPU per run, two minutes of wall time on a busy machine. */
export const KILO_TIMEOUT = 300_000;

export interface KiloHome {
  home: string;
  /** `<home>/.local/share/kilo`: where kilo.db lives. */
  data: string;
}

export function kiloHome(dir: string): KiloHome {
  const home = join(dir, 'home');
  const data = join(home, '.local', 'share', 'kilo');
  mkdirSync(data, { recursive: true });
  return { home, data };
}

/** The mock as the default model (OpenAI chat) plus an Anthropic-wire provider for Anthropic sessions. */
export function configureKilo(home: string, mock: MockModel): void {
  const dir = join(home, '.config', 'kilo');
  mkdirSync(dir, { recursive: true });
  const model = { name: 'Mock', tool_call: true, reasoning: true, limit: { context: 1_000_000, output: 8192 } };
  writeFileSync(
    join(dir, 'kilo.json'),
    JSON.stringify({
      autoupdate: false,
      share: 'disabled',
      model: 'mock/mock-model',
      small_model: 'mock/mock-model',
      provider: {
        mock: { npm: '@ai-sdk/openai-compatible', options: { baseURL: mock.openaiUrl, apiKey: 'x' }, models: { 'mock-model': model } },
        'mock-anthropic': { npm: '@ai-sdk/anthropic', options: { baseURL: `${mock.anthropicUrl}/v1`, apiKey: 'x' }, models: { 'mock-claude': model } },
      },
    }),
  );
}

export function kiloEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    KILO_DISABLE_MODELS_FETCH: '1',
    KILO_DISABLE_AUTOUPDATE: '1',
    KILO_DISABLE_SHARE: '1',
    KILO_DISABLE_LSP_DOWNLOAD: '1',
    KILO_DISABLE_CLAUDE_CODE: '1',
    KILO_DISABLE_SESSION_INGEST: '1',
    // Anything but `all` turns PostHog off (and with it a shutdown that waits for the flush to fail).
    KILO_TELEMETRY_LEVEL: 'off',
  };
}

/**
 * `kilo run --session ID --format json PROMPT` from `cwd` (the session's directory). The prompt must
 * be one word: `run` re-joins positional words with spaces in quotes, as OpenCode's does.
 */
export function runKilo(sessionId: string, prompt: string, options: { home: string; cwd: string; model?: string; timeoutMs?: number }): Promise<ClientRun> {
  const args = ['run', '--session', sessionId, '--format', 'json'];
  if (options.model) args.push('--model', options.model);
  args.push(prompt);
  return runClient(KILO_BIN, args, { cwd: options.cwd, env: kiloEnv(options.home), timeoutMs: options.timeoutMs ?? KILO_TIMEOUT, killGroup: true });
}

function strings(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, into);
  return into;
}

const failed = (why: string): Observed => ({ accepted: false, why, texts: '', calls: [], results: [], tools: new Set() });
const tail = (text: string): string => text.trim().split('\n').slice(-2).join(' ').slice(-200);
const KILO_PROBE = PROBE.replace(/[: ]+/g, '-');

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
  async resume(result, place) {
    const mock = await startMockModel();
    try {
      configureKilo(place.home as string, mock);
      const run = await runKilo(result.session_id, KILO_PROBE, { home: place.home as string, cwd: result.cwd });
      const request = mock.requests.find((q) => strings(q.body.messages).some((s) => s.includes(KILO_PROBE)));
      if (run.timedOut) return failed('the client timed out');
      if (run.code !== 0 || !request) return failed(`exit ${run.code}: ${tail(run.stderr || run.stdout)}`);
      const violations = mock.requests.flatMap((r) => r.violations);
      if (violations.length) return failed(`the API would reject it: ${violations[0]}`);
      const seen = request.api === 'anthropic' ? anthropicObserved(request.body) : chatObserved(request.body);
      return { accepted: true, ...seen };
    } finally {
      await mock.close();
    }
  },
};
