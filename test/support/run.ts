// Runs a real agent client to completion for the tests (asynchronously, so an in-process mock model
// keeps serving): output collected, killed after the timeout. One runner for every client helper.
import { spawn } from 'node:child_process';

export interface ClientRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Default 45 s. */
  timeoutMs?: number;
  /** The client has children of its own: run it in its own process group and end the whole group. */
  killGroup?: boolean;
}

export function runClient(bin: string, args: string[], options: RunOptions): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.killGroup === true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => {
      timedOut = true;
      if (options.killGroup) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
          return;
        } catch {
          // no group (any more): kill the client itself
        }
      }
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 45_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program without blocking the test worker (no stdin), collecting its output. */
export function runProcess(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
