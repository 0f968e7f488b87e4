// Progress on stderr for long runs (captures, ingests, pushes): one line redrawn in place.
//
// When it draws: stderr is a terminal, --quiet was not given, and SP_PROGRESS is not 0. Otherwise
// it costs nothing and prints nothing, so logs, CI and pipes into files stay clean.
//
// One stage at a time: the stages of a shell pipeline share the terminal, so their lines would
// overwrite each other. A stage draws only while it holds a lock named after its process group
// (a shell with job control puts a whole pipeline in one group; a script's children share the
// script's group): `$TMPDIR/sp-progress-<uid>-<pgid>.lock`, holding the owner's pid. The first
// stage to start drawing holds it until it finishes; a later stage takes it over only then (or
// when the owner died without removing it). Where the group is unknown (no /proc), the parent
// pid stands in for it: the stages of a pipeline are children of the same shell.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getProgramName } from './diagnostics.js';

export interface ProgressOptions {
  /** What is being counted, e.g. `sessions`. */
  unit: string;
  /** The count it goes to, when known. */
  total?: number;
  /** --quiet: never draw. */
  quiet?: boolean;
  /** The stream drawn on (default process.stderr); tests pass their own. */
  stream?: NodeJS.WriteStream | { isTTY?: boolean; columns?: number; write(text: string): unknown };
  /** Milliseconds between redraws (default 100). */
  interval?: number;
  /** The environment to read SP_PROGRESS from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface Progress {
  /** Whether this progress draws at all (false: every call is a no-op). */
  readonly drawing: boolean;
  /** Adds `n` to the count; `detail` (e.g. a session id or an event count) is shown after it. */
  tick(n?: number, detail?: string): void;
  /** Sets the detail without counting. */
  note(detail: string): void;
  setTotal(total: number): void;
  /** Clears the line so a diagnostic can be written; the next tick draws it again. */
  clear(): void;
  /** Clears the line and gives the lock back. Safe to call twice. */
  done(): void;
}

/** The decision before the lock: stderr a terminal, not --quiet, SP_PROGRESS not 0 (1 forces drawing on a non-terminal). */
export function wantsProgress(options: { isTTY: boolean | undefined; quiet?: boolean; env?: NodeJS.ProcessEnv }): boolean {
  const setting = (options.env ?? process.env).SP_PROGRESS;
  if (options.quiet) return false;
  if (setting === '0') return false;
  if (setting === '1') return true;
  return options.isTTY === true;
}

/** The process group of this process (Linux /proc), else the parent pid: the key of the drawing lock. */
export function pipelineKey(): string {
  try {
    // /proc/self/stat: "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pgrp = Number(fields[2]);
    if (Number.isInteger(pgrp) && pgrp > 0) return `g${pgrp}`;
  } catch {
    // not Linux: fall through
  }
  return `p${process.ppid}`;
}

export function lockPath(key = pipelineKey(), dir = tmpdir()): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return join(dir, `sp-progress-${uid}-${key}.lock`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the drawing lock; false while another live process of the pipeline holds it. */
export function acquireDrawLock(path = lockPath()): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      let owner = NaN;
      try {
        owner = Number(readFileSync(path, 'utf8'));
      } catch {
        continue; // removed meanwhile: try again
      }
      if (owner === process.pid) return true;
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) return false;
      try {
        unlinkSync(path); // a dead owner's lock
      } catch {
        // someone else removed it first
      }
    }
  }
  return false;
}

export function releaseDrawLock(path = lockPath()): void {
  try {
    if (Number(readFileSync(path, 'utf8')) === process.pid) unlinkSync(path);
  } catch {
    // gone already
  }
}

const SILENT: Progress = { drawing: false, tick() {}, note() {}, setTotal() {}, clear() {}, done() {} };

/**
 * A count with thousands separators, as toLocaleString('en-US') writes it — without Intl: the first
 * toLocaleString call loads ICU's number formatting, ≈ 25 ms of a one-record incremental capture.
 */
export const formatCount = (n: number): string => (Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+$)/g, ',') : n.toLocaleString('en-US'));

const format = formatCount;

/**
 * A progress line `sp-capture: 12/340 sessions · <detail>`. A no-op unless it may draw (see the
 * top); the drawing lock is taken lazily, at the first redraw, so a fast run never touches it.
 */
export function createProgress(options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  if (!wantsProgress({ isTTY: stream.isTTY, quiet: options.quiet, env: options.env })) return SILENT;
  const interval = options.interval ?? 100;
  const started = Date.now();
  const path = lockPath();
  let count = 0;
  let total = options.total;
  let detail = '';
  let last = 0;
  let state: 'waiting' | 'drawing' | 'done' = 'waiting';
  let drawn = false;
  const onExit = () => releaseDrawLock(path);

  const draw = (force = false) => {
    if (state === 'done') return;
    const now = Date.now();
    if (!force && now - last < interval) return;
    last = now;
    // The first redraw comes after one interval: runs shorter than that never draw.
    if (now - started < interval) return;
    if (state === 'waiting') {
      if (!acquireDrawLock(path)) return;
      state = 'drawing';
      process.once('exit', onExit);
    }
    const counted = total !== undefined ? `${format(count)}/${format(total)}` : format(count);
    let line = `${getProgramName()}: ${counted} ${options.unit}${detail ? ` · ${detail}` : ''}`;
    const width = (stream.columns || 80) - 1; // a pty may report 0 columns
    if (line.length > width) line = `${line.slice(0, Math.max(0, width - 1))}…`;
    stream.write(`\r\x1b[K${line}`);
    drawn = true;
  };

  return {
    drawing: true,
    tick(n = 1, d?: string) {
      count += n;
      if (d !== undefined) detail = d;
      draw();
    },
    note(d: string) {
      detail = d;
      draw();
    },
    setTotal(t: number) {
      total = t;
    },
    clear() {
      if (drawn) stream.write('\r\x1b[K');
      drawn = false;
    },
    done() {
      if (state === 'done') return;
      if (drawn) stream.write('\r\x1b[K');
      if (state === 'drawing') {
        releaseDrawLock(path);
        process.removeListener('exit', onExit);
      }
      state = 'done';
    },
  };
}
