// Runs the pinned real Cline CLI (`cline` 3.0.65, fetched by `node scripts/clients.mjs prepare`) offline against a mock
// Anthropic API in a fresh HOME. `cline --id <id>` resumes only in its terminal UI, so a resume is
// driven the way an editor drives it: `cline --acp` (Agent Client Protocol, JSON-RPC lines on stdio),
// `initialize`, `session/load` {sessionId, cwd}, `session/prompt` (docs/formats/cline.md §6). The
// provider's base URL lives in the client's providers.json; the key is fake.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cline } from '../../adapters/cline/index.js';
import { fetchedClientBin } from './fetchedClient.js';

// Not a devDependency (scripts/clients.mjs says why): `npm test` fetches it into a cache first.
// SP_CLIENT_BIN_CLINE first: the drift watch (scripts/drift.mjs) points the runner at the newest release.
export const CLINE_BIN = process.env.SP_CLIENT_BIN_CLINE || process.env.CLINE_BIN || fetchedClientBin(cline);
export const CLINE_MODEL = 'claude-sonnet-4-5';

/** The client's config folder under a fake HOME, with the Anthropic provider pointed at the mock. */
export function clineHome(home: string, anthropicUrl: string): string {
  const dir = join(home, '.cline');
  const settings = join(dir, 'data', 'settings');
  mkdirSync(settings, { recursive: true });
  const providers = {
    version: 1,
    lastUsedProvider: 'anthropic',
    modes: {},
    providers: { anthropic: { settings: { provider: 'anthropic', apiKey: 'sk-ant-mock', model: CLINE_MODEL, baseUrl: `${anthropicUrl}/v1` }, updatedAt: new Date().toISOString(), tokenSource: 'manual' } },
  };
  writeFileSync(join(settings, 'providers.json'), JSON.stringify(providers, null, 2));
  return dir;
}

/** A free loopback port: each run gets a hub of its own instead of the machine-wide default one. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * The client starts a background "hub" daemon (its own session, so the process group kill misses it)
 * that outlives the run: the one started for this run's project folder (a unique temporary path on
 * its command line) is ended by its pid.
 */
export function endHubDaemons(cwd: string): number[] {
  const ended: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const at = argv.indexOf('--cwd');
    if (!argv.includes('--cline-hub-daemon') || at === -1 || argv[at + 1] !== cwd) continue;
    try {
      process.kill(Number(name), 'SIGKILL');
      ended.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return ended;
}

export function clineEnv(home: string, hubPort?: number): NodeJS.ProcessEnv {
  return {
    ...(hubPort ? { CLINE_HUB_PORT: String(hubPort) } : {}),
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    CLINE_DIR: join(home, '.cline'),
    CLINE_API_KEY: 'sk-ant-mock',
    CLINE_PROVIDER: 'anthropic',
    CLINE_MODEL,
    // Sessions run in this process, not through the machine-wide hub daemon.
    CLINE_SESSION_BACKEND_MODE: 'local',
    NO_COLOR: '1',
  };
}

export interface AcpRun {
  /** The JSON-RPC answers, by method. */
  answers: Record<string, { result?: unknown; error?: { message?: string; data?: unknown } }>;
  stderr: string;
  timedOut: boolean;
}

/** `session/load` then one `session/prompt` over `cline --acp`; the client's process group is ended after. */
export async function resumeOverAcp(sessionId: string, prompt: string, options: { home: string; cwd: string; timeoutMs?: number }): Promise<AcpRun> {
  const hubPort = await freePort();
  try {
    return await acp(sessionId, prompt, { ...options, hubPort });
  } finally {
    endHubDaemons(options.cwd);
  }
}

function acp(sessionId: string, prompt: string, options: { home: string; cwd: string; timeoutMs?: number; hubPort: number }): Promise<AcpRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLINE_BIN, ['--acp'], { cwd: options.cwd, env: clineEnv(options.home, options.hubPort), stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const answers: AcpRun['answers'] = {};
    const methods = new Map<number, string>();
    let stderr = '';
    let buffer = '';
    let timedOut = false;
    let next = 1;
    const end = (): void => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      end();
    }, options.timeoutMs ?? 60_000);
    const send = (message: object): void => {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    };
    const call = (method: string, params: object): void => {
      methods.set(next, method);
      send({ id: next++, method, params });
    };
    const onAnswer = (method: string, failed: boolean): void => {
      if (method === 'initialize' && !failed) call('session/load', { sessionId, cwd: options.cwd, mcpServers: [] });
      else if (method === 'session/load' && !failed) call('session/prompt', { sessionId, prompt: [{ type: 'text', text: prompt }] });
      else end();
    };
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.stdout.on('data', (c: Buffer) => {
      buffer += c.toString('utf8');
      for (let at = buffer.indexOf('\n'); at !== -1; at = buffer.indexOf('\n')) {
        const line = buffer.slice(0, at).trim();
        buffer = buffer.slice(at + 1);
        if (!line.startsWith('{')) continue;
        let message: { id?: number; method?: string; result?: unknown; error?: { message?: string }; params?: { options?: Array<{ optionId?: string }> } };
        try {
          message = JSON.parse(line);
        } catch {
          continue;
        }
        if (message.method !== undefined && message.id !== undefined) {
          // A request from the agent (a permission): the first option, so nothing waits for a person.
          const option = message.params?.options?.[0]?.optionId;
          send({ id: message.id, result: option ? { outcome: { outcome: 'selected', optionId: option } } : {} });
        } else if (message.id !== undefined && methods.has(message.id)) {
          const method = methods.get(message.id)!;
          answers[method] = { result: message.result, error: message.error };
          onAnswer(method, message.error !== undefined);
        }
      }
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ answers, stderr, timedOut });
    });
    call('initialize', { protocolVersion: 1, clientCapabilities: {} });
  });
}
