// The fuzz and fault suite's runner: starts a compiled binary on an input, and checks what every
// case must show whatever the input — a documented exit code, diagnostics as `sp-<name>: …` lines
// (never a stack trace or an "internal error"), inputs unchanged, no partial output files.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, lstatSync, mkdtempSync, openSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';

export const ROOT = new URL('../../../', import.meta.url).pathname;
/** The compiled package to test (SP_HARD_DIST: a private build, so a rebuild by someone else cannot race a run). */
export const DIST = process.env.SP_HARD_DIST ?? join(ROOT, 'dist');
export const binPath = (name: string) => join(DIST, 'bin', `${name}.js`);

/** Tests run as root here, and root ignores permission bits: unreadable files need another user. */
export const IS_ROOT = process.getuid?.() === 0;
export const NOBODY = 65534;

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

export interface RunOptions {
  /** A file for stdin; default: /dev/null. */
  stdinFile?: string;
  /** A file stdout goes to instead of being collected (large outputs). */
  stdoutFile?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
  /** Run as this uid/gid (via setpriv), for permission cases as root. */
  asUid?: number;
  /** Called with the child's pid once it started (kill -9 cases). */
  onSpawn?: (pid: number) => void;
}

/** Runs `sp-<name>` (compiled) with args. */
export function runBin(name: string, args: string[], options: RunOptions = {}): Promise<Run> {
  const node = process.execPath;
  const command = options.asUid !== undefined ? 'setpriv' : node;
  const argv = options.asUid !== undefined
    ? [`--reuid=${options.asUid}`, `--regid=${options.asUid}`, '--clear-groups', node, binPath(name), ...args]
    : [binPath(name), ...args];
  const stdin = options.stdinFile ? openSync(options.stdinFile, 'r') : 'ignore';
  const stdoutFd = options.stdoutFile ? openSync(options.stdoutFile, 'w') : 'pipe';
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, SP_DEBUG: '', NODE_OPTIONS: '', ...options.env },
      stdio: [stdin, stdoutFd, 'pipe'],
    });
    if (typeof stdin === 'number') closeSync(stdin);
    if (typeof stdoutFd === 'number') closeSync(stdoutFd);
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    const out: Buffer[] = [];
    let err = '';
    let timedOut = false;
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 60_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out), stderr: err, ms: performance.now() - started, timedOut });
    });
  });
}

/** Problems with a run's stderr: lines not of the `sp-<name>: …` form, stack frames, error dumps. */
export function diagnosticProblems(name: string, stderr: string): string[] {
  const problems: string[] = [];
  for (const line of stderr.split('\n')) {
    if (line === '') continue;
    if (/^\s+at /.test(line)) problems.push(`stack frame: ${line.slice(0, 160)}`);
    else if (!line.startsWith(`${name}: `)) problems.push(`not a diagnostic line: ${line.slice(0, 160)}`);
    else if (/internal error/.test(line)) problems.push(`internal error: ${line.slice(0, 240)}`);
    else if (/\b(?:Range|Type|Reference|Syntax)?Error: /.test(line) && !/invalid JSON \(/.test(line)) {
      problems.push(`error dump: ${line.slice(0, 240)}`);
    }
  }
  return problems;
}

export interface Expectation {
  /** Exit codes this case may end with (documented: 0 ok, 1 check failed, 2 usage/unreadable). */
  codes: number[];
  /** The input is damaged: exit 0 must come with at least one diagnostic (a reported skip or warning). */
  mustReport?: boolean;
}

/** What a case ended with, for the suite's table. */
export type Outcome = 'ok' | 'warn' | 'error' | 'check-failed' | 'skip';

export function outcomeOf(run: Run): Outcome {
  if (run.code === 1) return 'check-failed';
  if (run.code === 2) return 'error';
  return run.stderr.trim() === '' ? 'ok' : 'warn';
}

/** The assertions every case shares. */
export function expectWellBehaved(name: string, run: Run, expectation: Expectation): void {
  const context = `${name} exit ${run.code}${run.signal ? ` (${run.signal})` : ''}, stderr:\n${run.stderr.slice(0, 2000)}`;
  expect(run.timedOut, `timed out: ${context}`).toBe(false);
  expect(run.signal, context).toBeNull();
  expect(expectation.codes, context).toContain(run.code);
  expect(diagnosticProblems(name, run.stderr), context).toEqual([]);
  if (run.code === 2) expect(run.stderr.trim(), `exit 2 without a diagnostic: ${context}`).not.toBe('');
  if (expectation.mustReport && run.code === 0) expect(run.stderr.trim(), `damaged input passed silently: ${context}`).not.toBe('');
}

/** A fingerprint of everything under `path` (names, types, modes, sizes, content hashes, link targets). */
export function treeHash(path: string): string {
  const hash = createHash('sha256');
  const walk = (p: string, rel: string) => {
    let st;
    try {
      st = lstatSync(p);
    } catch {
      hash.update(`${rel}\0absent\n`);
      return;
    }
    hash.update(`${rel}\0${st.mode}\0${st.size}\0`);
    if (st.isDirectory()) {
      for (const entry of readdirSync(p).sort()) walk(join(p, entry), `${rel}/${entry}`);
    } else if (st.isSymbolicLink()) {
      hash.update(readlinkSync(p));
    } else if (st.isFile()) {
      hash.update(createHash('sha256').update(readFileSync(p)).digest('hex'));
    }
    hash.update('\n');
  };
  walk(path, '.');
  return hash.digest('hex');
}

/** Files (not folders) under `path`, relative, sorted. */
export function filesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  const out: string[] = [];
  const walk = (p: string, rel: string) => {
    for (const entry of readdirSync(p, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(join(p, entry.name), r);
      else out.push(r);
    }
  };
  walk(path, '');
  return out.sort();
}

const made: string[] = [];
export function tempDir(prefix = 'sp-hard-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** The suite's outcome table: one row per case × binary, written to $SP_HARD_TABLE (a JSON lines file) when set. */
export function record(row: { bin: string; target?: string; case: string; outcome: Outcome; code?: number | null; ms?: number; note?: string }): void {
  const file = process.env.SP_HARD_TABLE;
  if (!file) return;
  writeFileSync(file, JSON.stringify(row) + '\n', { flag: 'a' });
}

/** A stream a binary printed with exit 0 must be whole: every line an event, schema-valid, seq and chain intact. */
export async function verifyStream(bytes: Buffer): Promise<{ ok: boolean; events: number; damage: string }> {
  const { Verifier, formatReport } = await import('../../../lib/core/verify.js');
  const { createValidator } = await import('../../../lib/core/schema.js');
  const { readObjects } = await import('../../../lib/core/ndjson.js');
  const verifier = new Verifier({ validator: await createValidator() });
  const input = { name: 'stdout', open: async function* () { yield bytes; } };
  for await (const { value, line, source } of readObjects([input], { onBadLine: (bad) => verifier.badLine(bad.source, bad.line, bad.reason) })) {
    verifier.push(source, line, value);
  }
  const report = verifier.finish();
  return { ok: report.ok, events: report.events, damage: report.ok ? '' : formatReport(report).slice(0, 2000) };
}
