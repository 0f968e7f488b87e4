#!/usr/bin/env node
// The detached worker a hook starts (lib/hooks/sp-hook.ts): captures what one session gained since
// the last run into the store, redacted, with the existing entry points — as
//   sp-capture AGENT --path FILE --cursor CURSOR | sp-sync ingest
// does — and logs the outcome to $SP_HOME/logs/hooks.log. One worker per session at a time: a lock
// file per session; a hook that finds it held leaves an "again" mark, and the holder runs once more
// before it lets go, so two turns ending close together neither double-ingest nor lose the last one.
// The cursor only moves once the store has taken the events: a failed ingest is retried whole by
// the next turn (the store skips what it already holds).
import { spawn } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makePrivateDir, pidAlive } from '../fs/private.js';
import { logLine, parseHookArgs } from './sp-hook.js';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin');
/** Runs after the first when turns keep ending while one runs; bounded so a worker always ends. */
const MAX_ROUNDS = 5;

export interface WorkerArgs {
  agent: string;
  home: string;
  spHome: string;
  path?: string;
  session?: string;
}

export function parseWorkerArgs(argv: string[]): WorkerArgs {
  const base = parseHookArgs(argv.filter((a, k) => !(a === '--path' || a === '--session' || argv[k - 1] === '--path' || argv[k - 1] === '--session')));
  const at = (flag: string) => {
    const k = argv.indexOf(flag);
    return k >= 0 ? argv[k + 1] : undefined;
  };
  const out: WorkerArgs = { agent: base.agent, home: base.home, spHome: base.spHome, path: at('--path'), session: at('--session') };
  if ((out.path === undefined) === (out.session === undefined)) throw new Error('give one of --path FILE or --session ID');
  return out;
}

/** The folder of the hooks' own state under $SP_HOME (cursors and locks), private. */
export function hooksStateDir(spHome: string): string {
  return join(spHome, 'hooks', 'sessions');
}

/** One key per agent and session: the name of its cursor, lock and mark files. */
export function sessionKey(args: Pick<WorkerArgs, 'agent' | 'path' | 'session'>): string {
  const what = args.path !== undefined ? `path:${args.path}` : `session:${args.session}`;
  return `${args.agent}-${createHash('sha256').update(what).digest('hex').slice(0, 24)}`;
}

/** Takes the session's lock, or returns false when a live worker holds it (a dead one's is taken over). */
function takeLock(lock: string): boolean {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(lock, 'utf8').trim());
      if (pidAlive(holder)) return false;
      rmSync(lock, { force: true });
    }
  }
  return false;
}

interface Ran {
  code: number | null;
  stderr: string;
}

function run(script: string, args: string[], env: NodeJS.ProcessEnv, stdoutFile?: string): Promise<Ran> {
  return new Promise((done) => {
    const out = stdoutFile !== undefined ? openSync(stdoutFile, 'wx', 0o600) : 'ignore';
    const child = spawn(process.execPath, [join(BIN, script), ...args], { env, stdio: ['ignore', out, 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 8192) stderr += d.toString('utf8');
    });
    child.on('error', (err) => done({ code: null, stderr: err.message }));
    child.on('close', (code) => {
      if (typeof out === 'number') closeSync(out);
      done({ code, stderr });
    });
  });
}

/** sp-capture's refusals to continue from a stored read position all name it by its flag's word (`--cursor`). */
const NAMES_READ_POSITION = /\bcursor\b/;

const lastLine = (text: string): string => text.trim().split('\n').pop() ?? '';

/** One round: capture from the cursor into a private temp file, ingest it, then move the cursor. */
async function captureOnce(args: WorkerArgs, dir: string, key: string): Promise<string> {
  const cursor = join(dir, `${key}.cursor.json`);
  const stamp = `${process.pid}.${randomBytes(4).toString('hex')}`;
  const nextCursor = join(dir, `.${key}.cursor.${stamp}.tmp`);
  const events = join(dir, `.${key}.events.${stamp}.tmp`);
  const env = { ...process.env, SP_HOME: args.spHome };
  try {
    if (existsSync(cursor)) copyFileSync(cursor, nextCursor);
    const select = args.path !== undefined ? ['--path', args.path] : ['--session', args.session!];
    const capture = () => run('sp-capture.js', [args.agent, ...select, '--home', args.home, '--cursor', nextCursor, '--quiet'], env, events);
    let captured = await capture();
    if (captured.code === 2 && existsSync(cursor) && NAMES_READ_POSITION.test(captured.stderr)) {
      // The session was rewritten under the cursor (OpenCode and Hermes update rows in place): read it
      // again from the start, as sp watch does; the store keeps the events it already holds once.
      rmSync(nextCursor, { force: true });
      rmSync(events, { force: true });
      logLine(args.spHome, `${args.agent} ${args.path ?? args.session}: ${await redacted(lastLine(captured.stderr))}: read again from the start`);
      captured = await capture();
    }
    if (captured.code !== 0) throw new Error(`sp-capture exited ${captured.code}: ${lastLine(captured.stderr)}`);
    const ingested = await run('sp-sync.js', ['ingest', '--quiet', '--json', events], env);
    if (ingested.code !== 0) throw new Error(`sp-sync ingest exited ${ingested.code}: ${ingested.stderr.trim().split('\n').pop() ?? ''}`);
    if (existsSync(nextCursor)) renameSync(nextCursor, cursor);
    const lines = readFileSync(events, 'utf8').split('\n').filter((l) => l !== '').length;
    return `${lines} event${lines === 1 ? '' : 's'} captured`;
  } finally {
    rmSync(nextCursor, { force: true });
    rmSync(events, { force: true });
  }
}

/**
 * An error line for the log with secrets redacted: a child's last stderr line may quote a line of
 * the session (sp-capture's diagnostics carry an excerpt).
 */
async function redacted(message: string): Promise<string> {
  try {
    const { Redactor } = await import('../redact/ensure.js');
    return (await Redactor.load()).redactText(message);
  } catch {
    return '(an error whose text could not be redacted; run the capture by hand to see it)';
  }
}

export async function runWorker(argv: string[]): Promise<void> {
  let args: WorkerArgs | undefined;
  try {
    args = parseWorkerArgs(argv);
    const dir = hooksStateDir(args.spHome);
    makePrivateDir(dir);
    const key = sessionKey(args);
    const lock = join(dir, `${key}.lock`);
    const again = join(dir, `${key}.again`);
    const what = `${args.agent} ${args.path ?? args.session}`;
    let round = 0;
    while (round < MAX_ROUNDS) {
      if (!takeLock(lock)) {
        // The holder runs once more when it sees this mark.
        closeSync(openSync(again, 'w', 0o600));
        logLine(args.spHome, `${what}: a worker is running for this session; it will capture again`);
        return;
      }
      try {
        do {
          rmSync(again, { force: true });
          round += 1;
          const started = Date.now();
          try {
            logLine(args.spHome, `${what}: ${await captureOnce(args, dir, key)} in ${Date.now() - started} ms`);
          } catch (err) {
            logLine(args.spHome, `${what}: ${await redacted((err as Error).message)}`);
          }
        } while (existsSync(again) && round < MAX_ROUNDS);
      } finally {
        rmSync(lock, { force: true });
      }
      // A hook that came between the last check and the unlock left its mark and went: take it up.
      if (!existsSync(again)) break;
    }
  } catch (err) {
    logLine(args?.spHome ?? (process.env.SP_HOME || join(homedir(), '.sp')), `worker ${argv[0] ?? ''}: ${(err as Error).message}`);
  }
}

if (process.argv[1] && process.argv[1] === fileURLToPath(import.meta.url)) await runWorker(process.argv.slice(2));
