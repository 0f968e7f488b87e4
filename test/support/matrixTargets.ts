// The targets of the relay matrix (matrix.ts), one entry each: where the writer puts the session
// (a fresh home), how the real client resumes it against our mock model API, and what the model
// got — texts, tool calls and results, the tools it was offered. Adding an agent (OpenCode, Gemini,
// Qwen, Copilot …) is one more entry here.
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { TargetName } from '../../lib/compile/targets.js';
import type { MaterializeResult } from '../../lib/adapter/interface.js';
import type { RelayOptions } from '../../lib/relay/relay.js';
import { checkValidity, parseCalls } from '../../adapters/hermes/validity.js';
import { runClaude } from './claudeClient.js';
import { runCodexExec, writeCodexConfig } from './codexClient.js';
import { startMockAnthropic } from './mockAnthropic.js';
import { startMockResponses } from './mockResponses.js';
import { startMockModel } from '../pi/mockModel.js';
import { configureAgentDir, runPi, type ProviderModel } from '../pi/piClient.js';
import { activePath, readEntries } from '../pi/support.js';
import { readSession } from '../hermes/support.js';
import { copyDb } from '../opencode/support.js';
import { runCopilot } from './copilotClient.js';
import { OPENCODE, configureFamily, opencodeHome, runFamily, type OpenCodeFamilyClient } from './opencodeClient.js';
import { agentHome, preparePlace, resumeWith } from './geminiClients.js';
import { startMockGemini } from './mockGemini.js';

type Json = Record<string, any>;

export const PROBE = 'SP-MATRIX-PROBE: reply OK';

/** What reached the model (or the target's store) when the session was resumed. */
export interface Observed {
  accepted: boolean;
  why?: string;
  /** Every string of the history sent, joined. */
  texts: string;
  calls: Array<{ id: string; name: string }>;
  /** Call ids that have a result. */
  results: string[];
  /** The tool names the target offered the model: its vocabulary. */
  tools: Set<string>;
}

export interface Place {
  dir: string;
  /** Where the relay writes (home, cwd …). */
  options: RelayOptions;
  [extra: string]: unknown;
}

export interface MatrixTarget {
  /** The agent name (sp-materialize's target). */
  id: string;
  label: string;
  /** What sp-compile --for gets in context mode. */
  compileFor: TargetName;
  prepare(dir: string): Place;
  resume(result: MaterializeResult, place: Place): Promise<Observed>;
}

export function strings(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, into);
  return into;
}

/** The target's project folder under `dir` (real path: clients compare it with their cwd). */
export function project(dir: string): string {
  const cwd = join(dir, 'project');
  mkdirSync(cwd, { recursive: true });
  return realpathSync(cwd);
}

export const failed = (why: string): Observed => ({ accepted: false, why, texts: '', calls: [], results: [], tools: new Set() });
/** The last two lines of a client's output, for a one-line reason. */
export const tail = (text: string): string => text.trim().split('\n').slice(-2).join(' ').slice(-200);

/** Anthropic Messages: tool_use blocks in assistant messages, tool_result blocks in user messages. */
export function anthropicObserved(body: Json): Omit<Observed, 'accepted'> {
  const calls: Observed['calls'] = [];
  const results: string[] = [];
  for (const m of (body.messages ?? []) as Json[]) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as Json[]) {
      if (b.type === 'tool_use') calls.push({ id: String(b.id), name: String(b.name) });
      if (b.type === 'tool_result') results.push(String(b.tool_use_id));
    }
  }
  return { texts: strings(body.messages).join('\n'), calls, results, tools: new Set(((body.tools ?? []) as Json[]).map((t) => String(t.name))) };
}

/** OpenAI Responses (Codex): *_call items and their *_call_output items, by call_id. */
export function responsesObserved(body: Json): Omit<Observed, 'accepted'> {
  const calls: Observed['calls'] = [];
  const results: string[] = [];
  for (const item of (body.input ?? []) as Json[]) {
    if (typeof item.call_id !== 'string') continue;
    if (/_output$/.test(String(item.type))) results.push(item.call_id);
    else if (/_call$/.test(String(item.type))) calls.push({ id: item.call_id, name: String(item.name ?? item.type) });
  }
  return { texts: strings(body.input).join('\n'), calls, results, tools: new Set(((body.tools ?? []) as Json[]).map((t) => String(t.name ?? t.type))) };
}

/** OpenAI Chat Completions: assistant tool_calls, tool messages by tool_call_id. */
export function chatObserved(body: Json): Omit<Observed, 'accepted'> {
  const calls: Observed['calls'] = [];
  const results: string[] = [];
  for (const m of (body.messages ?? []) as Json[]) {
    for (const c of (m.tool_calls ?? []) as Json[]) calls.push({ id: String(c.id), name: String(c.function?.name) });
    if (m.role === 'tool') results.push(String(m.tool_call_id));
  }
  return { texts: strings(body.messages).join('\n'), calls, results, tools: new Set(((body.tools ?? []) as Json[]).map((t) => String(t.function?.name ?? t.name))) };
}

const claudeTarget: MatrixTarget = {
  id: 'claude',
  label: 'Claude Code',
  compileFor: 'claude',
  prepare(dir) {
    const home = join(dir, 'home');
    return { dir, home, options: { home: join(home, '.claude'), cwd: project(dir) } };
  },
  async resume(result, place) {
    const mock = await startMockAnthropic();
    try {
      const run = await runClaude(['-p', PROBE, '--resume', result.session_id, '--dangerously-skip-permissions', '--output-format', 'json'], {
        cwd: result.cwd,
        home: place.home as string,
        port: mock.port,
        timeoutMs: 90_000,
      });
      const body = mock.firstMain();
      if (run.timedOut) return failed('the client timed out');
      if (run.code !== 0 || !body) return failed(`exit ${run.code}: ${tail(run.stderr || run.stdout)}`);
      // The probe is the newest user turn (the client may add context messages of its own after it).
      const lastUser = [...body.messages].reverse().find((m) => m.role === 'user');
      if (!JSON.stringify(lastUser).includes(PROBE)) return failed(`the last user message is not the probe: ${JSON.stringify(lastUser).slice(0, 160)}`);
      return { accepted: true, ...anthropicObserved(body as Json) };
    } finally {
      await mock.close();
    }
  },
};

const codexTarget: MatrixTarget = {
  id: 'codex',
  label: 'Codex',
  compileFor: 'codex',
  prepare(dir) {
    return { dir, home: join(dir, 'codex-home'), options: { home: join(dir, 'codex-home'), cwd: project(dir) } };
  },
  async resume(result, place) {
    const mock = await startMockResponses('OK');
    try {
      writeCodexConfig(place.home as string, mock.baseUrl);
      const run = await runCodexExec(['resume', result.session_id, PROBE], { home: place.home as string, work: place.dir, cwd: result.cwd, timeoutMs: 90_000 });
      const request = mock.requests.find((r) => Array.isArray(r.body?.input));
      if (run.timedOut) return failed('the client timed out');
      if (run.code !== 0 || !request) return failed(`exit ${run.code}: ${tail(run.stderr)}`);
      if (run.threadId !== result.session_id) return failed(`resumed thread ${run.threadId}, not ${result.session_id}`);
      return { accepted: true, ...responsesObserved(request.body as Json) };
    } finally {
      await mock.close();
    }
  },
};

/** The model Pi restores for a file: the last model_change or assistant message on the active path. */
function piModel(entries: Json[]): ProviderModel {
  let model: ProviderModel = { provider: 'anthropic', model: 'claude-sonnet-4-5', api: 'anthropic-messages' };
  for (const e of activePath(entries)) {
    if (e.type === 'model_change') model = { provider: e.provider, model: e.modelId, api: model.api };
    if (e.type === 'message' && e.message.role === 'assistant') model = { provider: e.message.provider, model: e.message.model, api: e.message.api };
  }
  return { ...model, api: model.api === 'openai-completions' ? 'openai-completions' : 'anthropic-messages' };
}

const piTarget: MatrixTarget = {
  id: 'pi',
  label: 'Pi',
  compileFor: 'pi',
  prepare(dir) {
    return { dir, options: { home: join(dir, 'agent'), cwd: project(dir), mkcwd: true } };
  },
  async resume(result, place) {
    const agentDir = place.options.home!;
    const mock = await startMockModel();
    try {
      configureAgentDir(agentDir, mock, [piModel(readEntries(result.path))], { contextWindow: 1_000_000 });
      const run = await runPi(['--session', result.path, '-ne', '-ns', '-np', '-nc', '-p', PROBE], { cwd: result.cwd, agentDir, home: join(place.dir, 'home'), timeoutMs: 90_000 });
      const request = mock.requests[0];
      if (run.timedOut) return failed('the client timed out');
      if (run.code !== 0 || !request) return failed(`exit ${run.code}: ${tail(run.stderr || run.stdout)}`);
      const violations = mock.requests.flatMap((r) => r.violations);
      if (violations.length) return failed(`the API would reject it: ${violations[0]}`);
      const seen = request.api === 'anthropic' ? anthropicObserved(request.body) : chatObserved(request.body);
      if (!seen.texts.includes(PROBE)) return failed('the request does not carry the probe');
      return { accepted: true, ...seen };
    } finally {
      await mock.close();
    }
  },
};

/** Hermes Agent's own tools (formats/hermes.md; the names its recorded sessions use). */
export const HERMES_TOOLS = new Set(['read_file', 'write_file', 'patch', 'terminal', 'todo']);

const hermesTarget: MatrixTarget = {
  id: 'hermes',
  label: 'Hermes (rows)',
  compileFor: 'hermes',
  prepare(dir) {
    return { dir, options: { home: join(dir, 'hermes-home'), cwd: project(dir) } };
  },
  async resume(result) {
    const { session, rows } = readSession(result.path, result.session_id);
    if (!session) return failed('no session row');
    const broken = checkValidity(rows as never, session).filter((r) => !r.ok);
    if (broken.length) return failed(`validity: ${broken[0].rule}${broken[0].detail ? ` (${broken[0].detail})` : ''}`);
    const calls: Observed['calls'] = [];
    const results: string[] = [];
    for (const row of rows as Json[]) {
      if (row.role === 'assistant') for (const c of parseCalls(row.tool_calls).calls) calls.push({ id: String(c.id), name: String((c.function as Json | undefined)?.name) });
      if (row.role === 'tool') results.push(String(row.tool_call_id));
    }
    return { accepted: true, texts: (rows as Json[]).map((r) => String(r.content ?? '')).join('\n'), calls, results, tools: HERMES_TOOLS };
  },
};

const copilotTarget: MatrixTarget = {
  id: 'copilot',
  label: 'Copilot CLI',
  compileFor: 'copilot',
  prepare(dir) {
    const home = join(dir, 'home');
    return { dir, home, options: { home: join(home, '.copilot'), cwd: project(dir) } };
  },
  async resume(result, place) {
    const mock = await startMockModel();
    try {
      const run = await runCopilot(result.session_id, PROBE, { home: place.home as string, cwd: result.cwd, mock, timeoutMs: 180_000 });
      const request = mock.requests[0];
      if (run.timedOut) return failed('the client timed out');
      if (run.code !== 0 || !request) return failed(`exit ${run.code}: ${tail(run.stderr || run.stdout)}`);
      const violations = mock.requests.flatMap((r) => r.violations);
      if (violations.length) return failed(`the API would reject it: ${violations[0]}`);
      const seen = chatObserved(request.body);
      if (!strings(request.body.messages.at(-1)).join('\n').includes(PROBE)) return failed('the request does not end with the probe');
      return { accepted: true, ...seen };
    } finally {
      await mock.close();
    }
  },
};

/** `opencode run` re-joins positional words with spaces in quotes: its probe is one word. */
/** The probe as one word: `run` of the OpenCode family re-joins positional words with spaces in quotes. */
const ONE_WORD_PROBE = PROBE.replace(/[: ]+/g, '-');

/** A client of the OpenCode family (OpenCode, Kilo Code CLI) resumes the session sp wrote: one `run` turn against the mock. */
export async function resumeOpenCodeFamily(client: OpenCodeFamilyClient, result: MaterializeResult, place: Place, timeoutMs?: number): Promise<Observed> {
  const mock = await startMockModel();
  try {
    configureFamily(place.home as string, mock, client);
    const run = await runFamily(client, result.session_id, ONE_WORD_PROBE, { home: place.home as string, cwd: result.cwd, timeoutMs });
    const request = mock.requests.find((q) => strings(q.body.messages).some((s) => s.includes(ONE_WORD_PROBE)));
    if (run.timedOut) return failed('the client timed out');
    if (run.code !== 0 || !request) return failed(`exit ${run.code}: ${tail(run.stderr || run.stdout)}`);
    const violations = mock.requests.flatMap((r) => r.violations);
    if (violations.length) return failed(`the API would reject it: ${violations[0]}`);
    const seen = request.api === 'anthropic' ? anthropicObserved(request.body) : chatObserved(request.body);
    return { accepted: true, ...seen };
  } finally {
    await mock.close();
  }
}

const opencodeTarget: MatrixTarget = {
  id: 'opencode',
  label: 'OpenCode',
  compileFor: 'opencode',
  prepare(dir) {
    // The writer adds rows to a database the client made: a copy of the corpus one.
    const { home, data } = opencodeHome(dir);
    copyDb(data);
    return { dir, home, options: { home: data, cwd: project(dir), backup: false } };
  },
  resume: (result, place) => resumeOpenCodeFamily(OPENCODE, result, place, 240_000),
};

/** Gemini API contents: functionCall / functionResponse parts by id; tools from functionDeclarations. */
export function geminiObserved(body: Json): Omit<Observed, 'accepted'> {
  const calls: Observed['calls'] = [];
  const results: string[] = [];
  for (const c of (body.contents ?? []) as Json[]) {
    for (const p of (c.parts ?? []) as Json[]) {
      if (p.functionCall) calls.push({ id: String(p.functionCall.id), name: String(p.functionCall.name) });
      if (p.functionResponse) results.push(String(p.functionResponse.id));
    }
  }
  const tools = new Set<string>();
  for (const t of (body.tools ?? []) as Json[]) for (const d of (t.functionDeclarations ?? []) as Json[]) tools.add(String(d.name));
  return { texts: strings(body.contents).join('\n'), calls, results, tools };
}

const geminiTarget: MatrixTarget = {
  id: 'gemini',
  label: 'Gemini CLI',
  compileFor: 'gemini',
  prepare(dir) {
    const place = preparePlace('gemini', dir, project(dir));
    return { dir, home: place.home, tmp: place.tmp, options: { home: agentHome('gemini', place), cwd: place.cwd } };
  },
  async resume(result, place) {
    const mock = await startMockGemini('OK');
    try {
      const run = await resumeWith('gemini', { home: place.home as string, tmp: place.tmp as string, cwd: result.cwd }, mock.url, result.session_id, PROBE);
      const request = mock.requests.find((r) => r.main);
      if (run.timedOut) return failed('the client timed out');
      const violations = mock.requests.flatMap((r) => r.violations);
      if (violations.length) return failed(`the API would reject it: ${violations[0]}`);
      if (run.code !== 0 || !request) return failed(`exit ${run.code}: ${tail(run.stderr || run.stdout)}`);
      if (!strings(request.body.contents.at(-1)).join('\n').includes(PROBE)) return failed('the request does not end with the probe');
      return { accepted: true, ...geminiObserved(request.body) };
    } finally {
      await mock.close();
    }
  },
};

const qwenTarget: MatrixTarget = {
  id: 'qwen',
  label: 'Qwen Code',
  compileFor: 'qwen',
  prepare(dir) {
    const place = preparePlace('qwen', dir, project(dir));
    return { dir, home: place.home, tmp: place.tmp, options: { home: agentHome('qwen', place), cwd: place.cwd } };
  },
  async resume(result, place) {
    const mock = await startMockModel();
    try {
      const run = await resumeWith('qwen', { home: place.home as string, tmp: place.tmp as string, cwd: result.cwd }, `http://127.0.0.1:${mock.port}`, result.session_id, PROBE);
      const request = mock.requests.find((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0);
      if (run.timedOut) return failed('the client timed out');
      const violations = mock.requests.flatMap((r) => r.violations);
      if (violations.length) return failed(`the API would reject it: ${violations[0]}`);
      if (run.code !== 0 || !request) return failed(`exit ${run.code}: ${tail(run.stderr || run.stdout)}`);
      if (!strings(request.body.messages.at(-1)).join('\n').includes(PROBE)) return failed('the request does not end with the probe');
      return { accepted: true, ...chatObserved(request.body) };
    } finally {
      await mock.close();
    }
  },
};

export const TARGETS: MatrixTarget[] = [claudeTarget, codexTarget, piTarget, hermesTarget, copilotTarget, opencodeTarget, geminiTarget, qwenTarget];
