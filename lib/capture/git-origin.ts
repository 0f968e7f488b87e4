// The origin URL of the git checkout a session ran in, recorded at capture (session.start
// `git_origin`) so that `sp resume` can find the same repository on another machine by its remote
// (lib/ops/resume.ts). Only when the session's cwd exists here as a folder: a session captured on a
// machine that does not have its folder records nothing. git runs read-only with the repository's
// program-running settings off, bounded in time; the answer is cached per cwd (every session of a
// project asks once). Credentials in the URL (`https://user:token@host/…`) are dropped.
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';

const GIT_SAFE = ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'protocol.allow=never'];
const GIT_TIMEOUT_MS = 3000;
/** A remote URL longer than this, or with control characters, is not recorded. */
const MAX_URL = 2048;

const cache = new Map<string, string | undefined>();

/** A remote URL without its user and password (scp-like `user@host:path` has no password and is kept). */
export function withoutCredentials(url: string): string | undefined {
  const text = url.trim();
  if (text === '' || text.length > MAX_URL || /[\u0000-\u001f\u007f]/.test(text)) return undefined;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text)) return text;
  try {
    const parsed = new URL(text);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, text.endsWith('/') ? '/' : '');
  } catch {
    return undefined;
  }
}

/** The origin URL of the checkout at `cwd`, or undefined (no such folder here, not a checkout, no origin, git missing or slow). */
export function gitOriginOf(cwd: string): string | undefined {
  if (cache.has(cwd)) return cache.get(cwd);
  let origin: string | undefined;
  try {
    if (isAbsolute(cwd) && !cwd.includes('\0') && statSync(cwd).isDirectory()) {
      // Loaded here, not imported: only a capture whose cwd exists runs git (≈ 4 ms of module loading otherwise).
      const { spawnSync } = process.getBuiltinModule('node:child_process');
      const run = spawnSync('git', [...GIT_SAFE, '-C', cwd, 'config', '--get', 'remote.origin.url'], {
        encoding: 'utf8',
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: 64 << 10,
        stdio: ['ignore', 'pipe', 'ignore'],
        env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
      });
      if (run.status === 0 && !run.error) origin = withoutCredentials(run.stdout);
    }
  } catch {
    origin = undefined;
  }
  cache.set(cwd, origin);
  return origin;
}
