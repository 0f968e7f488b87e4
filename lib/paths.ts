// Where the package's own files are, whether running from the TypeScript sources (lib/) or from
// the compiled output (dist/lib/); and the paths users give through environment variables.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

let root: URL | undefined;

export function packageRoot(): URL {
  if (root) return root;
  for (const up of ['../', '../../']) {
    const candidate = new URL(up, import.meta.url);
    if (existsSync(new URL('package.json', candidate))) return (root = candidate);
  }
  throw new Error('cannot find the sp package root');
}

/** `~` and `~/…` as the shell would expand them (paths from environment variables and options arrive unexpanded). */
export function expandTilde(path: string): string {
  if (path === '~') return homedir();
  if (path.startsWith('~/')) return join(homedir(), path.slice(2));
  return path;
}

/** An absolute path from an environment variable, or undefined when it is unset or blank. */
export function envPath(name: string): string | undefined {
  const value = process.env[name];
  return value && value.trim() !== '' ? resolve(expandTilde(value)) : undefined;
}
