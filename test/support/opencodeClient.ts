// Runs a real client of the OpenCode family offline against our own mock model API
// (test/pi/mockModel.ts serves OpenAI chat and Anthropic Messages): a fresh HOME with XDG dirs inside,
// a `mock` provider in ~/.config/<name>/<name>.json (docs/formats/opencode.md §1), the phone-home
// switches off. OpenCode (`opencode-ai` 1.18.33, node_modules/.bin/opencode) is the one here; Kilo
// Code CLI, its fork, spells the same under its own name (test/support/kiloClient.ts). The database
// comes from the caller (the writer adds rows to a database the client made and migrated).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MockModel } from '../pi/mockModel.js';
import { runClient, type ClientRun } from './run.js';

/** What a client of the family calls its own: folders and config file, environment prefix, binary. */
export interface OpenCodeFamilyClient {
  /** The name of its data and config folders and of its config file: `opencode`, `kilo`. */
  name: string;
  /** The prefix of its environment switches: `OPENCODE`, `KILO`. */
  envPrefix: string;
  bin: string;
  /** Switches of its own, beyond the family's. */
  env?: Record<string, string>;
  timeoutMs: number;
}

export interface OpenCodeHome {
  home: string;
  /** `<home>/.local/share/<name>`: where the database lives. */
  data: string;
}

export function familyHome(dir: string, client: OpenCodeFamilyClient): OpenCodeHome {
  const home = join(dir, 'home');
  const data = join(home, '.local', 'share', client.name);
  mkdirSync(data, { recursive: true });
  return { home, data };
}

/** The mock as the default model (OpenAI chat) plus an Anthropic-wire provider for Anthropic sessions. */
export function configureFamily(home: string, mock: MockModel, client: OpenCodeFamilyClient): void {
  const dir = join(home, '.config', client.name);
  mkdirSync(dir, { recursive: true });
  const model = { name: 'Mock', tool_call: true, reasoning: true, limit: { context: 1_000_000, output: 8192 } };
  writeFileSync(
    join(dir, `${client.name}.json`),
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

export function familyEnv(home: string, client: OpenCodeFamilyClient): NodeJS.ProcessEnv {
  const off = ['DISABLE_MODELS_FETCH', 'DISABLE_AUTOUPDATE', 'DISABLE_SHARE', 'DISABLE_LSP_DOWNLOAD', 'DISABLE_CLAUDE_CODE'];
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    ...Object.fromEntries(off.map((name) => [`${client.envPrefix}_${name}`, '1'])),
    ...client.env,
  };
}

/**
 * `<bin> run --session ID --format json PROMPT` from `cwd` (the session's directory: elsewhere the
 * client never sees the turn end). The prompt must be one word: positional words with spaces come
 * back quoted.
 */
export function runFamily(client: OpenCodeFamilyClient, sessionId: string, prompt: string, options: { home: string; cwd: string; model?: string; timeoutMs?: number }): Promise<ClientRun> {
  const args = ['run', '--session', sessionId, '--format', 'json'];
  if (options.model) args.push('--model', options.model);
  args.push(prompt);
  return runClient(client.bin, args, { cwd: options.cwd, env: familyEnv(options.home, client), timeoutMs: options.timeoutMs ?? client.timeoutMs, killGroup: true });
}

export const OPENCODE_BIN = process.env.SP_CLIENT_BIN_OPENCODE || process.env.OPENCODE_BIN || new URL('../../node_modules/.bin/opencode', import.meta.url).pathname;

export const OPENCODE: OpenCodeFamilyClient = { name: 'opencode', envPrefix: 'OPENCODE', bin: OPENCODE_BIN, timeoutMs: 120_000 };

export const opencodeHome = (dir: string): OpenCodeHome => familyHome(dir, OPENCODE);
export const configureOpenCode = (home: string, mock: MockModel): void => configureFamily(home, mock, OPENCODE);
export const opencodeEnv = (home: string): NodeJS.ProcessEnv => familyEnv(home, OPENCODE);
export const runOpenCode = (sessionId: string, prompt: string, options: { home: string; cwd: string; model?: string; timeoutMs?: number }): Promise<ClientRun> =>
  runFamily(OPENCODE, sessionId, prompt, options);
