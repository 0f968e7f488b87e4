// Runs the pinned real OpenCode client (`opencode-ai` 1.18.33, node_modules/.bin/opencode) offline
// against our own mock model API (test/pi/mockModel.ts serves OpenAI chat and Anthropic Messages):
// a fresh HOME with XDG dirs inside, a `mock` provider in ~/.config/opencode/opencode.json
// (docs/formats/opencode.md §1), the phone-home switches off. The database comes from the caller (the
// writer adds rows to a database the client made and migrated).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MockModel } from '../pi/mockModel.js';
import { runClient, type ClientRun } from './run.js';

export const OPENCODE_BIN = process.env.SP_CLIENT_BIN_OPENCODE || process.env.OPENCODE_BIN || new URL('../../node_modules/.bin/opencode', import.meta.url).pathname;

export interface OpenCodeHome {
  home: string;
  /** `<home>/.local/share/opencode`: where opencode.db lives. */
  data: string;
}

export function opencodeHome(dir: string): OpenCodeHome {
  const home = join(dir, 'home');
  const data = join(home, '.local', 'share', 'opencode');
  mkdirSync(data, { recursive: true });
  return { home, data };
}

/** The mock as the default model (OpenAI chat) plus an Anthropic-wire provider for Anthropic sessions. */
export function configureOpenCode(home: string, mock: MockModel): void {
  const dir = join(home, '.config', 'opencode');
  mkdirSync(dir, { recursive: true });
  const model = { name: 'Mock', tool_call: true, reasoning: true, limit: { context: 1_000_000, output: 8192 } };
  writeFileSync(
    join(dir, 'opencode.json'),
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

export function opencodeEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
  };
}

/**
 * `opencode run --session ID --format json PROMPT` from `cwd` (the session's directory: elsewhere the
 * client never sees the turn end). The prompt must be one word: positional words with spaces come
 * back quoted.
 */
export function runOpenCode(sessionId: string, prompt: string, options: { home: string; cwd: string; model?: string; timeoutMs?: number }): Promise<ClientRun> {
  const args = ['run', '--session', sessionId, '--format', 'json'];
  if (options.model) args.push('--model', options.model);
  args.push(prompt);
  return runClient(OPENCODE_BIN, args, { cwd: options.cwd, env: opencodeEnv(options.home), timeoutMs: options.timeoutMs ?? 120_000, killGroup: true });
}
