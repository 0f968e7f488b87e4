// Runs the real Gemini CLI (@google/gemini-cli 0.61.0) and Qwen Code (@qwen-code/qwen-code 0.24.4),
// the pinned devDependencies, offline: a scrubbed environment with a throw-away HOME and TMPDIR,
// settings that pick API-key auth against our own mock (Gemini API for gemini, OpenAI chat
// completions for qwen), no telemetry, no update check, no folder-trust prompt, and prompt mode
// (`-p PROBE --yolo -o json`) with `--resume <id>`.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runClient, type ClientRun } from './run.js';

const root = new URL('../..', import.meta.url).pathname;

export function clientBin(name: 'gemini' | 'qwen' | 'qodercli'): string {
  // SP_CLIENT_BIN_<AGENT> first: the drift watch (scripts/drift.mjs) points the runners at the newest release.
  const override = { gemini: process.env.SP_CLIENT_BIN_GEMINI || process.env.GEMINI_BIN, qwen: process.env.SP_CLIENT_BIN_QWEN || process.env.QWEN_BIN, qodercli: process.env.SP_CLIENT_BIN_QODER || process.env.QODER_BIN }[name];
  if (override) return override;
  const bin = join(root, 'node_modules', '.bin', name);
  if (!existsSync(bin)) throw new Error(`the ${name} client is not installed: run npm install (devDependencies), or set ${name.toUpperCase()}_BIN`);
  return bin;
}

export const QWEN_MODEL = 'qwen3-coder-plus';

export interface Place {
  /** The fake user home (HOME); the agent homes are `.gemini` / `.qwen` in it. */
  home: string;
  tmp: string;
  cwd: string;
}

/** A fresh HOME, TMPDIR and project folder under `dir`, with the client's settings. */
export function preparePlace(agent: 'gemini' | 'qwen', dir: string, cwd = join(dir, 'acme-api')): Place {
  const home = join(dir, 'home');
  const tmp = join(dir, 'tmp');
  for (const d of [home, tmp, cwd]) mkdirSync(d, { recursive: true });
  const settings =
    agent === 'gemini'
      ? {
          security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        }
      : {
          security: { auth: { selectedType: 'openai' } },
          model: { name: QWEN_MODEL },
          tools: { todoWrite: { enabled: true } },
          memory: { enableManagedAutoMemory: false },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          general: { enableAutoUpdate: false },
        };
  const agentHome = join(home, agent === 'gemini' ? '.gemini' : '.qwen');
  mkdirSync(agentHome, { recursive: true });
  writeFileSync(join(agentHome, 'settings.json'), JSON.stringify(settings, null, 2));
  return { home, tmp, cwd };
}

export function agentHome(agent: 'gemini' | 'qwen', place: Place): string {
  return join(place.home, agent === 'gemini' ? '.gemini' : '.qwen');
}

/** `<client> -p PROBE --yolo -o json --resume <id>` in the project folder (a new session when sessionId is undefined). */
export async function resumeWith(agent: 'gemini' | 'qwen', place: Place, mockUrl: string, sessionId: string | undefined, probe: string, model?: string): Promise<ClientRun> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: place.home,
    TMPDIR: place.tmp,
    TERM: 'dumb',
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
  };
  const args = ['-p', probe, '--yolo', '-o', 'json', ...(sessionId !== undefined ? ['--resume', sessionId] : [])];
  if (agent === 'gemini') {
    Object.assign(env, { GEMINI_API_KEY: 'mock-key', GOOGLE_GEMINI_BASE_URL: mockUrl, GEMINI_CLI_NO_RELAUNCH: 'true' });
    args.push('-m', model ?? 'gemini-2.5-pro');
  } else {
    Object.assign(env, { OPENAI_API_KEY: 'mock-key', OPENAI_BASE_URL: `${mockUrl}/v1`, OPENAI_MODEL: QWEN_MODEL, QWEN_CODE_NO_RELAUNCH: 'true', QWEN_CODE_SUPPRESS_YOLO_WARNING: '1' });
  }
  return runClient(clientBin(agent), args, { cwd: place.cwd, env, timeoutMs: 90_000, killGroup: true });
}

/**
 * At most `limit` client runs at a time (tests of one file run concurrently; each client is a
 * CPU-heavy start-up, so more than the cores only makes each slower).
 */
export function runLimit(limit: number): <T>(job: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(job: () => Promise<T>): Promise<T> => {
    while (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
    try {
      return await job();
    } finally {
      active -= 1;
      waiting.shift()?.();
    }
  };
}
