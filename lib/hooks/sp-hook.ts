#!/usr/bin/env node
// The hook an agent runs when a turn or session ends (installed by `sp hooks install`). The agent
// waits for it, so it does almost nothing: it reads the payload as hostile data, checks that the
// session it names lies under that agent's home, hands the capture to a detached worker
// (lib/hooks/worker.ts) and exits 0 at once. It never fails or blocks the agent's turn: every
// error goes to $SP_HOME/logs/hooks.log. It imports node: modules only, so node starts it in tens of
// milliseconds instead of loading the toolkit.
import { spawn } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, fstatSync, mkdirSync, readSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** An agent id as the registry spells them: never a path, an option or a command. */
const AGENT_ID = /^[a-z][a-z0-9-]{0,39}$/;

/**
 * Whether this script serves an agent's hooks: its adapter folder has a hooks module
 * (adapters/<agent>/hooks.ts, which `sp hooks install` used). Found with a stat, not a load: the
 * agent waits for this script, which loads node: modules only. Anything else in argv is refused.
 */
function servesHooksOf(agent: string): boolean {
  if (typeof agent !== 'string' || !AGENT_ID.test(agent)) return false;
  const folder = fileURLToPath(new URL(`../../adapters/${agent}/`, import.meta.url));
  return existsSync(join(folder, 'hooks.js')) || existsSync(join(folder, 'hooks.ts'));
}
/** A payload is a small JSON object; anything bigger is not one the clients send. */
const MAX_PAYLOAD = 1 << 20;
/** Native session ids as the clients make them (UUIDs, Codex thread ids); never a path. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export interface HookArgs {
  agent: string;
  home: string;
  spHome: string;
  /** The payload from argv (Codex's notify passes it as the last argument). */
  argvPayload?: string;
}

/** What the hook hands the worker: a transcript file or a session id, checked. */
export type HookTarget = { path: string } | { session: string };

export function parseHookArgs(argv: string[]): HookArgs {
  const [agent, ...rest] = argv;
  if (!servesHooksOf(agent)) throw new Error(`unknown agent ${JSON.stringify(String(agent).slice(0, 40))}`);
  let home: string | undefined;
  let spHome: string | undefined;
  let argvPayload: string | undefined;
  for (let k = 0; k < rest.length; k += 1) {
    if (rest[k] === '--home') home = rest[++k];
    else if (rest[k] === '--sp-home') spHome = rest[++k];
    else argvPayload = rest[k];
  }
  if (!home || !isAbsolute(home)) throw new Error('--home must be an absolute path');
  if (!spHome || !isAbsolute(spHome)) throw new Error('--sp-home must be an absolute path');
  return { agent, home, spHome, argvPayload };
}

/** Reads stdin when it is a pipe or file (never a terminal), up to MAX_PAYLOAD bytes. */
function readStdin(): string {
  try {
    const st = fstatSync(0);
    if (!st.isFIFO() && !st.isFile() && !st.isSocket()) return '';
  } catch {
    return '';
  }
  const chunks: Buffer[] = [];
  let total = 0;
  const buffer = Buffer.alloc(65536);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buffer, 0, buffer.length, null);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') continue;
      if ((err as NodeJS.ErrnoException).code === 'EOF') break;
      throw err;
    }
    if (n === 0) break;
    total += n;
    if (total > MAX_PAYLOAD) throw new Error(`payload over ${MAX_PAYLOAD} bytes`);
    chunks.push(Buffer.from(buffer.subarray(0, n)));
    // A client that keeps stdin open after writing the payload must not hold the hook: a whole
    // JSON document is the end of it.
    if (buffer[n - 1] === 0x7d || buffer[n - 1] === 0x0a) {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        JSON.parse(text);
        return text;
      } catch {
        // not complete yet
      }
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel);
}

/**
 * The session the payload names, checked: a transcript path must be an existing regular file
 * whose real path (every symlink resolved) lies under the real path of the agent's home; a session
 * id must look like one. Throws with the reason otherwise.
 */
export function targetOf(payload: unknown, home: string): HookTarget {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new Error('the payload is not a JSON object');
  const p = payload as Record<string, unknown>;
  const transcript = p.transcript_path ?? p.transcriptPath;
  if (transcript !== undefined && transcript !== null && transcript !== '') {
    if (typeof transcript !== 'string' || transcript.length > 4096 || transcript.includes('\0')) throw new Error('transcript_path is not a path');
    const given = resolve(home, transcript);
    const realHome = realpathSync(home);
    const real = realpathSync(given);
    if (!inside(realHome, real)) throw new Error(`transcript_path ${JSON.stringify(transcript.slice(0, 200))} is not under the agent's home ${home}`);
    if (!statSync(real).isFile()) throw new Error(`transcript_path ${JSON.stringify(transcript.slice(0, 200))} is not a file`);
    return { path: real };
  }
  const id = p.session_id ?? p['thread-id'] ?? p.sessionId;
  if (typeof id === 'string' && SESSION_ID.test(id)) return { session: id };
  throw new Error('the payload names no transcript_path and no valid session id');
}

export function logLine(spHome: string, line: string): void {
  try {
    const dir = join(spHome, 'logs');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, 'hooks.log');
    appendFileSync(file, `${new Date().toISOString()} ${line.replace(/[\r\n]+/g, ' ')}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  } catch {
    // nowhere to log: the agent must still go on
  }
}

/** Starts the detached worker for `target` and returns without waiting for it. */
function startWorker(args: HookArgs, target: HookTarget): void {
  const worker = join(dirname(fileURLToPath(import.meta.url)), 'worker.js');
  const which = 'path' in target ? ['--path', target.path] : ['--session', target.session];
  const child = spawn(process.execPath, [worker, args.agent, '--home', args.home, '--sp-home', args.spHome, ...which], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, SP_HOME: args.spHome },
  });
  child.on('error', (err) => logLine(args.spHome, `${args.agent}: cannot start the worker: ${err.message}`));
  child.unref();
}

export function runHook(argv: string[]): void {
  let args: HookArgs | undefined;
  try {
    args = parseHookArgs(argv);
    const text = args.argvPayload ?? readStdin();
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      throw new Error(`the payload is not JSON (${text.length} bytes)`);
    }
    startWorker(args, targetOf(payload, args.home));
  } catch (err) {
    // Arguments that do not parse still name where the log goes, when they can.
    const given = argv[argv.indexOf('--sp-home') + 1];
    const spHome = args?.spHome ?? (argv.includes('--sp-home') && given && isAbsolute(given) ? given : process.env.SP_HOME || join(process.env.HOME ?? '/', '.sp'));
    logLine(spHome, `sp-hook ${argv[0] ?? ''}: ${(err as Error).message}`);
  }
}

// Run as a program (not imported by sp-hooks run or a test): always exit 0.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runHook(process.argv.slice(2));
  process.exitCode = 0;
}
