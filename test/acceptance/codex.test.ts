// Acceptance with the real client: Codex corpus sessions (both file styles, a compacted one) and a
// Claude Code session (the relay) are captured, materialized into a throw-away CODEX_HOME, and
// resumed by the pinned `codex` (@openai/codex 0.171.0) against our own mock Responses API with
// `codex exec resume <id> PROBE`. The client must exit 0, resume that very thread, and send every
// item of the written history (after the last compaction's replacement) in its first model request,
// which ends with the probe; for Codex sessions, that request must equal the one the client sends
// for the ORIGINAL file. With a state_5.sqlite made by the client itself, the materialized session
// is registered and `codex exec resume --last` picks it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { codex } from '../../adapters/codex/index.js';
import { claude } from '../../adapters/claude/index.js';
import type { CodexLossEntry, CodexMaterializeResult } from '../../adapters/codex/materialize.js';
import type { SpEvent } from '../../lib/core/event.js';
import { canonicalize } from '../../lib/core/jcs.js';
import { captureAll } from '../contract/testAdapter.js';
import { runCodexExec, writeCodexConfig, type CodexRun } from '../support/codexClient.js';
import { startMockResponses, type MockResponses } from '../support/mockResponses.js';
import { S1, S1P, S2, S3 } from '../support/codexFixtures.js';

const CLAUDE_S2 = new URL('../../fixtures/claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl', import.meta.url).pathname;
const PROBE = 'SP-ACCEPTANCE-PROBE: reply OK';

type Json = Record<string, any>;

let work: string;
let mock: MockResponses;
let counter = 0;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sp-codex-acceptance-'));
  mock = await startMockResponses('OK');
});
afterAll(async () => {
  await mock?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A fresh CODEX_HOME (config pointing at the mock) and a project folder to run the client in. */
function freshHome(): { home: string; cwd: string; dir: string } {
  const dir = join(work, String(counter++));
  const home = join(dir, 'codex-home');
  const cwd = join(dir, 'repo');
  mkdirSync(cwd, { recursive: true });
  writeCodexConfig(home, mock.baseUrl);
  return { home, cwd, dir };
}

/** The first model request a run made (the mock keeps every request; runs are sequential). */
async function resumeAndGetInput(args: string[], at: { home: string; cwd: string; dir: string }): Promise<{ run: CodexRun; input: Json[] }> {
  const before = mock.inputs().length;
  const run = await runCodexExec(args, { home: at.home, work: at.dir, cwd: at.cwd });
  const inputs = mock.inputs();
  return { run, input: (inputs[before] ?? []) as Json[] };
}

function lines(path: string): Json[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Json);
}

const textOf = (item: Json): string => (Array.isArray(item.content) ? item.content.map((c: Json) => c.text ?? '').join('') : String(item.content ?? ''));

/** How an item is recognized in a request: tools by call id, messages by role and text. */
function key(item: Json): string {
  if (typeof item.call_id === 'string') return `${item.type}:${item.call_id}`;
  if (item.type === 'message') return `message:${item.role}:${textOf(item)}`;
  if (item.type === 'reasoning') return `reasoning:${JSON.stringify(item.summary)}:${item.encrypted_content ?? ''}`;
  return `${item.type}:${JSON.stringify(item)}`;
}

/** The model-visible history of a rollout: response_items, replaced by the last compacted line's history. */
function history(path: string): Json[] {
  let out: Json[] = [];
  for (const line of lines(path)) {
    if (line.type === 'compacted' && Array.isArray(line.payload?.replacement_history)) out = [...line.payload.replacement_history];
    if (line.type === 'response_item' && line.payload?.type !== 'ghost_snapshot') out.push(line.payload);
  }
  return out;
}

function expectResumed(run: CodexRun, id: string, input: Json[]): void {
  expect(run.timedOut, run.stderr.slice(-600)).toBe(false);
  expect(run.code, run.stderr.slice(-600)).toBe(0);
  expect(run.threadId).toBe(id);
  const last = input[input.length - 1];
  expect(last?.role).toBe('user');
  expect(textOf(last)).toBe(PROBE);
}

async function materialize(events: SpEvent[], options: { home: string; cwd?: string }): Promise<{ result: CodexMaterializeResult; losses: CodexLossEntry[] }> {
  const losses: CodexLossEntry[] = [];
  // As in `sp-capture | sp-materialize`: every event crosses a pipe as canonical JSON (sorted keys).
  async function* gen(): AsyncGenerator<SpEvent> {
    for (const event of events) yield JSON.parse(canonicalize(event)) as SpEvent;
  }
  const result = (await codex.materialize!(gen(), { ...options, onLoss: (l) => losses.push(l as CodexLossEntry) })) as CodexMaterializeResult;
  return { result, losses };
}

describe('codex acceptance: the real client resumes materialized sessions and sends their whole history', () => {
  for (const [name, fixture] of [['S1 legacy', S1], ['S1 paginated', S1P], ['S2 debug (CJK, image)', S2], ['S3 long (compaction)', S3]] as const) {
    it(`${name}: capture → materialize → codex exec resume <id> sends every item; same request as for the original file`, async () => {
      const { events } = await captureAll(codex, fixture);
      const at = freshHome();
      const { result } = await materialize(events, { home: at.home });
      expect(basename(result.path)).toMatch(/^rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.jsonl$/);
      expect(result.registered).toBeUndefined(); // no state db in this home

      // What the file carries, read before the client appends its new turn to it.
      const expected = history(result.path);
      expect(expected.length).toBeGreaterThan(10);
      const { run, input } = await resumeAndGetInput(['resume', result.session_id, PROBE], at);
      expectResumed(run, result.session_id, input);
      const sent = new Set(input.map(key));
      expect(expected.filter((item) => !sent.has(key(item))).map(key)).toEqual([]);

      // The original file, resumed the same way, makes the same request (items, order, ids).
      const original = freshHome();
      const rel = fixture.slice(fixture.indexOf('/sessions/') + 1);
      mkdirSync(join(original.home, rel, '..'), { recursive: true });
      copyFileSync(fixture, join(original.home, rel));
      const id = (lines(fixture)[0].payload as Json).id as string;
      const reference = await resumeAndGetInput(['resume', id, PROBE], original);
      expectResumed(reference.run, id, reference.input);
      // Items the client makes fresh for each run (its instructions and context messages) get new
      // ids and name the run's own folders; everything else must be the same, byte for byte.
      const fileIds = new Set(lines(fixture).map((l) => l.payload?.id).filter((v) => typeof v === 'string'));
      const comparable = (items: Json[], dir: string) =>
        items.slice(0, -1).map((item) => {
          const { id, ...rest } = item;
          const kept = typeof id === 'string' && fileIds.has(id) ? item : rest;
          return JSON.stringify(kept).split(dir).join('<run dir>');
        });
      expect(comparable(input, at.dir)).toEqual(comparable(reference.input, original.dir));
    });
  }

  it('relay: a Claude Code session (CJK, image, thinking, failing tools) resumes in Codex with every message and call', async () => {
    const { events } = await captureAll(claude, CLAUDE_S2);
    const at = freshHome();
    const { result, losses } = await materialize(events, { home: at.home, cwd: at.cwd });
    // Claude's signed thinking cannot be an OpenAI reasoning item: carried as text, and said so.
    expect(losses.some((l) => l.code === 'foreign-thinking' && l.action === 'transformed')).toBe(true);
    const written = lines(result.path);
    expect(written.some((l) => l.type === 'response_item' && l.payload.type === 'reasoning')).toBe(false);
    expect(written[0].payload).toMatchObject({ id: result.session_id, source: 'cli', originator: 'codex_cli_rs', model_provider: 'mock' });

    const expected = history(result.path);
    const { run, input } = await resumeAndGetInput(['resume', result.session_id, PROBE], at);
    expectResumed(run, result.session_id, input);
    const sent = new Set(input.map(key));
    expect(expected.filter((item) => !sent.has(key(item))).map(key)).toEqual([]);
    // Every tool call of the Claude session went out with its output; the prompt and its image too.
    const calls = events.filter((e) => e.type === 'tool.call' && e.derived_from === undefined).map((e) => (e.payload as Json).call_id);
    expect(calls.length).toBeGreaterThan(3);
    for (const id of calls) {
      expect(sent.has(`function_call:${id}`), id).toBe(true);
      expect(sent.has(`function_call_output:${id}`), id).toBe(true);
    }
    const prompt = input.find((i) => i.role === 'user' && textOf(i).includes('测试失败了'));
    expect(prompt?.content.some((c: Json) => c.type === 'input_image' && String(c.image_url).startsWith('data:image/png;base64,'))).toBe(true);
  });

  it('with a state_5.sqlite made by the client: the session is registered (db backed up) and `resume --last` picks it', async () => {
    const at = freshHome();
    // The client's first run creates its state db (and backfills it).
    const first = await runCodexExec(['hello'], { home: at.home, work: at.dir, cwd: at.cwd });
    expect(first.code, first.stderr.slice(-400)).toBe(0);
    expect(existsSync(join(at.home, 'state_5.sqlite'))).toBe(true);

    const { events } = await captureAll(codex, S1);
    const { result } = await materialize(events, { home: at.home, cwd: at.cwd });
    expect(result.registered?.db).toBe(join(at.home, 'state_5.sqlite'));
    expect(existsSync(result.registered!.backup!)).toBe(true);
    expect(readdirSync(at.home).filter((n) => n.includes('sp-backup'))).toHaveLength(1);

    const expected = history(result.path);
    const { run, input } = await resumeAndGetInput(['resume', '--last', PROBE], at);
    expectResumed(run, result.session_id, input);
    const sent = new Set(input.map(key));
    expect(expected.filter((item) => !sent.has(key(item))).map(key)).toEqual([]);
  });
});
