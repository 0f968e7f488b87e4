// sp-mcp's expand_context: the events behind an item of a handoff, from a stored session (by id or
// prefix) or from sp-compile output under a read root, redacted, within the per-call limits. The
// attacks: a path outside the roots, a non-event file under a root (never quoted), an unknown item
// or session, and an item over --max-events — each a tool error, after which the server still answers.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE } from './support/fakeSecrets.js';
import { toolCalls } from './support/mcpClient.js';
import { root, runBin } from './support/streams.js';
import { parseLines } from './support/compile.js';

type Json = Record<string, any>;
const work = mkdtempSync(join(tmpdir(), 'sp-mcp-expand-'));
const spHome = join(work, 'sp-home');
const allowed = join(work, 'allowed');
const outside = join(work, 'outside');
const S2 = join(root, 'fixtures/claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl');
const CANARY = 'canary-not-json 41c9';

async function connect(flags: string[]): Promise<Client> {
  const client = new Client({ name: 'sp-expand-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'dist/bin/sp-mcp.js'), '--quiet', '--root', allowed, ...flags],
      cwd: work,
      env: { PATH: process.env.PATH ?? '', HOME: join(work, 'home'), SP_HOME: spHome, CLAUDE_CONFIG_DIR: join(work, 'no-claude'), CODEX_HOME: join(work, 'no-codex') },
      stderr: 'pipe',
    }),
  );
  return client;
}

let main: Client;
let tight: Client;
let compiled: Json;
let stream: Json[];
let secretSeq: number;
const { ok, fails } = toolCalls(() => main);

beforeAll(async () => {
  for (const d of [allowed, outside, join(work, 'home')]) mkdirSync(d, { recursive: true });
  // S2 with a token pasted into its first prompt, compiled and stored without redaction: what
  // expand_context returns must still come out redacted.
  const captured = parseLines(runBin('sp-capture', ['claude', '--path', S2]).stdout);
  const first = captured.find((e) => e.type === 'message.user' && e.actor === 'user')!;
  secretSeq = first.seq;
  (first.payload as Json).content.push({ type: 'text', text: `use token ${FAKE.githubPat}` });
  const input = captured.map((e) => JSON.stringify({ ...e, checksum: undefined })).join('\n') + '\n';
  const r = runBin('sp-compile', ['--for', 'codex', '--no-workspace', '--no-redact'], { input, env: { SP_HOME: spHome } });
  expect(r.code, r.stderr).toBe(0);
  stream = parseLines(r.stdout) as Json[];
  compiled = stream.at(-1)!;
  writeFileSync(join(allowed, 'handoff.ndjson'), r.stdout);
  writeFileSync(join(outside, 'handoff.ndjson'), r.stdout);
  writeFileSync(join(allowed, 'notes.txt'), `${CANARY}\n`);
  const ingest = runBin('sp-sync', ['ingest', '-q', '--no-redact'], { input: r.stdout, env: { SP_HOME: spHome } });
  expect(ingest.code, ingest.stderr).toBe(0);
  [main, tight] = await Promise.all([connect([]), connect(['--max-events', '2'])]);
}, 300_000);

afterAll(async () => {
  await Promise.all([main?.close(), tight?.close()]);
});

describe('expand_context', () => {
  it('returns the events of an item from the store (id prefix) and from a handoff file under a root, alike', async () => {
    const item = (compiled.payload.items as Json[]).find((i) => i.kind === 'decision')!;
    const stored = await ok('expand_context', { session: compiled.session.slice(0, 14), item: item.id });
    expect(stored.session).toBe(compiled.session);
    expect(stored.compiled_seq).toBe(compiled.seq);
    expect(stored.seqs).toEqual(item.seqs);
    expect(stored.missing).toEqual([]);
    expect(stored.events.map((e: Json) => e.seq)).toEqual(item.seqs);
    expect(JSON.stringify(stored.events[0].payload)).toContain('keep the in-memory store');
    const fromFile = await ok('expand_context', { session: join(allowed, 'handoff.ndjson'), item: item.id });
    expect(fromFile.events).toEqual(stored.events);
  });

  it('redacts what it returns', async () => {
    const r = await ok('expand_context', { session: compiled.session, item: `${secretSeq}-${secretSeq}` });
    expect(r.events.map((e: Json) => e.seq)).toEqual([secretSeq]);
    const text = JSON.stringify(r.events);
    expect(text).not.toContain(FAKE.githubPat);
    expect(text).toContain('use token ');
    // The stored event itself still holds it (stored with --no-redact): the redaction is the tool's.
    expect(JSON.stringify(stream.find((e) => e.seq === secretSeq))).toContain(FAKE.githubPat);
  });

  it('refuses a path outside the roots, a non-event file, an unknown item or session; the server stays up', async () => {
    await fails('expand_context', { session: join(outside, 'handoff.ndjson'), item: 'goal:1' }, /outside the roots this server may read/);
    await fails('expand_context', { session: join(allowed, '..', 'outside', 'handoff.ndjson'), item: 'goal:1' }, /outside the roots this server may read/);
    const notEvents = await fails('expand_context', { session: join(allowed, 'notes.txt'), item: 'goal:1' }, /line 1 of .* is not a canonical event/);
    expect(notEvents).not.toContain(CANARY);
    await fails('expand_context', { session: compiled.session, item: 'no-such:item' }, /no item "no-such:item" in the handoff/);
    await fails('expand_context', { session: 'sess_ffffffffffffffffffff', item: 'goal:1' }, /sess_ffff/);
    await fails('expand_context', { session: compiled.session, item: '  ' }, /"item" is empty/);
    await fails('expand_context', { session: join(allowed, 'handoff.ndjson'), item: 'goal:1', store: allowed }, /"store" applies to a stored session id/);
    const still = await ok('expand_context', { session: compiled.session, item: `${secretSeq}` });
    expect(still.events).toHaveLength(1);
  });

  it('keeps to --max-events', async () => {
    const calls = toolCalls(() => tight);
    await calls.fails('expand_context', { session: compiled.session, item: '0-5' }, /more than 2 events, the limit per call \(--max-events\)/);
    const small = await calls.ok('expand_context', { session: compiled.session, item: '0-1' });
    expect(small.events.map((e: Json) => e.seq)).toEqual([0, 1]);
  });
});
