// The relay acceptance matrix: every corpus session of every source agent, relayed to every target
// agent in both modes (history; context = through sp-compile), written into a fresh home, then
// resumed by the target's REAL client against our own mock model APIs (or, for Hermes, read back
// and held to its validity rules). A cell passes when the client accepts the session, the model
// request holds every user text the ledger says was carried, no tool call or result is orphaned,
// and (history mode) at least one tool call with its result is in the target's own vocabulary
// (a name from the tool list the target offers the model).
//
// Targets are data (matrixTargets.ts: how to prepare a home, resume, and read what the model got):
// a new agent is one more entry there.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { claude } from '../../adapters/claude/index.js';
import { codex } from '../../adapters/codex/index.js';
import { hermes } from '../../adapters/hermes/index.js';
import { pi } from '../../adapters/pi/index.js';
import { getAdapter } from '../../adapters/index.js';
import type { Adapter } from '../../lib/adapter/interface.js';
import { Chainer } from '../../lib/core/chain.js';
import type { SpEvent } from '../../lib/core/event.js';
import { canonicalize } from '../../lib/core/jcs.js';
import { inputsFrom } from '../../lib/core/ndjson.js';
import type { LedgerTotals } from '../../lib/relay/ledger.js';
import { relay, type RelayOutcome } from '../../lib/relay/relay.js';
import { splitBranches } from '../../lib/write/branches.js';
import { isCompaction } from '../../lib/relay/context.js';
import type { TargetName } from '../../lib/compile/targets.js';
import { captureAll } from '../contract/testAdapter.js';
import * as CODEX from './codexFixtures.js';
import { TARGETS, type MatrixTarget, type Observed } from './matrixTargets.js';

const F = new URL('../../fixtures/', import.meta.url).pathname;

export interface MatrixSource {
  agent: string;
  /** `S1`, `S1-paginated` … */
  name: string;
  capture(): Promise<SpEvent[]>;
}

/** A source that is one session file (or `db#id`) of an agent, captured by sp. */
export const capturedFile = (adapter: Adapter, path: string) => async () => (await captureAll(adapter, path)).events;
/** A file that holds several sessions (an Aider history): its first one, as `sp-capture --session` gives it. */
const firstSession = (capture: () => Promise<SpEvent[]>) => async () => {
  const events = await capture();
  return events.filter((e) => e.session === events[0].session);
};
const HERMES_DB = `${F}hermes/corpus/state.db`;

export const SOURCES: MatrixSource[] = [
  { agent: 'claude', name: 'S1', capture: capturedFile(claude, `${F}claude/corpus/S1-feature/.claude/projects/-home-alice-acme-api/e05d2652-6a94-447f-8b60-cded66e4199a.jsonl`) },
  { agent: 'claude', name: 'S2', capture: capturedFile(claude, `${F}claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl`) },
  { agent: 'claude', name: 'S3', capture: capturedFile(claude, `${F}claude/corpus/S3-long/.claude/projects/-home-alice-acme-api/fedfe4e3-0d75-4e8a-ae44-125dd06bbf71.jsonl`) },
  { agent: 'codex', name: 'S1', capture: capturedFile(codex, CODEX.S1) },
  { agent: 'codex', name: 'S1-paginated', capture: capturedFile(codex, CODEX.S1P) },
  { agent: 'codex', name: 'S2', capture: capturedFile(codex, CODEX.S2) },
  { agent: 'codex', name: 'S3', capture: capturedFile(codex, CODEX.S3) },
  { agent: 'pi', name: 'S1', capture: capturedFile(pi, `${F}pi/corpus/S1-feature/agent/sessions/--home-carol-acme-api--/2026-11-30T05-01-52-356Z_01a22ad4-b363-77ef-ab50-931c39c72539.jsonl`) },
  { agent: 'pi', name: 'S2', capture: capturedFile(pi, `${F}pi/corpus/S2-debug/agent/sessions/--home-carol-acme-api--/2026-11-30T05-02-18-208Z_01a22ad5-1860-75b1-a6ae-a6566d610280.jsonl`) },
  { agent: 'pi', name: 'S3', capture: capturedFile(pi, `${F}pi/corpus/S3-long/agent/sessions/--home-carol-acme-api--/2026-11-30T05-03-28-829Z_01a22ad6-2c3b-714c-9526-cda55a420afd.jsonl`) },
  ...[
    ['S1', '20261130_051619_bb4de5'],
    ['S2', '20261130_051637_0bbbb5'],
    ['S3-in-place', '20261130_051641_564346'],
    ['S3-parent', '20261130_051656_853b11'],
    ['S3-child', '20261130_051711_560b72'],
  ].map(([name, id]) => ({ agent: 'hermes', name, capture: capturedFile(hermes, `${HERMES_DB}#${id}`) })),
  // The agents added after the first four, as sources: their corpus sessions recorded by the real clients.
  ...[
    ['S1', 'session-2026-11-30T05-46-3222ee9e.jsonl'],
    ['S2', 'session-2026-11-30T05-46-3b7eba0a.jsonl'],
    ['S3-interactive', 'session-2026-11-30T05-46-c5c0d891.jsonl'],
  ].map(([name, f]) => ({ agent: 'gemini', name, capture: capturedFile(getAdapter('gemini'), `${F}gemini/corpus/.gemini/tmp/acme-api/chats/${f}`) })),
  ...[
    ['S1', '5b9fc1a9-155a-439a-92db-56b55ac98811.jsonl'],
    ['S2', '1979a61b-1f78-43eb-bdec-2a31005e9698.jsonl'],
  ].map(([name, f]) => ({ agent: 'qwen', name, capture: capturedFile(getAdapter('qwen'), `${F}qwen/corpus/.qwen/projects/-home-frank-acme-api/chats/${f}`) })),
  ...[
    ['S1', 'ses_dd50d7ac9ffeopDbUmApW0BTAX'],
    ['S2', 'ses_dd50cf703ffetO3iMhNtrSb7wl'],
    ['S3-attachment', 'ses_dd4fd1302ffeOUIzjT5Q4WL6Yw'],
  ].map(([name, id]) => ({ agent: 'opencode', name, capture: capturedFile(getAdapter('opencode'), `${F}opencode/corpus/.local/share/opencode/opencode.db#${id}`) })),
  ...[
    ['S1-openai', '67f33fd5-d20a-4bad-a942-cd54b8907c3f'],
    ['S1-anthropic', '37ff58dd-12dc-4017-8e24-403f3eda6806'],
  ].map(([name, id]) => ({ agent: 'copilot', name, capture: capturedFile(getAdapter('copilot'), `${F}copilot/corpus/.copilot/session-state/${id}/events.jsonl`) })),
  // Agents no client of which records here: a session assembled from Qoder's documented records, a
  // public Cursor agent transcript, and a public Aider history (its first session).
  { agent: 'qoder', name: 'assembled', capture: capturedFile(getAdapter('qoder'), `${F}qoder/assembled/.qoder/projects/-home-ivan-probe/7c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5.jsonl`) },
  { agent: 'cursor', name: 'transcript', capture: capturedFile(getAdapter('cursor'), `${F}cursor/agent-sessions/large.jsonl`) },
  { agent: 'aider', name: 'history', capture: firstSession(capturedFile(getAdapter('aider'), `${F}aider/agentsview/myrepo/.aider.chat.history.md`)) },
];

export type Mode = 'history' | 'context';
export const MODES: Mode[] = ['history', 'context'];

/** The compiled handoff's budget in context mode: small enough that the oldest turns of the longer sessions are summarized. */
export const CONTEXT_BUDGET = 6_000;

export interface CellResult {
  source: string;
  session: string;
  target: string;
  mode: Mode;
  pass: boolean;
  /** Why it failed (the first failing check), or notes. */
  reason: string;
  totals?: LedgerTotals;
  ms: number;
}

/** The text blocks of a user message (each is looked for on its own: clients put images between them). */
function userTexts(event: SpEvent): string[] {
  const content = (event.payload as { content?: unknown }).content;
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.filter((b) => b && typeof b === 'object' && (b as { type?: string }).type === 'text').map((b) => String((b as { text?: unknown }).text ?? ''));
}

export const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Source event → its compiled stream (the input events then the context.compiled event), as sp-compile writes it. */
async function compileFor(events: SpEvent[], target: TargetName, dir: string): Promise<SpEvent[]> {
  const input = join(dir, 'source.ndjson');
  // Chained, as sp-capture prints them (sp-compile then copies them as they are).
  const chainer = new Chainer();
  writeFileSync(input, events.map((e) => canonicalize(chainer.chain(e))).join('\n') + '\n');
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  const { compile } = await import('../../lib/compile/compile.js');
  await compile({ inputs: inputsFrom([input]), target, budget: CONTEXT_BUDGET, out });
  return Buffer.concat(chunks).toString('utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as SpEvent);
}

async function* from(events: SpEvent[]): AsyncGenerator<SpEvent> {
  for (const event of events) yield JSON.parse(canonicalize(event)) as SpEvent;
}

/**
 * The user texts the resumed client must send: the carried message.user events (and the handoff) of
 * the session, on its active branch, from the last compaction on — a client sends what a compaction
 * kept (Pi: from its first kept entry; else from the compaction) and never an abandoned branch.
 */
export function carriedUserTexts(outcome: RelayOutcome, input: SpEvent[]): string[] {
  const carried = new Set<string>();
  for (const row of outcome.ledger.rows()) if (row.action === 'carried') carried.add(`${row.session}\0${row.seq}`);
  const own = input.filter((e) => e.session === outcome.session && e.type !== 'context.compiled');
  const active = new Set(splitBranches(own).active.events.map((e) => e.seq));
  let from = -Infinity;
  for (const e of own) {
    if (!active.has(e.seq) || !isCompaction(e)) continue;
    const kept = (e.payload as { first_kept_seq?: unknown }).first_kept_seq;
    from = typeof kept === 'number' ? kept : e.seq;
  }
  const texts: string[] = [];
  for (const event of own) {
    if (event.type !== 'message.user' || event.seq < from || !active.has(event.seq) || !carried.has(`${event.session}\0${event.seq}`)) continue;
    for (const text of userTexts(event).map(squash)) if (text) texts.push(text);
  }
  const compiled = input.find((e) => e.type === 'context.compiled');
  if (compiled) texts.push(squash(String((compiled.payload as { text?: unknown }).text ?? '')));
  return texts;
}

/** What the cell checks on what the model (or the Hermes database) got. */
export function judge(observed: Observed, expectedTexts: string[], mode: Mode, sourceHasCalls = true): string | undefined {
  if (!observed.accepted) return `not accepted: ${observed.why ?? 'no model request'}`;
  const seen = squash(observed.texts);
  // A prefix: clients may append to a user message (Claude's image notes), never rewrite its start.
  const missing = expectedTexts.filter((t) => !seen.includes(t.slice(0, 80)));
  if (missing.length) return `${missing.length} carried user text(s) missing, e.g. "${missing[0].slice(0, 50)}"`;
  const callIds = new Set(observed.calls.map((c) => c.id));
  const resultIds = new Set(observed.results);
  const orphanCalls = observed.calls.filter((c) => !resultIds.has(c.id));
  const orphanResults = observed.results.filter((id) => !callIds.has(id));
  if (orphanCalls.length) return `orphan call ${orphanCalls[0].name} ${orphanCalls[0].id}`;
  if (orphanResults.length) return `orphan result ${orphanResults[0]}`;
  // A source session without tool calls (OpenCode's attachment-only session) has none to translate.
  if (mode === 'history' && sourceHasCalls) {
    const native = observed.calls.filter((c) => observed.tools.has(c.name) && resultIds.has(c.id));
    if (native.length === 0) {
      const names = [...new Set(observed.calls.map((c) => c.name))].slice(0, 4).join(', ') || 'none';
      return `no tool call in the target's vocabulary (calls: ${names}; offered: ${[...observed.tools].slice(0, 6).join(', ')}…)`;
    }
  }
  return undefined;
}

const captured = new Map<MatrixSource, Promise<SpEvent[]>>();

/** One cell: relay one source session to one target in one mode, resume, judge. */
export async function runCell(source: MatrixSource, target: MatrixTarget, mode: Mode, work: string): Promise<CellResult> {
  const started = Date.now();
  const base: Omit<CellResult, 'pass' | 'reason' | 'ms'> = { source: source.agent, session: source.name, target: target.id, mode };
  const dir = join(work, `${source.agent}-${source.name}-${target.id}-${mode}`);
  mkdirSync(dir, { recursive: true });
  try {
    if (!captured.has(source)) captured.set(source, source.capture());
    const events = await captured.get(source)!;
    const input = mode === 'context' ? await compileFor(events, target.compileFor, dir) : events;
    const place = target.prepare(dir);
    const outcome = await relay(getAdapter(target.id), from(input), { ...place.options, thinking: 'keep-text', branches: 'active' });
    const observed = await target.resume(outcome.results[0], place);
    const reason = judge(observed, carriedUserTexts(outcome, input), mode, input.some((e) => e.type === 'tool.call'));
    return { ...base, pass: reason === undefined, reason: reason ?? '', totals: outcome.ledger.totals(), ms: Date.now() - started };
  } catch (err) {
    return { ...base, pass: false, reason: `error: ${String((err as Error).message ?? err).split('\n')[0].slice(0, 160)}`, ms: Date.now() - started };
  }
}

/** Runs `jobs` with at most `limit` at a time. */
export async function limited<T>(jobs: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const at = next++;
      results[at] = await jobs[at]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

export { TARGETS };
