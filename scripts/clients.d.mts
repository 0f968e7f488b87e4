// Types for scripts/clients.mjs (imported by scripts/drift.mjs and test/drift.test.ts).
export interface LauncherClient { package: string; bin: string }
export interface NpmRun { ok: boolean; output: string }
export function npmRun(args: string[], cwd: string): NpmRun;
export function platformPackages(folder: string, client: LauncherClient, platform?: string): string[];
export function installLauncher(
  folder: string,
  client: LauncherClient,
  version: string,
  options?: { ignoreScripts?: boolean; platform?: string; npm?: (args: string[], cwd: string) => NpmRun },
): { bin: string; notes: string[] };
