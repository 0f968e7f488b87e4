// Runs the pinned real Copilot CLI (`@github/copilot` 1.0.102, node_modules/.bin/copilot) in its
// documented offline mode (COPILOT_OFFLINE=true + BYOK: COPILOT_PROVIDER_* pointing at our mock,
// docs/formats/copilot.md §1), prompt mode, in a fresh HOME. The native binary unpacks its JS app (about
// 235 MB) into `$XDG_CACHE_HOME/copilot/pkg` on first run: one cache outside the per-run homes,
// `SP_COPILOT_CACHE` or `<tmpdir>/sp-copilot-cache`, reused by every run and every test run.
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MockModel } from '../pi/mockModel.js';
import { runClient, type ClientRun } from './run.js';

export const COPILOT_BIN = process.env.SP_CLIENT_BIN_COPILOT || process.env.COPILOT_BIN || new URL('../../node_modules/.bin/copilot', import.meta.url).pathname;
export const COPILOT_CACHE = process.env.SP_COPILOT_CACHE ?? join(tmpdir(), 'sp-copilot-cache');

export function copilotEnv(home: string, mock: MockModel, provider: 'openai' | 'anthropic' = 'openai'): NodeJS.ProcessEnv {
  mkdirSync(COPILOT_CACHE, { recursive: true });
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CACHE_HOME: COPILOT_CACHE,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_PROVIDER_TYPE: provider,
    COPILOT_PROVIDER_BASE_URL: provider === 'openai' ? mock.openaiUrl : mock.anthropicUrl,
    COPILOT_PROVIDER_API_KEY: 'sk-mock',
    COPILOT_MODEL: provider === 'openai' ? 'gpt-4.1' : 'claude-sonnet-4.5',
  };
}

/** `copilot --resume=ID -p PROMPT` (all tools allowed, no questions, JSON events on stdout). */
export function runCopilot(sessionId: string, prompt: string, options: { home: string; cwd: string; mock: MockModel; provider?: 'openai' | 'anthropic'; timeoutMs?: number }): Promise<ClientRun> {
  mkdirSync(options.home, { recursive: true });
  const args = [`--resume=${sessionId}`, '-p', prompt, '--allow-all', '--no-auto-update', '--output-format', 'json', '--no-ask-user'];
  return runClient(COPILOT_BIN, args, { cwd: options.cwd, env: copilotEnv(options.home, options.mock, options.provider), timeoutMs: options.timeoutMs ?? 120_000, killGroup: true });
}
