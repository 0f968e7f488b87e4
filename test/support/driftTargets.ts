// Recorders for the drift watch (test/drift/check.drift.ts) beyond the relay matrix's eight targets:
// Cline, Droid, Continue, Auggie and Kilo, in the matrix's MatrixTarget shape (a fresh home, a resume of a
// written session by the real client against a mock, what the mock received), each built on its
// acceptance runner (test/support/<agent>Client.ts, which takes its binary from SP_CLIENT_BIN_<AGENT>
// when set), with a session the client recorded as its source. The relay matrix itself keeps its
// eight targets (CI time); the drift watch records with, and relays into, all of them.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { auggie } from '../../adapters/auggie/index.js';
import { cline } from '../../adapters/cline/index.js';
import { continueCli } from '../../adapters/continue/index.js';
import { droid } from '../../adapters/droid/index.js';
import { kilo } from '../../adapters/kilo/index.js';
import { TOOLS as AUGGIE_SESSION } from '../auggie/support.js';
import { SUMMARY as CLINE_SESSION } from '../cline/support.js';
import { SUMMARY as CONTINUE_SESSION } from '../continue/support.js';
import { SESSION as DROID_SESSION } from '../droid/support.js';
import { DB as KILO_DB, SESSION as KILO_SESSION } from '../kilo/support.js';
import { startMockModel } from '../pi/mockModel.js';
import { runAuggie } from './auggieClient.js';
import { clineHome, resumeOverAcp } from './clineClient.js';
import { continueHome, runContinue } from './continueClient.js';
import { configureDroid, runDroid } from './droidClient.js';
import { kiloTarget } from './kiloClient.js';
import { SOURCES, capturedFile, type MatrixSource } from './matrix.js';
import { PROBE, TARGETS, anthropicObserved, chatObserved, failed, project, strings, tail, type MatrixTarget, type Observed } from './matrixTargets.js';
import { historyViolations, startMockAugment } from './mockAugment.js';

type Json = Record<string, any>;

const carriesProbe = (body: Json, key: string): boolean => strings(body[key]).some((s) => s.includes(PROBE));

/** Augment's chat request: tool uses in the history's responses, results in the requests after them (and the new one). */
export function augmentObserved(body: Json): Omit<Observed, 'accepted'> {
  const history = (Array.isArray(body.chat_history) ? body.chat_history : []) as Json[];
  const calls: Observed['calls'] = [];
  const results: string[] = [];
  for (const nodes of [...history.map((e) => e.request_nodes), body.nodes]) {
    for (const n of (Array.isArray(nodes) ? nodes : []) as Json[]) if (n.type === 1) results.push(String(n.tool_result_node?.tool_use_id));
  }
  for (const e of history) {
    for (const n of (Array.isArray(e.response_nodes) ? e.response_nodes : []) as Json[]) if (n.type === 5) calls.push({ id: String(n.tool_use?.tool_use_id), name: String(n.tool_use?.tool_name) });
  }
  const tools = new Set(((body.tool_definitions ?? []) as Json[]).map((t) => String(t.name)));
  return { texts: strings([body.chat_history, body.nodes]).join('\n'), calls, results, tools };
}

const clineTarget: MatrixTarget = {
  id: 'cline',
  label: 'Cline CLI',
  compileFor: 'cline',
  prepare(dir) {
    const home = join(dir, 'home');
    mkdirSync(join(home, '.cline'), { recursive: true });
    return { dir, home, options: { home: join(home, '.cline'), cwd: project(dir) } };
  },
  async resume(result, place) {
    const mock = await startMockModel();
    try {
      clineHome(place.home as string, mock.anthropicUrl);
      const run = await resumeOverAcp(result.session_id, PROBE, { home: place.home as string, cwd: result.cwd, timeoutMs: 150_000 });
      if (run.timedOut) return failed('the client timed out');
      const load = run.answers['session/load'];
      const prompt = run.answers['session/prompt'];
      if (!load || load.error) return failed(`session/load: ${load?.error?.message ?? 'no answer'}: ${tail(run.stderr)}`);
      if (!prompt || prompt.error) return failed(`session/prompt: ${prompt?.error?.message ?? 'no answer'}: ${tail(run.stderr)}`);
      const violations = mock.requests.flatMap((r) => r.violations);
      if (violations.length) return failed(`the API would reject it: ${violations[0]}`);
      const request = mock.requests.find((r) => r.api === 'anthropic' && Array.isArray(r.body.tools) && carriesProbe(r.body, 'messages'));
      if (!request) return failed('no agent-loop request carrying the probe reached the mock');
      return { accepted: true, ...anthropicObserved(request.body) };
    } finally {
      await mock.close();
    }
  },
};

const droidTarget: MatrixTarget = {
  id: 'droid',
  label: 'Factory Droid',
  compileFor: 'droid',
  prepare(dir) {
    const home = join(dir, 'home');
    return { dir, home, options: { home: join(home, '.factory'), cwd: project(dir) } };
  },
  async resume(result, place) {
    const mock = await startMockModel();
    try {
      configureDroid(place.home as string, mock.anthropicUrl);
      const run = await runDroid(result.session_id, PROBE, { home: place.home as string, cwd: result.cwd, apiUrl: mock.anthropicUrl, timeoutMs: 150_000 });
      if (run.timedOut) return failed('the client timed out');
      const request = mock.requests.find((r) => r.api === 'anthropic' && carriesProbe(r.body, 'messages'));
      if (run.code !== 0 || !request) return failed(`exit ${run.code}: ${tail(run.stderr || run.stdout)}`);
      const violations = mock.requests.flatMap((r) => r.violations);
      if (violations.length) return failed(`the API would reject it: ${violations[0]}`);
      return { accepted: true, ...anthropicObserved(request.body) };
    } finally {
      await mock.close();
    }
  },
};

const continueTarget: MatrixTarget = {
  id: 'continue',
  label: 'Continue CLI',
  compileFor: 'continue',
  prepare(dir) {
    const home = join(dir, 'home');
    return { dir, home, options: { home: join(home, '.continue'), cwd: project(dir) } };
  },
  async resume(result, place) {
    const mock = await startMockModel();
    try {
      continueHome(place.home as string, mock.openaiUrl);
      // `cn --fork <id>`, the resume command the writer prints: a new session holding ours, then the probe.
      const run = await runContinue(['-p', '--auto', '--fork', result.session_id, PROBE], { home: place.home as string, cwd: result.cwd, timeoutMs: 180_000 });
      if (run.timedOut) return failed('the client timed out');
      const request = mock.requests.find((r) => r.api === 'openai' && carriesProbe(r.body, 'messages'));
      if (run.code !== 0 || !request) return failed(`exit ${run.code}: ${tail(run.stderr || run.stdout)}`);
      const violations = mock.requests.flatMap((r) => r.violations);
      if (violations.length) return failed(`the API would reject it: ${violations[0]}`);
      return { accepted: true, ...chatObserved(request.body) };
    } finally {
      await mock.close();
    }
  },
};

const auggieTarget: MatrixTarget = {
  id: 'auggie',
  label: 'Auggie',
  compileFor: 'auggie',
  prepare(dir) {
    const home = join(dir, 'home');
    return { dir, home, options: { home: join(home, '.augment'), cwd: project(dir) } };
  },
  async resume(result, place) {
    const mock = await startMockAugment();
    try {
      const home = place.home as string;
      const run = await runAuggie(PROBE, { home, cacheDir: place.options.home as string, cwd: result.cwd, tenantUrl: mock.url, resume: result.session_id, timeoutMs: 150_000 });
      if (run.timedOut) return failed('the client timed out');
      const request = mock.chats().find((body) => carriesProbe(body, 'nodes'));
      if (run.code !== 0 || !request) return failed(`exit ${run.code}: ${tail(run.stderr || run.stdout)}`);
      const violations = historyViolations(request);
      if (violations.length) return failed(`the API would reject it: ${violations[0]}`);
      if (request.conversation_id !== result.session_id) return failed(`continued conversation ${request.conversation_id}, not ${result.session_id}`);
      return { accepted: true, ...augmentObserved(request) };
    } finally {
      await mock.close();
    }
  },
};

/** The recorders beyond the matrix's targets. */
export const DRIFT_TARGETS: MatrixTarget[] = [
  clineTarget,
  droidTarget,
  continueTarget,
  auggieTarget,
  kiloTarget,
];

/** A session each of those clients recorded (their fixtures), to record a fresh turn onto. */
export const DRIFT_SOURCES: MatrixSource[] = [
  { agent: 'cline', name: 'recorded', capture: capturedFile(cline, CLINE_SESSION) },
  { agent: 'droid', name: 'recorded', capture: capturedFile(droid, DROID_SESSION) },
  { agent: 'continue', name: 'recorded', capture: capturedFile(continueCli, CONTINUE_SESSION) },
  { agent: 'auggie', name: 'recorded', capture: capturedFile(auggie, AUGGIE_SESSION) },
  { agent: 'kilo', name: 'recorded', capture: capturedFile(kilo, `${KILO_DB}#${KILO_SESSION}`) },
];

/** Every writer the drift watch relays a fresh recording into: the matrix's targets, then these. */
export const WRITE_TARGETS: MatrixTarget[] = [...TARGETS, ...DRIFT_TARGETS];

/** How the drift watch records with an agent's client: its target and a source session, or undefined (no recorder). */
export function recorderOf(agent: string): { target: MatrixTarget; source: MatrixSource } | undefined {
  const target = WRITE_TARGETS.find((t) => t.id === agent);
  const source = [...SOURCES, ...DRIFT_SOURCES].find((s) => s.agent === agent);
  return target && source ? { target, source } : undefined;
}
