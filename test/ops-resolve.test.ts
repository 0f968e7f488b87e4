// lib/ops resolveSessions without spawning anything: every selector kind (native id, unique prefix,
// canonical id, file path, <db>#<id>, the structured --latest/--all/--session/--path) and every
// error kind (not-found, ambiguous, unreadable, refused), on temp copies of the corpus fixtures.
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../adapters/index.js';
import { UserError } from '../lib/cli/diagnostics.js';
import { canonicalSessionId } from '../lib/core/event.js';
import { OpsError, resolveSession, resolveSessions, type OpsErrorKind, type ResolveOptions } from '../lib/ops/index.js';

const S1 = 'e05d2652-6a94-447f-8b60-cded66e4199a';
const S2 = '9a1dc580-54f5-46ea-bece-7461fb46da3a';
/** A second Claude session whose id shares S1's first 8 characters. */
const TWIN = 'e05d2652-0000-4000-8000-000000000001';
const CODEX = '01a22ad9-47d0-73f1-b186-11146d50904a';
const PROJECT = '-home-alice-acme-api';

let work: string;
let claudeHome: string;
let codexHome: string;
let hermesHome: string;
let hermesId: string;

/** The OpsError a call throws (it fails the test when nothing or something else is thrown). */
async function failure(run: () => Promise<unknown>): Promise<OpsError> {
  try {
    await run();
  } catch (err) {
    expect(err).toBeInstanceOf(OpsError);
    return err as OpsError;
  }
  throw new Error('expected an OpsError, nothing was thrown');
}

async function expectKind(run: () => Promise<unknown>, kind: OpsErrorKind, message?: RegExp): Promise<OpsError> {
  const err = await failure(run);
  expect(err.kind).toBe(kind);
  if (message) expect(err.message).toMatch(message);
  return err;
}

/** Three agents only: the others' default homes (Aider's is the working directory) are not this test's. */
const registry = { claude: adapters.claude, codex: adapters.codex, hermes: adapters.hermes };
const homes = (): ResolveOptions => ({ registry, homes: { claude: claudeHome, codex: codexHome, hermes: hermesHome } });
const only = (agent: string, home: string): ResolveOptions => ({ registry, agent, home });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sp-ops-resolve-'));
  claudeHome = join(work, '.claude');
  const projects = join(claudeHome, 'projects', PROJECT);
  mkdirSync(projects, { recursive: true });
  for (const [scenario, id] of [
    ['S1-feature', S1],
    ['S2-debug', S2],
  ]) {
    copyFileSync(`fixtures/claude/corpus/${scenario}/.claude/projects/${PROJECT}/${id}.jsonl`, join(projects, `${id}.jsonl`));
  }
  const s1 = readFileSync(join(projects, `${S1}.jsonl`), 'utf8');
  writeFileSync(join(projects, `${TWIN}.jsonl`), s1.replaceAll(S1, TWIN));
  // The Codex session's id as a Claude session too: one id, two agents.
  writeFileSync(join(projects, `${CODEX}.jsonl`), s1.replaceAll(S1, CODEX));
  codexHome = join(work, '.codex');
  cpSync('fixtures/codex/corpus/S1-feature/sessions', join(codexHome, 'sessions'), { recursive: true });
  hermesHome = join(work, '.hermes');
  mkdirSync(hermesHome);
  copyFileSync('fixtures/hermes/corpus/state.db', join(hermesHome, 'state.db'));
  for await (const ref of adapters.hermes.discover({ home: hermesHome })) {
    hermesId = ref.native_id;
    break;
  }
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('resolveSessions: selectors', () => {
  it('a native id, exactly', async () => {
    const [found] = await resolveSessions(S2, only('claude', claudeHome));
    expect(found.adapter.id).toBe('claude');
    expect(found.ref.native_id).toBe(S2);
    expect(found.home).toBe(claudeHome);
  });

  it('a unique prefix of a native id, in one agent and across all', async () => {
    expect((await resolveSession('9a1d', only('claude', claudeHome))).ref.native_id).toBe(S2);
    expect((await resolveSession('e05d2652-6a', homes())).ref.native_id).toBe(S1);
  });

  it('a canonical sess_ id, in the agent named and without an agent', async () => {
    const canonical = canonicalSessionId('claude', S2);
    expect((await resolveSession(canonical, only('claude', claudeHome))).ref.native_id).toBe(S2);
    const anywhere = await resolveSession(canonicalSessionId('codex', CODEX), homes());
    expect([anywhere.adapter.id, anywhere.ref.native_id]).toEqual(['codex', CODEX]);
  });

  it('an exact id beats a prefix of another id', async () => {
    // S1 is exact; TWIN only shares its start.
    expect((await resolveSession(S1, homes())).ref.native_id).toBe(S1);
  });

  it('a session file, and a path the caller checks first', async () => {
    const file = join(claudeHome, 'projects', PROJECT, `${S2}.jsonl`);
    expect((await resolveSession(file, only('claude', claudeHome))).ref.native_id).toBe(S2);
    const seen: string[] = [];
    const checked = await resolveSession(file, { ...only('claude', claudeHome), checkPath: (p) => (seen.push(p), p) });
    expect(checked.ref.native_id).toBe(S2);
    expect(seen).toEqual([file]);
  });

  it('<db>#<id>: one session of a database', async () => {
    const found = await resolveSession(`${join(hermesHome, 'state.db')}#${hermesId}`, only('hermes', hermesHome));
    expect(found.ref.native_id).toBe(hermesId);
    // The same session by its id and by its canonical id.
    expect((await resolveSession(hermesId, homes())).ref.native_id).toBe(hermesId);
    expect((await resolveSession(canonicalSessionId('hermes', hermesId), homes())).ref.native_id).toBe(hermesId);
  });

  it('structured: --session (with a canonical id too), --path, --latest, --all oldest first', async () => {
    const opts = only('claude', claudeHome);
    expect((await resolveSessions({ session: '9a1d' }, opts)).map((f) => f.ref.native_id)).toEqual([S2]);
    expect((await resolveSessions({ session: canonicalSessionId('claude', S1) }, opts)).map((f) => f.ref.native_id)).toEqual([S1]);
    expect((await resolveSessions({ path: join(claudeHome, 'projects', PROJECT, `${S1}.jsonl`) }, opts))[0].ref.native_id).toBe(S1);
    const all = await resolveSessions({ all: true }, opts);
    expect(all.map((f) => f.ref.native_id).sort()).toEqual([S1, S2, TWIN, CODEX].sort());
    const latest = await resolveSessions({ latest: true }, opts);
    expect(latest).toHaveLength(1);
    // --all is oldest first: the newest is its last.
    expect(latest[0].ref.native_id).toBe(all[all.length - 1].ref.native_id);
  });

  it('--all of a home without sessions is a diagnostic, not an error', async () => {
    const empty = join(work, 'empty-claude');
    mkdirSync(join(empty, 'projects'), { recursive: true });
    const notes: string[] = [];
    expect(await resolveSessions({ all: true }, { ...only('claude', empty), onDiagnostic: (w, m) => notes.push(`${w}: ${m}`) })).toEqual([]);
    expect(notes.join('\n')).toMatch(/no Claude Code sessions|no Claude sessions/);
  });
});

describe('resolveSessions: errors by kind', () => {
  it('not-found: an unknown id in one agent (its own words) and in every agent (where it looked)', async () => {
    await expectKind(() => resolveSession('ffffffff', only('claude', claudeHome)), 'not-found', /no Claude session "ffffffff"/);
    await expectKind(() => resolveSession('ffffffff', homes()), 'not-found', new RegExp(`looked in .*claude: ${claudeHome}.*codex: ${codexHome}`));
    await expectKind(() => resolveSession(canonicalSessionId('claude', 'nope'), only('claude', claudeHome)), 'not-found');
    await expectKind(() => resolveSessions({ latest: true, cwd: '/no/such/project' }, only('claude', claudeHome)), 'not-found', /for the project/);
    await expectKind(() => resolveSession(join(work, 'missing.jsonl'), only('claude', claudeHome)), 'not-found', /ENOENT/);
  });

  it('ambiguous: a prefix of two ids in one agent, and one id in two agents, naming the candidates', async () => {
    const inOne = await expectKind(() => resolveSession('e05d2652', only('claude', claudeHome)), 'ambiguous', /matches 2 sessions/);
    expect([...inOne.candidates].sort()).toEqual([S1, TWIN].sort());
    expect(inOne.message).toContain(S1);
    const inTwo = await expectKind(() => resolveSession(CODEX, homes()), 'ambiguous', /matches 2 sessions/);
    expect([...inTwo.candidates].sort()).toEqual([`claude ${CODEX}`, `codex ${CODEX}`]);
    // With the agent named it is one session.
    expect((await resolveSession(CODEX, only('codex', codexHome))).adapter.id).toBe('codex');
  });

  it('unreadable: a missing home, a home that is a file, a database that is not one', async () => {
    await expectKind(() => resolveSession(S1, only('claude', join(work, 'nowhere'))), 'unreadable', /cannot read the Claude home: ENOENT/);
    await expectKind(() => resolveSession(S1, only('claude', join(claudeHome, 'projects', PROJECT, `${S1}.jsonl`))), 'unreadable');
    const notDb = join(work, 'bad-hermes');
    mkdirSync(notDb);
    writeFileSync(join(notDb, 'state.db'), 'not a database at all, just text that is long enough to not be empty');
    await expectKind(() => resolveSession('x', only('hermes', notDb)), 'unreadable');
    // Searching every agent, one unreadable home does not hide the others' sessions.
    expect((await resolveSession(S2, { ...homes(), homes: { ...homes().homes, hermes: notDb } })).ref.native_id).toBe(S2);
  });

  it('refused: empty, an unknown agent, a home without its agent, a path without an agent, a path the caller refuses', async () => {
    await expectKind(() => resolveSession('   ', homes()), 'refused', /empty/);
    await expectKind(() => resolveSession(S1, { registry, agent: 'nosuch' }), 'refused', /unknown agent "nosuch"; known agents: .*claude/);
    await expectKind(() => resolveSession(S1, { registry, home: claudeHome }), 'refused', /"home" needs "agent"/);
    const file = join(claudeHome, 'projects', PROJECT, `${S1}.jsonl`);
    await expectKind(() => resolveSession(file, homes()), 'refused', /is a path: say which agent/);
    let opened = false;
    const refuse = (p: string): string => {
      opened = true;
      throw new Error(`${p} is outside the roots`);
    };
    await expectKind(() => resolveSession('/etc/passwd', { ...only('claude', claudeHome), checkPath: refuse }), 'refused', /outside the roots/);
    await expectKind(() => resolveSessions({ path: '../../etc/passwd' }, { ...only('claude', claudeHome), checkPath: refuse }), 'refused');
    expect(opened).toBe(true);
    await expectKind(() => resolveSessions({ latest: true }, homes()), 'refused', /say which agent/);
  });

  it('an OpsError is a UserError: a binary prints it as one line, exit 2', async () => {
    const err = await failure(() => resolveSession('ffffffff', only('claude', claudeHome)));
    expect(err).toBeInstanceOf(UserError);
    expect(err.exitCode).toBe(2);
  });
});
