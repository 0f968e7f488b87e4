// Runs the pinned real Continue CLI (`@continuedev/cli` 1.5.47, node_modules/.bin/cn) offline against
// our mock model API (test/pi/mockModel.ts, OpenAI chat completions) in a throw-away HOME. Its global
// folder (CONTINUE_GLOBAL_DIR, here HOME/.continue) holds config.yaml, which names one OpenAI model
// whose apiBase is the mock; the key is fake. Headless runs: `cn -p --auto [--fork <id> | --resume] PROMPT`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runClient, type ClientRun } from './run.js';

export const CONTINUE_BIN = process.env.SP_CLIENT_BIN_CONTINUE || new URL('../../node_modules/.bin/cn', import.meta.url).pathname;
export const CONTINUE_MODEL = 'gpt-4o-mini';

/** The client's global folder under a fake HOME, its one model pointed at the mock; returns the folder. */
export function continueHome(home: string, openaiUrl: string): string {
  const dir = join(home, '.continue');
  mkdirSync(dir, { recursive: true });
  const config = [
    'name: sp acceptance',
    'version: 1.0.0',
    'schema: v1',
    'models:',
    '  - name: Mock',
    '    provider: openai',
    `    model: ${CONTINUE_MODEL}`,
    '    apiKey: sk-mock',
    `    apiBase: ${openaiUrl}/`,
    '    roles: [chat, edit, apply]',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'config.yaml'), config);
  return dir;
}

export function continueEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    CONTINUE_GLOBAL_DIR: join(home, '.continue'),
    CONTINUE_CLI_ENABLE_TELEMETRY: '0',
    NO_COLOR: '1',
  };
}

/** `cn <args>` headless in `cwd`; stdin closed so nothing waits for a person. */
export function runContinue(args: string[], options: { home: string; cwd: string; timeoutMs?: number }): Promise<ClientRun> {
  return runClient(CONTINUE_BIN, args, { cwd: options.cwd, env: continueEnv(options.home), timeoutMs: options.timeoutMs ?? 90_000, killGroup: true });
}
