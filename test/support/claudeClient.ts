// Runs the real Claude Code client (the pinned devDependency) offline: a scrubbed environment with
// a throw-away HOME and config dir, the API pointed at a local mock, no telemetry or updates.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { runClient, type ClientRun } from './run.js';

export type { ClientRun } from './run.js';

const root = new URL('../..', import.meta.url).pathname;

/**
 * The client binary: $CLAUDE_BIN, else node_modules/.bin/claude when npm's postinstall put the native
 * binary there, else the platform package's binary (npm 11 may skip the postinstall, leaving a stub).
 */
export function claudeBin(): string {
  // SP_CLIENT_BIN_<AGENT>: the drift watch (scripts/drift.mjs) points the runners at the newest release.
  const override = process.env.SP_CLIENT_BIN_CLAUDE || process.env.CLAUDE_BIN;
  if (override) return override;
  const linked = join(root, 'node_modules', '.bin', 'claude');
  if (existsSync(linked) && statSync(linked).size > 1 << 20) return linked;
  const require = createRequire(join(root, 'package.json'));
  const platform = `${process.platform}-${process.arch}`;
  for (const pkg of [`@anthropic-ai/claude-code-${platform}`, `@anthropic-ai/claude-code-${platform}-musl`]) {
    try {
      const bin = join(dirname(require.resolve(`${pkg}/package.json`)), process.platform === 'win32' ? 'claude.exe' : 'claude');
      if (existsSync(bin)) return bin;
    } catch {
      // not installed for this platform
    }
  }
  throw new Error('the Claude Code client is not installed: run npm install (devDependency @anthropic-ai/claude-code), or set CLAUDE_BIN');
}

export interface ClientEnvOptions {
  /** The fake HOME; the config dir is <home>/.claude. */
  home: string;
  port: number;
}

/** The scrubbed environment: nothing of the real HOME, config or keys reaches the client. */
export function clientEnv({ home, port }: ClientEnvOptions): NodeJS.ProcessEnv {
  const tmp = join(home, 'tmp');
  mkdirSync(tmp, { recursive: true });
  return {
    PATH: process.env.PATH,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    TMPDIR: tmp,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    ANTHROPIC_API_KEY: 'dummy',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    // The client refuses --dangerously-skip-permissions as root unless it is told it runs sandboxed.
    IS_SANDBOX: '1',
  };
}

/** Runs the client to completion (asynchronously, so an in-process mock keeps serving); kills it after the timeout. */
export function runClaude(args: string[], options: ClientEnvOptions & { cwd: string; timeoutMs?: number }): Promise<ClientRun> {
  // The client may have children of its own: a timeout ends its whole process group.
  return runClient(claudeBin(), args, { cwd: options.cwd, env: clientEnv(options), timeoutMs: options.timeoutMs, killGroup: true });
}
