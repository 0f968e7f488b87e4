// Runs the pinned real Auggie (`@augmentcode/auggie` 0.36.0, node_modules/.bin/auggie) offline against
// the mock tenant (test/support/mockAugment.ts) in a fresh HOME (docs/formats/auggie.md §1, §6):
// `AUGMENT_SESSION_AUTH` names the mock as the tenant, `--augment-cache-dir` the sessions' home, and
// `--print` runs one instruction and exits.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { augmentAuth } from './mockAugment.js';
import { runClient, type ClientRun } from './run.js';

export const AUGGIE_BIN = process.env.SP_CLIENT_BIN_AUGGIE || process.env.AUGGIE_BIN || new URL('../../node_modules/.bin/auggie', import.meta.url).pathname;

export interface AuggieRunOptions {
  /** The fake HOME (the client also keeps settings and logs there). */
  home: string;
  /** The `--augment-cache-dir` (sessions under `sessions/`); default `<home>/.augment`. */
  cacheDir?: string;
  cwd: string;
  /** The mock tenant's URL. */
  tenantUrl: string;
  timeoutMs?: number;
}

export function auggieEnv(options: AuggieRunOptions): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: options.home,
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    AUGMENT_SESSION_AUTH: augmentAuth(options.tenantUrl),
    AUGMENT_DISABLE_AUTO_UPDATE: '1',
    NO_COLOR: '1',
  };
}

/** `auggie --print [-r ID] -i TEXT` from `cwd`; tool calls run without asking (print mode). */
export function runAuggie(instruction: string, options: AuggieRunOptions & { resume?: string }): Promise<ClientRun> {
  mkdirSync(options.home, { recursive: true });
  const cacheDir = options.cacheDir ?? join(options.home, '.augment');
  const args = ['--print', '--augment-cache-dir', cacheDir, '--workspace-root', options.cwd, '--no-discover-workspaces'];
  if (options.resume !== undefined) args.push('-r', options.resume);
  args.push('-i', instruction);
  return runClient(AUGGIE_BIN, args, { cwd: options.cwd, env: auggieEnv(options), timeoutMs: options.timeoutMs ?? 60_000, killGroup: true });
}
