// Runs the pinned real Pi client (@mariozechner/pi-coding-agent, node_modules/.bin/pi) offline:
// a throw-away agent dir whose models.json points the session's own provider at our mock, a
// fake HOME and TMPDIR, and an environment without any real API key.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runClient, type ClientRun } from '../support/run.js';

export const PI_BIN = process.env.SP_CLIENT_BIN_PI || new URL('../../node_modules/.bin/pi', import.meta.url).pathname; // SP_CLIENT_BIN_PI: scripts/drift.mjs

export type PiRun = ClientRun;

export interface ProviderModel {
  provider: string;
  model: string;
  /** anthropic-messages or openai-completions (what the mock speaks). */
  api: 'anthropic-messages' | 'openai-completions';
}

/**
 * Writes `models.json` declaring `models` as providers served by the mock (re-declaring a built-in
 * provider such as `anthropic` makes the client use our base URL, with its own model id, so the
 * session's model is restored exactly), and `settings.json` defaulting to the first one.
 */
export function configureAgentDir(agentDir: string, urls: { anthropicUrl: string; openaiUrl: string }, models: ProviderModel[], options: { contextWindow?: number } = {}): void {
  mkdirSync(agentDir, { recursive: true });
  const providers: Record<string, unknown> = {};
  for (const m of models) {
    const existing = providers[m.provider] as { models: unknown[] } | undefined;
    // A large window keeps the client from compacting a long session before it sends it.
    const window = options.contextWindow !== undefined ? { contextWindow: options.contextWindow, maxTokens: 32_000 } : {};
    const model = { id: m.model, reasoning: true, input: ['text', 'image'], ...window };
    if (existing) existing.models.push(model);
    else {
      providers[m.provider] = {
        baseUrl: m.api === 'anthropic-messages' ? urls.anthropicUrl : urls.openaiUrl,
        api: m.api,
        apiKey: 'sp-mock-key',
        ...(m.api === 'openai-completions' ? { compat: { supportsDeveloperRole: false } } : {}),
        models: [model],
      };
    }
  }
  writeFileSync(join(agentDir, 'models.json'), JSON.stringify({ providers }, null, 2));
  writeFileSync(join(agentDir, 'settings.json'), JSON.stringify({ defaultProvider: models[0].provider, defaultModel: models[0].model, quietStartup: true }));
}

/** `pi ARGS` in `cwd` with `agentDir` as PI_CODING_AGENT_DIR; killed after `timeoutMs`. */
export function runPi(args: string[], options: { cwd: string; agentDir: string; home: string; timeoutMs?: number }): Promise<PiRun> {
  mkdirSync(join(options.home, 'tmp'), { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: options.home,
    TMPDIR: join(options.home, 'tmp'),
    PI_CODING_AGENT_DIR: options.agentDir,
    PI_OFFLINE: '1',
    PI_SKIP_VERSION_CHECK: '1',
    PI_TELEMETRY: '0',
    LANG: 'C.UTF-8',
  };
  return runClient(PI_BIN, args, { cwd: options.cwd, env, timeoutMs: options.timeoutMs });
}
