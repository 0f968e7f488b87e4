// sp watch: the scan engine on real agent files and a real store (appends read from the cursor
// only, rotated and compacted files, removed files, a busy store, hostile files), pushing to a
// real git remote that is down and then up (through the long-running loop), the binary's --once,
// SIGTERM and --install-service, and a soak of a real `sp-watch` process under thousands of appends
// (RSS sampled; every appended event stored exactly once).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { adapters } from '../adapters/index.js';
import { Store, eventKey, type SpEvent } from '../lib/store/index.js';
import { Redactor } from '../lib/redact/ensure.js';
import { addRemote } from '../lib/sync/remote.js';
import { Notes, scan, type ScanOptions, type WatchTarget } from '../lib/watch/scan.js';
import { cursorOf, emptyState, loadState, saveState, statePath, type WatchState } from '../lib/watch/state.js';
import { watchLoop } from '../lib/watch/loop.js';
import { pushAll } from '../lib/watch/push.js';
import { bin, root, tempDir } from './support/store.js';
import { Database, S2, copyDb } from './hermes/support.js';

vi.setConfig({ testTimeout: 180_000 });

const SESSIONS = {
  claude: { scenario: 'fixtures/claude/corpus/S2-debug', home: '.claude', file: '.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl' },
  codex: { scenario: 'fixtures/codex/corpus/S2-debug', home: '', file: 'sessions/2026/11/30/rollout-2026-11-30T05-07-06-01a22ad9-7cda-7dc3-af4a-0f4bdf56c072.jsonl' },
  pi: { scenario: 'fixtures/pi/corpus/S2-debug', home: 'agent', file: 'agent/sessions/--home-carol-acme-api--/2026-11-30T05-02-18-208Z_01a22ad5-1860-75b1-a6ae-a6566d610280.jsonl' },
} as const;
type Agent = keyof typeof SESSIONS;

let spHomeDir: string;
let redactor: Redactor;
const savedHome = process.env.SP_HOME;

beforeAll(async () => {
  spHomeDir = tempDir('sp-watch-home-');
  process.env.SP_HOME = spHomeDir;
  redactor = await Redactor.load();
});
afterAll(() => {
  if (savedHome === undefined) delete process.env.SP_HOME;
  else process.env.SP_HOME = savedHome;
});

/** A copy of an agent's recorded scenario; returns its home and the session file in it. */
function scenario(agent: Agent): { home: string; file: string; lines: string[] } {
  const work = tempDir(`sp-watch-${agent}-`);
  cpSync(join(root, SESSIONS[agent].scenario), work, { recursive: true });
  const file = join(work, SESSIONS[agent].file);
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return { home: join(work, SESSIONS[agent].home), file, lines };
}

function options(targets: WatchTarget[], storeDir: string, log: string[], extra: Partial<ScanOptions> = {}): ScanOptions {
  return { targets, storeDir, redactor, log: (where, what) => log.push(`${where}: ${what}`), ...extra };
}

/** Every stored event of every session (read-only, as far as the manifests acknowledge). */
async function storedEvents(storeDir: string): Promise<SpEvent[]> {
  const store = Store.open(storeDir, { readonly: true });
  try {
    const out: SpEvent[] = [];
    for (const s of store.sessions({ all: true })) for await (const e of store.events(s.id)) out.push(e);
    return out;
  } finally {
    store.close();
  }
}

function keysOf(events: SpEvent[]): string[] {
  return events.map((e) => `${e.session} ${eventKey(e)}`).sort();
}

/**
 * The keys without session.start, and the number of session.start events: Pi's session.start
 * records the active leaf when the session is first read, so it differs when a session is read in
 * two parts (adapter behaviour, the same with sp-capture --cursor).
 */
function keysBesidesStart(events: SpEvent[]): { keys: string[]; starts: number } {
  return { keys: keysOf(events.filter((e) => e.type !== 'session.start')), starts: events.filter((e) => e.type === 'session.start').length };
}

describe('scan: what changed, and only that', () => {
  for (const agent of Object.keys(SESSIONS) as Agent[]) {
    it(`${agent}: an append is in the store after one scan, read from the cursor (nothing old read again); the result equals one full capture`, async () => {
      const { home, file, lines } = scenario(agent);
      const half = Math.ceil(lines.length / 2);
      writeFileSync(file, lines.slice(0, half).join('\n') + '\n');
      const storeDir = join(tempDir(), 'store');
      const state = emptyState(storeDir);
      const log: string[] = [];
      const targets = [{ adapter: adapters[agent], home }];
      const first = await scan(state, options(targets, storeDir, log));
      expect(first).toMatchObject({ sessions: 1, changed: 1, busy: false, errors: 0 });
      expect(first.added).toBeGreaterThan(0);
      // Nothing changed: no file is read, the store is not even opened.
      const idle = await scan(state, options(targets, storeDir, log));
      expect(idle).toMatchObject({ changed: 0, added: 0, skipped: 0 });

      appendFileSync(file, lines.slice(half).join('\n') + '\n');
      const second = await scan(state, options(targets, storeDir, log));
      expect(second).toMatchObject({ changed: 1, skipped: 0, errors: 0 });
      expect(second.added).toBeGreaterThan(0);
      expect(log).toEqual([]);

      // The same file scanned whole into a fresh store holds exactly the same events.
      const fullStore = join(tempDir(), 'store');
      const full = await scan(emptyState(fullStore), options(targets, fullStore, log));
      expect(first.added + second.added).toBe(full.added);
      const [grown, whole] = [await storedEvents(storeDir), await storedEvents(fullStore)];
      if (agent === 'pi') expect(keysBesidesStart(grown)).toEqual(keysBesidesStart(whole));
      else expect(keysOf(grown)).toEqual(keysOf(whole));
    });
  }

  it('a rotated file (new inode, same bytes, grown) continues from the cursor; a rewritten or truncated one is read again from the start, nothing stored twice or lost', async () => {
    const { home, file, lines } = scenario('claude');
    writeFileSync(file, lines.slice(0, 20).join('\n') + '\n');
    const storeDir = join(tempDir(), 'store');
    const state = emptyState(storeDir);
    const log: string[] = [];
    const targets = [{ adapter: adapters.claude, home }];
    await scan(state, options(targets, storeDir, log));

    // Rotation: a new file with the old bytes and more takes the name.
    writeFileSync(file + '.new', lines.slice(0, 30).join('\n') + '\n');
    renameSync(file + '.new', file);
    const rotated = await scan(state, options(targets, storeDir, log));
    expect(rotated).toMatchObject({ changed: 1, skipped: 0, errors: 0 });
    expect(rotated.added).toBeGreaterThan(0);
    expect(log).toEqual([]);

    // Rewritten in place (the same records, the first one re-serialized), with the rest appended.
    const reserialized = JSON.stringify(JSON.parse(lines[0]), null, 1).replace(/\n\s*/g, ' ');
    expect(reserialized).not.toBe(lines[0]);
    writeFileSync(file, [reserialized, ...lines.slice(1)].join('\n') + '\n');
    const rewritten = await scan(state, options(targets, storeDir, log));
    expect(log.filter((l) => l.includes('begins differently') && l.includes('read again from the start')).length).toBe(1);
    expect(rewritten.skipped).toBeGreaterThan(0); // what was stored already is recognised, not added again
    expect(rewritten.added).toBeGreaterThan(0);

    // The store holds each event of the whole session exactly once: what one full scan stores.
    const keys = keysOf(await storedEvents(storeDir));
    expect(new Set(keys).size).toBe(keys.length);
    const reference = join(tempDir(), 'store');
    await scan(emptyState(reference), options(targets, reference, []));
    expect(keys).toEqual(keysOf(await storedEvents(reference)));

    // Truncated to its first lines: read again from the start as what it now is; what was stored stays, nothing twice.
    writeFileSync(file, lines.slice(0, 5).join('\n') + '\n');
    const truncated = await scan(state, options(targets, storeDir, log));
    expect(log.some((l) => l.includes('is shorter'))).toBe(true);
    expect(truncated).toMatchObject({ changed: 1, errors: 0 });
    expect(truncated.skipped).toBeGreaterThan(truncated.added);
    const after = keysOf(await storedEvents(storeDir));
    expect(new Set(after).size).toBe(after.length);
    expect(keys.every((k) => after.includes(k))).toBe(true);
  });

  it('a removed file: the state forgets it, its stored events stay, no error', async () => {
    const { home, file } = scenario('pi');
    const storeDir = join(tempDir(), 'store');
    const state = emptyState(storeDir);
    const log: string[] = [];
    const targets = [{ adapter: adapters.pi, home }];
    const first = await scan(state, options(targets, storeDir, log));
    unlinkSync(file);
    const after = await scan(state, options(targets, storeDir, log));
    expect(after).toMatchObject({ sessions: 0, removed: 1, errors: 0, busy: false });
    expect(Object.keys(state.sessions)).toEqual([]);
    expect((await storedEvents(storeDir)).length).toBe(first.added);
  });

  it('discovery is reused while the folders are unchanged; a new session file (its folder changes) is found at the next scan', async () => {
    const { home, file, lines } = scenario('claude');
    const old = new Date(Date.now() - 3_600_000);
    for (let dir = join(file, '..'); dir.startsWith(home); dir = join(dir, '..')) utimesSync(dir, old, old);
    const storeDir = join(tempDir(), 'store');
    const state = emptyState(storeDir);
    const targets = [{ adapter: adapters.claude, home }];
    const first = await scan(state, options(targets, storeDir, []));
    expect(first.sessions).toBe(1);
    const cached = Object.values(state.discovery ?? {});
    expect(cached).toHaveLength(1);
    expect(cached[0].refs.map((r) => r.path)).toEqual([file]);
    expect(Object.keys(cached[0].dirs)).toEqual(expect.arrayContaining([home, join(home, 'projects'), join(file, '..')]));
    // A grown session file does not make a discovery necessary, and is read.
    appendFileSync(file, lines[lines.length - 1].replace(/"uuid":"[^"]+"/, '"uuid":"99999999-0000-4000-8000-000000000001"') + '\n');
    const grown = await scan(state, options(targets, storeDir, []));
    expect(grown).toMatchObject({ sessions: 1, changed: 1 });
    const second = join(file, '..', '11111111-0000-4000-8000-000000000002.jsonl');
    writeFileSync(second, lines.join('\n').replaceAll('9a1dc580-54f5-46ea-bece-7461fb46da3a', '11111111-0000-4000-8000-000000000002') + '\n');
    const found = await scan(state, options(targets, storeDir, []));
    expect(found).toMatchObject({ sessions: 2, changed: 1 });
    expect(found.added).toBeGreaterThan(0);
  });

  it('hermes (SQLite): a row written to the database (through its WAL) is stored after one scan, only that row', async () => {
    const db = copyDb();
    const storeDir = join(tempDir(), 'store');
    const state = emptyState(storeDir);
    const log: string[] = [];
    const targets = [{ adapter: adapters.hermes, home: join(db, '..') }];
    const first = await scan(state, options(targets, storeDir, log));
    expect(first.sessions).toBeGreaterThan(1);
    expect(first.added).toBeGreaterThan(0);
    expect(await scan(state, options(targets, storeDir, log))).toMatchObject({ changed: 0, added: 0 });
    const h = new Database(db);
    h.pragma('journal_mode = WAL');
    h.prepare("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', 'one more thing from the watch test', 1796015799)").run(S2);
    const after = await scan(state, options(targets, storeDir, log));
    h.close();
    expect(after.added).toBe(1);
    expect(after.skipped).toBe(0);
    expect(log).toEqual([]);
    const added = (await storedEvents(storeDir)).filter((e) => JSON.stringify(e.payload).includes('one more thing from the watch test'));
    expect(added.map((e) => e.type)).toEqual(['message.user']);
  });

  it('a busy store (another writer holds the lock): nothing stored, the state does not move; once released, everything arrives once', async () => {
    const { home, file, lines } = scenario('codex');
    writeFileSync(file, lines.slice(0, 10).join('\n') + '\n');
    const storeDir = join(tempDir(), 'store');
    const state = emptyState(storeDir);
    const log: string[] = [];
    const targets = [{ adapter: adapters.codex, home }];
    await scan(state, options(targets, storeDir, log));
    const before = JSON.stringify(state);
    appendFileSync(file, lines.slice(10).join('\n') + '\n');
    writeFileSync(join(storeDir, 'lock'), `${process.pid} ${hostname()}\n`); // a live writer on this host
    const busy = await scan(state, options(targets, storeDir, log, { lockTimeoutMs: 50 }));
    expect(busy).toMatchObject({ busy: true, added: 0 });
    expect(JSON.stringify(state)).toBe(before);
    expect(log.some((l) => l.includes('locked by another writer'))).toBe(true);
    unlinkSync(join(storeDir, 'lock'));
    const after = await scan(state, options(targets, storeDir, log));
    expect(after).toMatchObject({ busy: false, changed: 1, skipped: 0 });
    const reference = join(tempDir(), 'store');
    await scan(emptyState(reference), options(targets, reference, []));
    expect(keysOf(await storedEvents(storeDir))).toEqual(keysOf(await storedEvents(reference)));
  });

  it('hostile files: a link out of the home, a FIFO, a huge line — each one line, skipped; the good session is stored', async () => {
    const { home, file, lines } = scenario('claude');
    const folder = join(file, '..');
    const outside = join(tempDir(), '11111111-2222-4333-8444-555555555555.jsonl');
    writeFileSync(outside, lines.join('\n') + '\n');
    symlinkSync(outside, join(folder, '11111111-2222-4333-8444-555555555555.jsonl'));
    expect(spawnSync('mkfifo', [join(folder, '22222222-2222-4333-8444-555555555555.jsonl')]).status).toBe(0);
    const huge = JSON.parse(lines.find((l) => l.includes('"type":"user"'))!) as Record<string, unknown>;
    huge.sessionId = '33333333-2222-4333-8444-555555555555';
    huge.message = { role: 'user', content: 'x'.repeat(300_000) };
    writeFileSync(join(folder, '33333333-2222-4333-8444-555555555555.jsonl'), JSON.stringify(huge) + '\n');
    const storeDir = join(tempDir(), 'store');
    const state = emptyState(storeDir);
    const log: string[] = [];
    const targets = [{ adapter: adapters.claude, home }];
    const notes = new Notes((where, what) => log.push(`${where}: ${what}`));
    const r = await scan(state, options(targets, storeDir, log, { maxLineBytes: 100_000 }), notes);
    expect(log.filter((l) => l.includes('11111111') && l.includes('outside the home')).length).toBe(1);
    expect(log.filter((l) => l.includes('22222222') && l.includes('FIFO')).length).toBe(1);
    expect(log.filter((l) => l.includes('33333333') && l.includes('longer than 100000 bytes')).length).toBe(1);
    expect(r.changed).toBe(1);
    expect(r.added).toBeGreaterThan(0);
    const stored = await storedEvents(storeDir);
    expect(stored.some((e) => JSON.stringify(e).includes('xxxxxxxxxx'))).toBe(false);
    // Scanned again: no new lines for the same problems (the watch would print them every interval).
    const count = log.length;
    await scan(state, options(targets, storeDir, log, { maxLineBytes: 100_000 }), notes);
    expect(log.length).toBe(count);
  });

  it('the state is private, atomic, tied to its store; a damaged one is refused with one line', () => {
    const storeDir = join(tempDir(), 'store');
    const path = statePath(spHomeDir, storeDir);
    const state: WatchState = emptyState(storeDir);
    saveState(path, state);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    expect(loadState(path, storeDir)).toEqual(state);
    expect(() => loadState(path, '/elsewhere')).toThrow(/feeds the store/);
    writeFileSync(path, '{"version":1');
    expect(() => loadState(path, storeDir)).toThrow(/not a watch state/);
  });

  it('a state saved before read positions had files of their own (inline `cursor`) still loads; its position moves to its file; the state file never holds one', () => {
    const storeDir = join(tempDir(), 'store');
    const path = statePath(tempDir('sp-watch-old-'), storeDir);
    const position = { version: 1, agent: 'codex', native_id: 'n1', sources: { '/s.jsonl': { offset: 10, line: 1 } }, sessions: {} };
    const entry = { agent: 'codex', native_id: 'n1', path: '/s.jsonl', sig: { '/s.jsonl': '1:10:5' }, heads: {} };
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, JSON.stringify({ version: 1, store: storeDir, sessions: { k: { ...entry, cursor: position }, bad: { ...entry, cursor: 'x' } } }) + '\n');
    const state = loadState(path, storeDir);
    expect(cursorOf(state, 'k')).toEqual(position);
    expect(cursorOf(state, 'bad')).toBeUndefined();
    saveState(path, state);
    expect(readFileSync(path, 'utf8')).toBe(JSON.stringify({ version: 1, store: storeDir, sessions: { k: { ...entry, has_cursor: true }, bad: entry } }) + '\n');
    // Another process: the position comes back from its own file.
    expect(cursorOf(loadState(path, storeDir), 'k')).toEqual(position);
  });
});

/** Waits until `check` holds, looking every 100 ms (state in other processes and files has no event to await). */
async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function git(args: string[], cwd?: string): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

describe('the long-running loop', () => {
  it('a remote that is down: the push is retried with backoff, and once it is up everything stored meanwhile arrives', async () => {
    const { home, file, lines } = scenario('claude');
    writeFileSync(file, lines.slice(0, 20).join('\n') + '\n');
    const storeDir = join(tempDir(), 'store');
    const bare = join(tempDir(), 'remote.git'); // not there yet: the remote is down
    const writer = Store.open(storeDir);
    addRemote(writer, 'origin', bare);
    writer.close();
    const state = emptyState(storeDir);
    const log: string[] = [];
    const notes = new Notes((where, what) => log.push(`${where}: ${what}`));
    const targets = [{ adapter: adapters.claude, home }];
    const controller = new AbortController();
    let pushes = 0;
    const loop = watchLoop({
      scan: () => scan(state, options(targets, storeDir, log), notes),
      push: async () => {
        await pushAll(storeDir);
        pushes += 1;
      },
      intervalMs: 100,
      pushEveryMs: 1000,
      signal: controller.signal,
      log: (where, what) => log.push(`${where}: ${what}`),
    });
    await until(() => log.filter((l) => l.includes('push failed')).length >= 1, 30_000, 'a failed push');
    expect(log.find((l) => l.includes('push failed'))).toMatch(/trying again in 1 s/);
    // Appended while the remote is down, then the remote comes up.
    appendFileSync(file, lines.slice(20).join('\n') + '\n');
    git(['init', '-q', '--bare', '-b', 'main', bare]);
    await until(() => pushes >= 1, 30_000, 'a push that succeeds');
    controller.abort();
    await loop;
    const store = Store.open(storeDir, { readonly: true });
    try {
      const sessions = store.sessions();
      expect(sessions.length).toBe(1);
      const cursor = store.cursors('origin').find((c) => c.session === sessions[0].id);
      expect(cursor?.seq).toBe(sessions[0].events); // pushed: every stored event, the ones from before the outage included
      expect(git(['--git-dir', bare, 'ls-tree', '-r', '--name-only', 'main'])).toContain(sessions[0].id);
      const reference = join(tempDir(), 'store');
      await scan(emptyState(reference), options(targets, reference, []));
      expect(sessions[0].events).toBe((await storedEvents(reference)).length);
    } finally {
      store.close();
    }
  });
});

describe('sp-watch, the binary', () => {
  const run = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, [bin('sp-watch'), ...args], { encoding: 'utf8', env: { ...process.env, SP_PROGRESS: '0', ...env } });

  it('--once --json: one scan and its result; again: nothing read; usage errors are one line, exit 2', () => {
    const { home, file, lines } = scenario('codex');
    writeFileSync(file, lines.slice(0, 12).join('\n') + '\n');
    const spHome = tempDir('sp-watch-home-');
    const store = join(tempDir(), 'store');
    const first = run(['--home', `codex=${home}`, '--store', store, '--once', '--json'], { SP_HOME: spHome });
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const r1 = JSON.parse(first.stdout) as { sessions: number; changed: number; added: number };
    expect(r1.sessions).toBe(1);
    expect(r1.added).toBeGreaterThan(0);
    const second = run(['codex', '--home', `codex=${home}`, '--store', store, '--once', '--json'], { SP_HOME: spHome });
    expect(JSON.parse(second.stdout)).toMatchObject({ sessions: 1, changed: 0, added: 0 });
    // The cursors are files of their own next to the state, read back by the next process: a grown session continues.
    const watchDir = join(spHome, 'watch');
    expect(readdirSync(watchDir).sort()).toEqual([expect.stringMatching(/^state-[0-9a-f]{16}\.cursors$/), expect.stringMatching(/^state-[0-9a-f]{16}\.json$/)]);
    expect(readFileSync(join(watchDir, readdirSync(watchDir).find((n) => n.endsWith('.json'))!), 'utf8')).not.toContain('"sources"');
    appendFileSync(file, lines.slice(12).join('\n') + '\n');
    const third = JSON.parse(run(['--home', `codex=${home}`, '--store', store, '--once', '--json'], { SP_HOME: spHome }).stdout) as { changed: number; added: number; skipped: number };
    expect(third).toMatchObject({ changed: 1, skipped: 0 });
    expect(third.added).toBeGreaterThan(0);
    for (const bad of [['--home', 'nosuch=/tmp'], ['--push', '10ms']]) {
      const r = run([...bad, '--once'], { SP_HOME: spHome });
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^sp-watch: /);
    }
  });

  it('--install-service: printed; written with --yes (absolute node and binary), never over a different file without --force; a control character is refused', () => {
    const scratch = tempDir('sp-watch-user-');
    const env = { HOME: scratch, SP_HOME: join(scratch, '.sp') };
    const unit = join(scratch, '.config/systemd/user/sp-watch.service');
    const printed = run(['claude', '--push', '5m', '--install-service', '--service', 'systemd'], env);
    expect(printed.status).toBe(0);
    expect(existsSync(unit)).toBe(false);
    expect(printed.stdout).toContain(`ExecStart=${process.execPath} ${bin('sp-watch')} claude --store ${join(scratch, '.sp', 'store')} --interval 2s --push 5m`);
    expect(printed.stdout).toContain(`Environment=SP_HOME=${join(scratch, '.sp')}`);
    expect(printed.stderr).toContain('--yes');
    const written = run(['claude', '--push', '5m', '--install-service', '--service', 'systemd', '--yes'], env);
    expect(written.status).toBe(0);
    expect(readFileSync(unit, 'utf8')).toBe(printed.stdout);
    expect(written.stderr).toContain('systemctl --user enable --now sp-watch.service');
    expect(run(['claude', '--push', '5m', '--install-service', '--service', 'systemd', '--yes'], env).stderr).toContain('installed already');
    const other = run(['codex', '--install-service', '--service', 'systemd', '--yes'], env);
    expect(other.status).toBe(2);
    expect(other.stderr).toContain('not overwriting');
    expect(readFileSync(unit, 'utf8')).toBe(printed.stdout);
    expect(run(['codex', '--install-service', '--service', 'systemd', '--yes', '--force'], env).status).toBe(0);
    expect(readFileSync(unit, 'utf8')).toContain(' codex ');
    const plist = run(['--install-service', '--service', 'launchd', '--yes'], env);
    expect(plist.status).toBe(0);
    const plistText = readFileSync(join(scratch, 'Library/LaunchAgents/dev.sp.watch.plist'), 'utf8');
    expect(plistText).toContain(`<string>${bin('sp-watch')}</string>`);
    expect(plistText).toContain('<key>KeepAlive</key>');
    const hostile = run(['--store', '/tmp/x\nExecStartPre=/bin/sh -c evil', '--install-service', '--service', 'systemd'], env);
    expect(hostile.status).toBe(2);
    expect(hostile.stdout).toBe('');
    expect(hostile.stderr).toMatch(/control character/);
  });
});

describe('soak: a real sp-watch process under thousands of appends', () => {
  it('every appended event is stored exactly once, RSS stays flat, SIGTERM ends it with exit 0', async () => {
    const SESSIONS = 40;
    const DURATION_MS = Number(process.env.SP_WATCH_SOAK_MS) || 60_000;
    const work = tempDir('sp-watch-soak-');
    const home = join(work, '.claude');
    const spHome = join(work, 'sp');
    const storeDir = join(work, 'store');
    const sessions = Array.from({ length: SESSIONS }, (_, i) => {
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      const folder = join(home, 'projects', `-home-soak-p${i % 4}`);
      mkdirSync(folder, { recursive: true });
      return { id, file: join(folder, `${id}.jsonl`), cwd: `/home/soak/p${i % 4}`, last: null as string | null, n: 0 };
    });
    const append = (s: (typeof sessions)[number]) => {
      const uuid = `${s.id.slice(0, 24)}${String(s.n).padStart(12, '0')}`.replace(/^00000000/, 'aaaaaaaa');
      const record = { parentUuid: s.last, isSidechain: false, type: 'user', message: { role: 'user', content: `soak-${s.id.slice(-4)}-${s.n} please continue` }, uuid, timestamp: new Date().toISOString(), cwd: s.cwd, sessionId: s.id, version: '2.1.197', userType: 'external' };
      appendFileSync(s.file, JSON.stringify(record) + '\n');
      s.last = uuid;
      s.n += 1;
    };
    for (const s of sessions) append(s);

    const child = spawn(process.execPath, [bin('sp-watch'), 'claude', '--home', `claude=${home}`, '--store', storeDir, '--interval', '500ms'], {
      env: { ...process.env, SP_HOME: spHome, SP_PROGRESS: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const rss: number[] = [];
    const sampler = setInterval(() => {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) rss.push(Number(m[1]) / 1024);
      } catch {
        // exited
      }
    }, 500);
    try {
      // 3,600 appends, three at a time, spread evenly over the duration (paced by the clock, not by sleeps that drift).
      const APPENDS = 3600;
      const started = Date.now();
      for (let appends = 0; appends < APPENDS; ) {
        for (let k = 0; k < 3; k++, appends++) append(sessions[(appends * 7) % SESSIONS]);
        const due = started + (appends / APPENDS) * DURATION_MS;
        if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      }
      const total = sessions.reduce((n, s) => n + s.n, 0);
      expect(total).toBe(APPENDS + SESSIONS);
      const countMarkers = async () => {
        const seen = new Map<string, number>();
        for (const e of await storedEvents(storeDir)) {
          const m = /soak-\d{4}-\d+ please/.exec(JSON.stringify(e.payload));
          if (m) seen.set(m[0], (seen.get(m[0]) ?? 0) + 1);
        }
        return seen;
      };
      let seen = new Map<string, number>();
      await until(async () => existsSync(join(storeDir, 'index.sqlite')) && (seen = await countMarkers()).size === total, 60_000, `all ${total} appended events in the store`);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      expect(stderr).toBe('');
      // Flat memory: the median RSS of the last quarter within a bound of the first quarter's.
      const quarter = Math.floor(rss.length / 4);
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      const first = median(rss.slice(2, quarter + 2));
      const last = median(rss.slice(rss.length - quarter));
      console.log(`soak RSS series (MB): ${rss.map((x) => x.toFixed(0)).join(" ")}`);
      console.log(`soak: ${total} appends over ${SESSIONS} sessions in ${DURATION_MS / 1000} s; RSS MB first-quarter median ${first.toFixed(1)}, last-quarter median ${last.toFixed(1)}, max ${Math.max(...rss).toFixed(1)} (${rss.length} samples)`);
      expect(last).toBeLessThan(first * 1.25 + 16);
    } finally {
      clearInterval(sampler);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
