// lib/ops stages as functions over async iterables, without spawning: capture, redact, compile,
// relay and ingest, each redacting by default (a planted fake secret never comes out) and with the
// opt-out recorded where the result is kept; the chains still verify after redaction.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../adapters/index.js';
import type { SpEvent } from '../lib/core/event.js';
import { capture, collect, compile, ingest, redact, relay, resolveSessions, type ResolvedSession } from '../lib/ops/index.js';
import { Store } from '../lib/store/index.js';
import { verify } from '../index.js';
import { FAKE } from './support/fakeSecrets.js';

const S1 = 'e05d2652-6a94-447f-8b60-cded66e4199a';
const PROJECT = '-home-alice-acme-api';
const SECRET = FAKE.githubPat;

let work: string;
let savedHome: string | undefined;
let session: ResolvedSession[];
let plain: SpEvent[];

const hasSecret = (value: unknown) => JSON.stringify(value).includes(SECRET);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sp-ops-stages-'));
  savedHome = process.env.SP_HOME;
  process.env.SP_HOME = join(work, 'sp'); // the redaction key and the store: this test's own
  const projects = join(work, '.claude', 'projects', PROJECT);
  mkdirSync(projects, { recursive: true });
  const text = readFileSync(`fixtures/claude/corpus/S1-feature/.claude/projects/${PROJECT}/${S1}.jsonl`, 'utf8');
  expect(text).toContain('Add a DELETE');
  writeFileSync(join(projects, `${S1}.jsonl`), text.replaceAll('Add a DELETE', `Add a DELETE (token ${SECRET})`));
  session = await resolveSessions(S1, { registry: adapters, agent: 'claude', home: join(work, '.claude') });
  plain = await collect(capture(session, { redact: false }));
});

afterAll(() => {
  if (savedHome === undefined) delete process.env.SP_HOME;
  else process.env.SP_HOME = savedHome;
  rmSync(work, { recursive: true, force: true });
});

describe('lib/ops stages', () => {
  it('capture: chained events; redacted unless redact: false', async () => {
    expect(plain[0].type).toBe('session.start');
    expect(hasSecret(plain)).toBe(true);
    expect((await verify(plain)).ok).toBe(true);
    const redacted = await collect(capture(session));
    expect(redacted).toHaveLength(plain.length);
    expect(hasSecret(redacted)).toBe(false);
    expect(JSON.stringify(redacted)).toMatch(/\[REDACTED:[a-z0-9_-]+:/);
    expect((await verify(redacted)).ok).toBe(true);
  });

  it('redact: an async iterable in, one out, re-chained so it verifies', async () => {
    async function* stream() {
      yield* plain;
    }
    const out = await collect(redact(stream()));
    expect(out.map((e) => e.seq)).toEqual(plain.map((e) => e.seq));
    expect(hasSecret(out)).toBe(false);
    expect((await verify(out)).ok).toBe(true);
  });

  it('compile: within its budget, and redacted even from unredacted events', async () => {
    const handoff = await compile(plain, { target: 'codex', budget: 3000 });
    expect(handoff.tokens).toBeGreaterThan(0);
    expect(handoff.tokens).toBeLessThanOrEqual(3000);
    expect(handoff.event.type).toBe('context.compiled');
    expect(handoff.text).toMatch(/DELETE/);
    expect(hasSecret(handoff)).toBe(false);
    await expect(compile(plain, { target: 'codex', budget: 0 })).rejects.toThrow(/budget/);
  });

  it('relay: a dry run writes nothing; a relay writes a new redacted session; redact: false is recorded', async () => {
    const codexHome = join(work, '.codex');
    const cwd = join(work, 'project');
    mkdirSync(cwd);
    const dry = await relay(adapters.codex, plain, { home: codexHome, cwd, dryRun: true });
    expect(dry.results).toHaveLength(1);
    expect(existsSync(dry.results[0].path)).toBe(false);
    const written = await relay(adapters.codex, plain, { home: codexHome, cwd });
    const file = written.results[0].path;
    expect(file.startsWith(codexHome)).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain('DELETE');
    expect(readFileSync(file, 'utf8')).not.toContain(SECRET);
    expect((written.results[0] as { redacted?: boolean }).redacted).toBeUndefined();
    const kept = await relay(adapters.codex, plain, { home: join(work, '.codex-plain'), cwd, redact: false });
    expect((kept.results[0] as { redacted?: boolean }).redacted).toBe(false);
    expect(readFileSync(kept.results[0].path, 'utf8')).toContain(SECRET);
    await expect(relay(adapters.otel, plain, { home: join(work, 'otel'), cwd })).rejects.toThrow(/cannot be written/);
  });

  it('ingest: redacted into the store, idempotent the second time', async () => {
    const dir = join(work, 'store');
    const store = Store.open(dir);
    try {
      const first = await ingest(store, plain);
      expect(first.added).toBe(plain.length);
      expect(first.secrets).toBeGreaterThan(0);
      const again = await ingest(store, plain);
      expect(again.added).toBe(0);
      expect(again.skipped).toBe(plain.length);
      const stored = await collect(store.events(plain[0].session));
      expect(stored).toHaveLength(plain.length);
      expect(hasSecret(stored)).toBe(false);
      expect((await verify(stored)).ok).toBe(true);
    } finally {
      store.close();
    }
    // Nothing in the store's files holds the secret either.
    const files = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(d, e.name)) : [join(d, e.name)]));
    for (const f of files(dir)) expect(readFileSync(f).includes(SECRET)).toBe(false);
  });
});
