// Runs the real Codex CLI (the pinned @openai/codex devDependency) offline: a scrubbed environment
// with a throw-away HOME and TMPDIR (TMPDIR must not contain CODEX_HOME, or the client refuses its
// helper aliases), CODEX_HOME with a config.toml that routes the model to a local mock, no update
// check, no analytics, no retries.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runClient } from './run.js';
// @ts-expect-error: a plain ES module without declarations.
import { codexConfig } from '../../examples/mock-responses.mjs';

const root = new URL('../..', import.meta.url).pathname;

export function codexBin(): string {
  const override = process.env.SP_CLIENT_BIN_CODEX || process.env.CODEX_BIN; // SP_CLIENT_BIN_<AGENT>: scripts/drift.mjs
  if (override) return override;
  const bin = join(root, 'node_modules', '.bin', 'codex');
  if (!existsSync(bin)) throw new Error('the Codex client is not installed: run npm install (devDependency @openai/codex), or set CODEX_BIN');
  return bin;
}

/** A slug from the client's built-in catalogue, so it prints no "model metadata not found" warning. */
export const MODEL = 'gpt-5.5';

/** config.toml for a home whose model provider `mock` is the mock Responses API at `baseUrl`. */
export function writeCodexConfig(home: string, baseUrl: string): void {
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'config.toml'), codexConfig(baseUrl, MODEL));
}

export interface CodexRun {
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** `codex exec --json` events. */
  events: Array<Record<string, unknown>>;
  threadId?: string;
}

async function once(args: string[], options: { home: string; work: string; cwd: string; timeoutMs: number }): Promise<CodexRun> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(options.work, 'user-home'),
    TMPDIR: join(options.work, 'tmp'),
    CODEX_HOME: options.home,
    SP_MOCK_KEY: 'sk-mock',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
  };
  mkdirSync(env.HOME, { recursive: true });
  mkdirSync(env.TMPDIR, { recursive: true });
  const { code, timedOut, stdout, stderr } = await runClient(codexBin(), args, { cwd: options.cwd, env, timeoutMs: options.timeoutMs });
  const events = stdout
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        return {};
      }
    });
  const started = events.find((e) => e.type === 'thread.started');
  return { code, timedOut, stdout, stderr, events, threadId: typeof started?.thread_id === 'string' ? started.thread_id : undefined };
}

/**
 * `codex exec --json … <args>`. The client rarely stalls before its first request
 * (docs/formats/codex.md §7), so a run that times out is tried once more.
 */
export async function runCodexExec(args: string[], options: { home: string; work: string; cwd: string; timeoutMs?: number }): Promise<CodexRun> {
  const full = ['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', ...args];
  const timeoutMs = options.timeoutMs ?? 45_000;
  let run = await once(full, { ...options, timeoutMs });
  if (run.timedOut) run = await once(full, { ...options, timeoutMs });
  return run;
}
