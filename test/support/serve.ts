// sp serve as a real process for the tests: scratch homes holding fixture sessions, a free port,
// the URL it prints read from stdout; requests sent with node:http so Host, Origin and the path go
// out exactly as written (fetch would fix them up).
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const CLAUDE_ID = 'e05d2652-6a94-447f-8b60-cded66e4199a';

export interface Scratch {
  work: string;
  claude: string;
  codex: string;
  env: NodeJS.ProcessEnv;
}

/** A scratch folder with the recorded Claude Code session (a secret added to its first prompt) and an empty Codex home. */
export function scratchHomes(prefix: string, secret?: string): Scratch {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const claude = join(work, 'claude');
  const codex = join(work, 'codex');
  cpSync(join(ROOT, 'fixtures/claude/corpus/S1-feature/.claude'), claude, { recursive: true });
  mkdirSync(codex);
  mkdirSync(join(work, 'home'));
  if (secret !== undefined) {
    const transcript = join(claude, 'projects/-home-alice-acme-api', `${CLAUDE_ID}.jsonl`);
    writeFileSync(transcript, readFileSync(transcript, 'utf8').replaceAll('Add a DELETE /todos/:id endpoint with a test.', `Add a DELETE /todos/:id endpoint with a test. My token is ${secret}`));
  }
  // Only these homes exist: every other agent's default home is under the scratch HOME.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', HOME: join(work, 'home'), SP_HOME: join(work, 'sp-home'), CLAUDE_CONFIG_DIR: claude, CODEX_HOME: codex };
  return { work, claude, codex, env };
}

export interface Served {
  child: ChildProcess;
  url: string;
  port: number;
  token: string;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** Starts dist/bin/sp-serve.js with `args` (plus --port 0); resolves with the URL it printed. */
export function startServe(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Served> {
  const child = spawn(process.execPath, [join(ROOT, 'dist/bin/sp-serve.js'), '--port', '0', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sp serve printed no URL in 60 s; stderr: ${stderr}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sp serve exited (${code}) before printing its URL; stderr: ${stderr}`));
    });
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      const m = /^(http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]+))\n/.exec(stdout);
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({
        child,
        url: m[1],
        port: Number(m[2]),
        token: m[3],
        stderr: () => stderr,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: () => any;
}

/** One raw HTTP request to 127.0.0.1:port. */
export function send(port: number, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { Host: `127.0.0.1:${port}`, ...options.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
      });
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
