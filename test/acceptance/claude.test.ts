// Acceptance with the real client: every Claude corpus session is captured, materialized into a
// throw-away home, and resumed by the pinned `claude` (@anthropic-ai/claude-code) against our own
// mock Anthropic API. The client must exit 0, resume that very session, and send the whole
// (post-compaction) history in its first model request: every user/assistant text in order,
// every tool_use and tool_result id, thinking with its signature, images.
// The same first request is also compared with what the client sends for the ORIGINAL file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { claude } from '../../adapters/claude/index.js';
import { materializeClaude, type ClaudeLossEntry, type ClaudeMaterializeResult } from '../../adapters/claude/materialize.js';
import { projectSlug } from '../../lib/formats/claude-code/slug.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { SessionBuilder, from } from '../support/canonical.js';
import { runClaude, type ClientRun } from '../support/claudeClient.js';
import { startMockAnthropic, type AnthropicMessage } from '../support/mockAnthropic.js';

const CORPUS = new URL('../../fixtures/claude/corpus/', import.meta.url).pathname;
const SESSIONS = {
  'S1-feature': 'e05d2652-6a94-447f-8b60-cded66e4199a',
  'S2-debug': '9a1dc580-54f5-46ea-bece-7461fb46da3a',
  'S3-long': 'fedfe4e3-0d75-4e8a-ae44-125dd06bbf71',
} as const;
const PROBE = 'SP-ACCEPTANCE-PROBE: reply OK';

type Json = Record<string, any>;

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-claude-acceptance-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Resumed {
  run: ClientRun;
  /** The client's JSON result (stdout). */
  output: Json | undefined;
  /** The first agent-loop request: what the client sends as the resumed history. */
  messages: AnthropicMessage[];
}

/** Runs `claude -p PROBE --resume ID` in `cwd` with `home` as HOME against a fresh mock. */
async function resume(id: string, cwd: string, home: string): Promise<Resumed> {
  const mock = await startMockAnthropic();
  try {
    const run = await runClaude(['-p', PROBE, '--resume', id, '--dangerously-skip-permissions', '--output-format', 'json'], {
      cwd,
      home,
      port: mock.port,
      timeoutMs: 45_000,
    });
    let output: Json | undefined;
    try {
      output = JSON.parse(run.stdout) as Json;
    } catch {
      output = undefined;
    }
    return { run, output, messages: mock.firstMain()?.messages ?? [] };
  } finally {
    await mock.close();
  }
}

/** A fresh HOME and project dir; the config dir is <home>/.claude, as the client env sets it. */
function place(name: string, cwdName = 'project'): { home: string; cwd: string } {
  const base = join(work, `${name}-${randomUUID().slice(0, 8)}`);
  const cwd = join(base, cwdName);
  mkdirSync(cwd, { recursive: true });
  return { home: join(base, 'home'), cwd: realpathSync(cwd) };
}

async function materializeAndResume(events: SpEvent[], name: string, options: { branch?: 'all' | 'active' } = {}) {
  const { home, cwd } = place(name);
  const losses: ClaudeLossEntry[] = [];
  const result = await materializeClaude(from(events), { home: join(home, '.claude'), cwd, ...options, onLoss: (e) => losses.push(e as ClaudeLossEntry) });
  const resumed = await resume(result.session_id, cwd, home);
  return { result, losses, ...resumed };
}

function blocks(message: AnthropicMessage): Json[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as Json[]);
}

/** Text blocks the client adds itself: reminders (date, listings) and our probe. */
function injected(block: Json): boolean {
  return block.type === 'text' && (String(block.text).startsWith('<system-reminder>') || block.text === PROBE);
}

/** The conversation the client sent, without its own additions; comparable across files. */
function skeleton(messages: AnthropicMessage[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    if (m.role !== 'user' && m.role !== 'assistant') continue;
    for (const b of blocks(m)) {
      if (injected(b)) continue;
      if (b.type === 'text') out.push(`${m.role}:text:${b.text}`);
      else if (b.type === 'tool_use') out.push(`tool_use:${b.id}:${b.name}:${JSON.stringify(b.input)}`);
      else if (b.type === 'tool_result') out.push(`tool_result:${b.tool_use_id}:${JSON.stringify(b.content)}:${b.is_error === true}`);
      else if (b.type === 'thinking') out.push(`thinking:${b.thinking}:${b.signature}`);
      else if (b.type === 'image') out.push(`image:${b.source?.media_type}:${b.source?.data}`);
      else out.push(`${m.role}:${b.type}`);
    }
  }
  return out;
}

interface Expected {
  texts: string[];
  toolUses: string[];
  toolResults: string[];
  thinking: Array<{ text: string; signature: string }>;
  images: string[];
}

/**
 * What the client must send, from the canonical events alone (formats §4/§5): the history after
 * the last compact boundary, with the boundary's preserved segment right after the summary.
 */
function expectedHistory(events: SpEvent[]): Expected {
  const main = events.filter((e) => e.session === events[0].session && e.derived_from === undefined);
  let from = 0;
  let preserved: SpEvent[] = [];
  main.forEach((e, i) => {
    const raw = (e.payload as Json).raw;
    if (e.type !== 'meta' || raw?.type !== 'system' || raw?.subtype !== 'compact_boundary') return;
    from = i + 1;
    const uuids = new Set<string>(raw.compactMetadata?.preservedMessages?.uuids ?? []);
    preserved = main.slice(0, i).filter((p) => uuids.has(String(p.origin?.native_uuid)));
  });
  const post = main.slice(from);
  const summary = post.findIndex((e) => e.type === 'message.user' && (e.payload as Json).compact_summary === true);
  const ordered = summary >= 0 ? [...post.slice(0, summary + 1), ...preserved, ...post.slice(summary + 1)] : [...preserved, ...post];
  const out: Expected = { texts: [], toolUses: [], toolResults: [], thinking: [], images: [] };
  for (const e of ordered) {
    const p = e.payload as Json;
    if (e.type === 'message.user' || e.type === 'message.assistant') {
      for (const b of p.content as Json[]) {
        if (b.type === 'text' && String(b.text).trim() !== '') out.texts.push(b.text);
        if (b.type === 'image') out.images.push(b.data);
      }
    } else if (e.type === 'tool.call') out.toolUses.push(p.call_id);
    else if (e.type === 'tool.result') out.toolResults.push(p.call_id);
    else if (e.type === 'message.thinking' && p.signature) out.thinking.push({ text: p.text, signature: p.signature });
  }
  return out;
}

/** Every expected item is in the request; texts in order; each tool_use answered in the next message. */
function expectHistorySent(messages: AnthropicMessage[], expected: Expected): void {
  expect(messages.length, 'the client made a model request').toBeGreaterThan(0);
  const all: Json[] = messages.flatMap((m) => blocks(m).map((b): Json => ({ role: m.role, ...b })));
  const texts = all.filter((b) => b.type === 'text' && !injected(b)).map((b) => String(b.text));
  let at = 0;
  const missing: string[] = [];
  for (const text of expected.texts) {
    const found = texts.findIndex((t, i) => i >= at && t.includes(text));
    if (found < 0) missing.push(text.slice(0, 100));
    else at = found + 1;
  }
  expect(missing, 'texts missing or out of order').toEqual([]);
  const uses = all.filter((b) => b.type === 'tool_use').map((b) => b.id);
  const results = all.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
  expect(uses).toEqual(expect.arrayContaining(expected.toolUses));
  expect(results).toEqual(expect.arrayContaining(expected.toolResults));
  const thinking = all.filter((b) => b.type === 'thinking').map((b) => ({ text: b.thinking, signature: b.signature }));
  expect(thinking).toEqual(expect.arrayContaining(expected.thinking));
  const images = all.filter((b) => b.type === 'image').map((b) => (b.source as Json | undefined)?.data);
  expect(images).toEqual(expect.arrayContaining(expected.images));
  // The API needs every tool_use answered in the very next (user) message.
  messages.forEach((m, i) => {
    for (const use of blocks(m).filter((b) => b.type === 'tool_use')) {
      const next = messages[i + 1];
      expect(next && blocks(next).some((b) => b.type === 'tool_result' && b.tool_use_id === use.id), `result of ${use.id} follows it`).toBe(true);
    }
  });
}

function expectResumed(r: Resumed, sessionId: string): void {
  expect(r.run.timedOut, 'client hung').toBe(false);
  expect(r.run.code, r.run.stderr || r.run.stdout).toBe(0);
  expect(r.output?.is_error).toBe(false);
  expect(r.output?.session_id, 'resumed this session, not a new one').toBe(sessionId);
}

describe('the real Claude Code client resumes materialized corpus sessions', () => {
  for (const [scenario, nativeId] of Object.entries(SESSIONS)) {
    it(`${scenario}: capture → materialize → claude --resume sends the whole history, as for the original`, async () => {
      const transcript = join(CORPUS, scenario, '.claude', 'projects', '-home-alice-acme-api', `${nativeId}.jsonl`);
      const { events } = await captureAll(claude, transcript);

      const ours = await materializeAndResume(events, scenario);
      expectResumed(ours, ours.result.session_id);
      const expected = expectedHistory(events);
      expect(expected.texts.length).toBeGreaterThan(2);
      expectHistorySent(ours.messages, expected);
      expect(ours.result.branches, 'a linear session stays linear').toBeUndefined();
      expect(ours.losses.filter((l) => l.action !== 'dropped' || !['queue-operation', 'file-history-snapshot', 'last-prompt', 'mode', 'child-session'].includes(l.code)))
        .toEqual(scenario === 'S3-long' ? [expect.objectContaining({ code: 'compaction' })] : []);

      // The original file, resumed the same way, is the reference for what the client sends.
      const original = place(`${scenario}-original`);
      const projectDir = join(original.home, '.claude', 'projects', projectSlug(original.cwd));
      mkdirSync(projectDir, { recursive: true });
      copyFileSync(transcript, join(projectDir, basename(transcript)));
      const reference = await resume(nativeId, original.cwd, original.home);
      expectResumed(reference, nativeId);
      expect(skeleton(ours.messages)).toEqual(skeleton(reference.messages));
    });
  }

  it('S3-long --same-id from a --raw capture: the very file, which the client resumes under its own id', async () => {
    const transcript = join(CORPUS, 'S3-long', '.claude', 'projects', '-home-alice-acme-api', `${SESSIONS['S3-long']}.jsonl`);
    const { events } = await captureAll(claude, transcript, { raw: true });
    const { home, cwd } = place('S3-same-id');
    const result: ClaudeMaterializeResult = await materializeClaude(from(events), { home: join(home, '.claude'), cwd, sameId: true });
    expect(result.written_as).toBe('raw');
    const r = await resume(SESSIONS['S3-long'], cwd, home);
    expectResumed(r, SESSIONS['S3-long']);
    expectHistorySent(r.messages, expectedHistory(events));
  });
});

describe('the real client and the resume-safety pass', () => {
  it('resumes a foreign-looking session: odd ids, no model, foreign reasoning, an unanswered call and an orphan result', async () => {
    const b = new SessionBuilder('opencode', 'sess_foreign', { model: undefined, cwd: '/nowhere' });
    b.user('Please list the files.');
    b.thinking('The user wants a listing; run ls.', { provider: 'openai', message_id: 'r1' });
    b.assistant('Listing them now.', 'r1');
    b.call('fc:1/x y', 'bash', { command: 'ls' }, 'r1');
    b.call('call.2', 'bash', { command: 'pwd' }, 'r1');
    b.result('fc:1/x y', 'README.md');
    b.result('call_nobody', 'stray output');
    b.assistant('There is a README.', 'r2');
    b.user('Thanks.');
    const ours = await materializeAndResume(b.events, 'foreign');
    expectResumed(ours, ours.result.session_id);
    expect(ours.losses.map((l) => `${l.action}:${l.code}`).sort()).toEqual(
      ['dropped:orphan-result', 'stubbed:model', 'stubbed:model', 'stubbed:stub-result', 'transformed:foreign-thinking', 'transformed:tool-id', 'transformed:tool-id'].sort(),
    );
    expectHistorySent(ours.messages, {
      texts: ['Please list the files.', 'The user wants a listing; run ls.', 'Listing them now.', 'There is a README.', 'Thanks.'],
      toolUses: ['fc_1_x_y', 'call_2'],
      toolResults: ['fc_1_x_y', 'call_2'],
      thinking: [],
      images: [],
    });
    const sent = JSON.stringify(ours.messages);
    expect(sent).not.toContain('stray output');
    expect(sent).toContain('interrupted: no result was recorded');
    expect(ours.messages.flatMap(blocks).some((x) => x.type === 'thinking')).toBe(false);
  });

  it('resumes a branched session along its active branch only', async () => {
    const b = new SessionBuilder('pi', 'sess_branch', { model: 'claude-sonnet-4-5' });
    b.user('u1: start');
    const a1 = b.assistant('a1: first answer', 'm1');
    b.user('u2: abandoned question');
    b.assistant('a2: abandoned answer', 'm2');
    b.add('message.user', { content: [{ type: 'text', text: 'u3: asked again' }] }, { parent_seq: a1.seq });
    b.assistant('a3: final answer', 'm3');
    const ours = await materializeAndResume(b.events, 'branch');
    expectResumed(ours, ours.result.session_id);
    expect(ours.result.branches).toBe(1);
    expect(skeleton(ours.messages)).toEqual([
      'user:text:u1: start', 'assistant:text:a1: first answer', 'user:text:u3: asked again', 'assistant:text:a3: final answer',
    ]);
  });
});

describe('project folder of a long cwd', () => {
  it('is the folder the client itself uses (200-char cut + hash), so --resume finds the session', async () => {
    const base = place('long');
    // Over 200 characters after slugging, with characters that become dashes.
    let cwd = base.cwd;
    for (const part of ['a_very.long-directory name', 'x'.repeat(60), 'é-ü', 'y'.repeat(60), 'z'.repeat(40)]) cwd = join(cwd, part);
    mkdirSync(cwd, { recursive: true });
    cwd = realpathSync(cwd);
    expect(cwd.replace(/[^A-Za-z0-9]/g, '-').length).toBeGreaterThan(200);

    // A brand-new session started by the client: its folder name is the client's own slug.
    const mock = await startMockAnthropic();
    const fresh = randomUUID();
    try {
      const run = await runClaude(['-p', 'hello', '--session-id', fresh, '--dangerously-skip-permissions'], { cwd, home: base.home, port: mock.port });
      expect(run.code, run.stderr).toBe(0);
    } finally {
      await mock.close();
    }
    const folders = readdirSync(join(base.home, '.claude', 'projects'));
    expect(folders).toEqual([projectSlug(cwd)]);
    expect(readdirSync(join(base.home, '.claude', 'projects', folders[0]))).toContain(`${fresh}.jsonl`);

    // And a materialized session in that cwd resumes.
    const b = new SessionBuilder('claude', 'sess_long', { cwd });
    b.user('long path prompt');
    b.assistant('long path answer', 'm1');
    const result = await materializeClaude(from(b.events), { home: join(base.home, '.claude') });
    expect(result.path).toBe(join(base.home, '.claude', 'projects', projectSlug(cwd), `${result.session_id}.jsonl`));
    const r = await resume(result.session_id, cwd, base.home);
    expectResumed(r, result.session_id);
    expect(skeleton(r.messages)).toEqual(['user:text:long path prompt', 'assistant:text:long path answer']);
  });
});
