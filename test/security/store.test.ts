// The store tried as an attacker would: everything under SP_HOME private (folders 0700, files
// 0600) after every command; bytes past the signed end (a removed manifest, a chained line
// appended by hand, a forged journal) never adopted nor signed, and one damaged session blocking
// no other; a journaled append interrupted by a crash completed or cut back; events that fail the
// schema refused with their line named; `sp doctor` finding and fixing what is safe to fix.
import { describe, expect, it, beforeAll, vi } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync, createPrivateKey, createPublicKey } from 'node:crypto';
import { appendFileSync, chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { applySafeFixes, diagnose } from '../../lib/ops/doctor.js';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { CORPUS, bin, capture, parseLines, sp, tempDir } from '../support/store.js';
import { Chainer } from '../../lib/core/chain.js';
import type { SpEvent } from '../../lib/core/event.js';
import { loadKeys, keyIdOf, type KeyPair } from '../../lib/store/index.js';
import { journalAppend } from '../../lib/store/journal.js';

// Each case runs a dozen binaries one after the other; on two loaded cores that takes minutes.
vi.setConfig({ testTimeout: 300_000 });

let claudeDebug = '';
let claudeLong = '';

beforeAll(() => {
  // The usual umask: files would come out 0644 and folders 0755 unless sp asks for less.
  process.umask(0o022);
  claudeDebug = capture('claude', CORPUS.claudeDebug);
  claudeLong = capture('claude', CORPUS.claudeLong);
});

/** Everything under `home` whose mode is not private: `path mode` lines (empty when all is well). */
function notPrivate(home: string): { wrong: string[]; seen: number } {
  const wrong: string[] = [];
  let seen = 0;
  const visit = (path: string) => {
    const st = lstatSync(path);
    seen += 1;
    const want = st.isDirectory() ? 0o700 : 0o600;
    // sp's own files are exactly 0600/0700; inside a git clone's .git, git's owner-only modes
    // (objects 0400, hook samples 0700) are as private.
    const ok = path.includes('/.git/') ? (st.mode & 0o077) === 0 : (st.mode & 0o777) === want;
    if (st.isSymbolicLink() || !ok) wrong.push(`${path} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(home);
  return { wrong, seen };
}

function expectPrivate(home: string, after: string): void {
  const { wrong, seen } = notPrivate(home);
  expect(wrong, `after ${after}`).toEqual([]);
  expect(seen, `after ${after}`).toBeGreaterThan(1);
}

function sessionIds(events: string): string[] {
  return [...new Set(parseLines(events).map((e) => String(e.session)))];
}

function eventsOf(events: string, session: string): string {
  return events
    .split('\n')
    .filter((l) => l.includes(`"session":"${session}"`))
    .join('\n') + '\n';
}

/** stderr lines that are diagnostics of this binary. */
function diagnostics(stderr: string, name: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith(`${name}: `));
}

function storedCount(home: string, session: string): number {
  return parseLines(sp('sp-sync', ['log', session], { home }).stdout).length;
}

function sha256(bytes: Buffer): string {
  return 'sha256:' + createHash('sha256').update(bytes).digest('hex');
}

/** The next event of a stored session, chained onto its stored head: what a forger would append. */
function chainedNext(logPath: string, text: string): Buffer {
  const lines = readFileSync(logPath, 'utf8').trim().split('\n');
  const last = JSON.parse(lines[lines.length - 1]) as SpEvent;
  const chainer = new Chainer();
  chainer.seed(last.session, last.checksum!);
  const { checksum: _c, ...rest } = last;
  const next = chainer.chain({ ...rest, seq: last.seq + 1, type: 'message.user', actor: 'user', payload: { content: [{ type: 'text', text }] } } as SpEvent);
  return Buffer.from(JSON.stringify(next) + '\n');
}

describe('private by default', () => {
  it('leaves every folder under SP_HOME 0700 and every file 0600 after each sp-sync command and sp-redact', () => {
    const work = tempDir('sp-sec-');
    const home = join(work, 'home');
    const [id] = sessionIds(claudeDebug);
    const run = (args: string[], input?: string, who = home) => {
      const r = sp('sp-sync', args, { home: who, input });
      expect(r.status, `sp-sync ${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r;
    };
    run(['keygen']);
    expectPrivate(home, 'keygen');
    run(['ingest', '-q'], claudeDebug);
    expectPrivate(home, 'ingest');
    expect(existsSync(join(home, 'store', 'index.sqlite'))).toBe(true);
    run(['ls']);
    expectPrivate(home, 'ls');
    run(['log', id]);
    expectPrivate(home, 'log');
    run(['search', 'test']);
    expectPrivate(home, 'search');
    const child = run(['fork', id, '--at', '2', '--reason', 'try']).stdout.trim();
    expectPrivate(home, 'fork');
    run(['rm', child, '--reason', 'done']);
    expectPrivate(home, 'rm');
    const bare = join(work, 'sessions.git');
    expect(spawnSync('git', ['init', '-q', '--bare', bare]).status).toBe(0);
    run(['remote', 'add', 'origin', bare]);
    expectPrivate(home, 'remote add');
    run(['push', '-q']);
    expectPrivate(home, 'push');
    const laptop = join(work, 'laptop');
    run(['remote', 'add', 'origin', bare], undefined, laptop);
    // Pull takes only events signed by a trusted key (signed sync): the laptop trusts this home's key first.
    run(['trust', 'add', join(home, 'keys', 'id_ed25519.pub'), '--name', 'home'], undefined, laptop);
    expectPrivate(laptop, 'trust add');
    run(['pull', '-q'], undefined, laptop);
    expectPrivate(laptop, 'pull');
    expect(storedCount(laptop, id)).toBe(storedCount(home, id));
    // The pushed-to repository is not under SP_HOME: its modes are the user's (git's own) business.
    const redacted = sp('sp-redact', ['-q'], { home, input: claudeDebug });
    expect(redacted.status, redacted.stderr).toBe(0);
    expect(existsSync(join(home, 'keys', 'redact.key'))).toBe(true);
    expectPrivate(home, 'sp-redact');
    const fresh = join(work, 'fresh');
    expect(sp('sp-redact', ['-q'], { home: fresh, input: claudeDebug }).status).toBe(0);
    expectPrivate(fresh, 'sp-redact creating SP_HOME');
  });

  it('removes a stale temp file of a dead process on the next run, and its lock and nothing else when interrupted', async () => {
    const home = tempDir('sp-sec-');
    expect(sp('sp-sync', ['ingest', '-q'], { home, input: claudeDebug }).status).toBe(0);
    const store = join(home, 'store');
    const stale = join(store, '.remotes.json.999999.0a1b2c3d.tmp');
    const lively = join(store, `.remotes.json.${process.pid}.0a1b2c3d.tmp`); // a live pid's: not stale
    writeFileSync(stale, 'half', { mode: 0o600 });
    writeFileSync(lively, 'half', { mode: 0o600 });
    expect(sp('sp-sync', ['ingest', '-q'], { home, input: claudeDebug }).status).toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(lively)).toBe(true);
    rmSync(lively);

    // An ingest waiting on stdin holds the lock; SIGTERM ends it and takes the lock with it.
    const child = spawn(process.execPath, [bin('sp-sync'), 'ingest', '-q'], { env: { ...process.env, SP_HOME: home, SP_PROGRESS: '0' }, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const lock = join(store, 'lock');
    for (let i = 0; i < 400 && !existsSync(lock); i++) await new Promise((r) => setTimeout(r, 25));
    expect(existsSync(lock)).toBe(true);
    child.stdin.write(claudeDebug.split('\n')[0] + '\n');
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    child.kill('SIGTERM');
    const { code, signal } = await ended;
    expect(signal ?? code).toBe('SIGTERM');
    expect(stderr).toBe('');
    expect(existsSync(lock)).toBe(false);
    expect(readdirSync(store).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(sp('sp-verify', ['--store', store], { home }).status).toBe(0);
  });
});

describe('the store cannot be talked round', () => {
  it('a removed manifest with an edited log and a hand-written journal: damage, named, other sessions still ingest', () => {
    const home = tempDir('sp-sec-');
    const both = claudeDebug + claudeLong;
    const ids = sessionIds(both);
    const [a, b] = ids;
    // B gets only part of its events now, the rest after the attack.
    const bEvents = eventsOf(both, b).trim().split('\n');
    const firstB = bEvents.slice(0, 3).join('\n') + '\n';
    expect(sp('sp-sync', ['ingest', '-q'], { home, input: eventsOf(both, a) + firstB }).status).toBe(0);
    const store = join(home, 'store');
    const dir = join(store, 'sessions', a);
    const logPath = join(dir, 'events.jsonl');
    writeFileSync(logPath, readFileSync(logPath, 'utf8').replace(/"text":"[^"]{3}/, '"text":"pwn'));
    rmSync(join(dir, 'manifest.json'));
    writeFileSync(join(store, 'journal'), a + '\n');
    const tampered = readFileSync(logPath);

    const verify = sp('sp-verify', ['--store', store], { home });
    expect(verify.status).toBe(1);
    expect(verify.stdout).toMatch(new RegExp(`FAILED  ${a} \\(stored\\): .*no manifest, but the log holds ${tampered.length} bytes`));
    expect(verify.stdout).not.toMatch(/not acknowledged yet/);

    const intoB = sp('sp-sync', ['ingest', '--json'], { home, input: bEvents.join('\n') + '\n' });
    expect(intoB.status, intoB.stderr).toBe(0);
    expect(JSON.parse(intoB.stdout).added).toBe(bEvents.length - 3);
    expect(diagnostics(intoB.stderr, 'sp-sync')).toEqual([]);

    const intoA = sp('sp-sync', ['ingest', '-q'], { home, input: eventsOf(both, a) });
    expect(intoA.status).toBe(2);
    const lines = diagnostics(intoA.stderr, 'sp-sync');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`events.jsonl: damaged at offset 0: ${tampered.length} bytes .*not adopted.*${a}: \\d+ events not stored, nor any after$`));
    // Nothing adopted, nothing signed, nothing cut.
    expect(readFileSync(logPath).equals(tampered)).toBe(true);
    expect(existsSync(join(dir, 'manifest.json'))).toBe(false);
    expect(sp('sp-verify', ['--store', store], { home }).status).toBe(1);
  });

  it('a chained line appended past the manifest: not adopted, not signed, named with its offset; the doctor\'s repair restores the signed state', () => {
    const home = tempDir('sp-sec-');
    const [a] = sessionIds(claudeDebug);
    const [b] = sessionIds(claudeLong);
    expect(sp('sp-sync', ['ingest', '-q'], { home, input: claudeDebug + eventsOf(claudeLong, b).split('\n').slice(0, 2).join('\n') + '\n' }).status).toBe(0);
    const store = join(home, 'store');
    const dir = join(store, 'sessions', a);
    const logPath = join(dir, 'events.jsonl');
    const manifestBefore = readFileSync(join(dir, 'manifest.json'));
    const signedBytes = (JSON.parse(manifestBefore.toString()) as { bytes: number }).bytes;
    const eventsBefore = storedCount(home, a);
    const forged = chainedNext(logPath, 'the attacker was here');
    appendFileSync(logPath, forged);
    const grown = readFileSync(logPath);
    // The forged line chains: a stream verifier alone would accept the log.
    expect(spawnSync(process.execPath, [bin('sp-verify'), '-q'], { input: grown }).status).toBe(0);

    const verify = sp('sp-verify', ['--store', store], { home });
    expect(verify.status).toBe(1);
    expect(verify.stdout).toContain(`${logPath}: damaged at offset ${signedBytes}: ${forged.length} bytes past the end the signed manifest acknowledges`);

    const intoA = sp('sp-sync', ['ingest', '-q'], { home, input: claudeDebug });
    expect(intoA.status).toBe(2);
    const lines = diagnostics(intoA.stderr, 'sp-sync');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${logPath}: damaged at offset ${signedBytes}: ${forged.length} bytes past the end its signed manifest acknowledges, which no journaled append`);
    expect(readFileSync(join(dir, 'manifest.json')).equals(manifestBefore)).toBe(true);
    expect(readFileSync(logPath).equals(grown)).toBe(true);
    expect(storedCount(home, a)).toBe(eventsBefore);
    expect(sp('sp-sync', ['search', 'attacker'], { home }).status).toBe(1);

    // Another session is not held up.
    const intoB = sp('sp-sync', ['ingest', '--json'], { home, input: eventsOf(claudeLong, b) });
    expect(intoB.status, intoB.stderr).toBe(0);
    expect(JSON.parse(intoB.stdout).added).toBeGreaterThan(0);

    // sp doctor names it and says how to repair it: back to the signed state, with a backup.
    const doctor = sp('sp-doctor', ['--no-agents', '--json'], { home });
    expect(doctor.status).toBe(1);
    const finding = parseLines(doctor.stdout).find((f) => f.check === 'store' && f.status === 'problem');
    expect(finding?.subject).toBe(dir);
    expect(String(finding?.fix)).toContain(`truncate -s ${signedBytes}`);
    expect(finding?.safe).toBeUndefined();
    const repaired = spawnSync('sh', ['-c', String(finding!.fix)]);
    expect(repaired.status, repaired.stderr.toString()).toBe(0);
    expect(readFileSync(join(home, 'damaged', `${a}.events.jsonl`)).equals(grown)).toBe(true);
    expect(sp('sp-verify', ['--store', store], { home }).status).toBe(0);
    expect(sp('sp-sync', ['ingest', '-q'], { home, input: claudeDebug }).status).toBe(0);
  });

  it('a journal entry signed by another key covers nothing', () => {
    const home = tempDir('sp-sec-');
    const [a] = sessionIds(claudeDebug);
    expect(sp('sp-sync', ['ingest', '-q'], { home, input: claudeDebug }).status).toBe(0);
    const store = join(home, 'store');
    const logPath = join(store, 'sessions', a, 'events.jsonl');
    const signedBytes = statSync(logPath).size;
    const forged = chainedNext(logPath, 'forged with a journal');
    const { privateKey } = generateKeyPairSync('ed25519');
    const publicKey = createPublicKey(privateKey);
    const publicRaw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
    const stranger: KeyPair = { keyId: keyIdOf(publicRaw), privateKey: createPrivateKey(privateKey.export({ format: 'pem', type: 'pkcs8' })), publicKey, publicRaw };
    journalAppend(store, { session: a, start: signedBytes, end: signedBytes + forged.length, sha256: sha256(forged) }, stranger);
    appendFileSync(logPath, forged);
    const r = sp('sp-sync', ['ingest', '-q'], { home, input: claudeDebug });
    expect(r.status).toBe(2);
    expect(diagnostics(r.stderr, 'sp-sync')).toHaveLength(1);
    expect(r.stderr).toContain(`damaged at offset ${signedBytes}`);
    expect(statSync(logPath).size).toBe(signedBytes + forged.length);
    expect(sp('sp-verify', ['--store', store], { home }).status).toBe(1);
  });
});

describe('crash recovery through the journal', () => {
  it('completes a journaled append whose bytes all landed, and cuts a torn one back to the signed end', () => {
    const home = tempDir('sp-sec-');
    const [a] = sessionIds(claudeDebug);
    expect(sp('sp-sync', ['ingest', '-q'], { home, input: claudeDebug }).status).toBe(0);
    const store = join(home, 'store');
    const logPath = join(store, 'sessions', a, 'events.jsonl');
    const keys = loadKeys(home)!;
    const before = storedCount(home, a);

    // Killed after the append, before the manifest: the bytes are exactly the journaled ones.
    const landed = chainedNext(logPath, 'written before the crash');
    const start = statSync(logPath).size;
    journalAppend(store, { session: a, start, end: start + landed.length, sha256: sha256(landed) }, keys);
    appendFileSync(logPath, landed);
    expect(sp('sp-verify', ['--store', store], { home }).status).toBe(0); // an append in progress is no damage
    const completed = sp('sp-sync', ['ingest', '-q'], { home, input: claudeDebug });
    expect(completed.status, completed.stderr).toBe(0);
    expect(storedCount(home, a)).toBe(before + 1);
    expect(existsSync(join(store, 'journal'))).toBe(false);
    expect(sp('sp-verify', ['--store', store], { home }).status).toBe(0);

    // Killed half-way through the append: cut back to the signed end, nothing else touched.
    const signed = readFileSync(logPath);
    const next = chainedNext(logPath, 'torn by the crash');
    journalAppend(store, { session: a, start: signed.length, end: signed.length + next.length, sha256: sha256(next) }, keys);
    appendFileSync(logPath, next.subarray(0, 20));
    const cut = sp('sp-sync', ['ingest', '-q'], { home, input: claudeDebug });
    expect(cut.status, cut.stderr).toBe(0);
    expect(diagnostics(cut.stderr, 'sp-sync')).toEqual([`sp-sync: ${logPath}: repaired: an interrupted append cut back to the signed end (${signed.length} bytes)`]);
    expect(readFileSync(logPath).equals(signed)).toBe(true);
    expect(sp('sp-verify', ['--store', store], { home }).status).toBe(0);
  });

  it('an ingest killed with SIGKILL mid-write is recovered cleanly by the next one, run after run', async () => {
    const home = tempDir('sp-sec-');
    const input = claudeDebug + claudeLong;
    const total = parseLines(input).length;
    const store = join(home, 'store');
    let midWrite = 0;
    for (let run = 0; run < 5; run++) {
      const child = spawn(process.execPath, [bin('sp-sync'), 'ingest', '-q'], { env: { ...process.env, SP_HOME: home, SP_PROGRESS: '0', SP_INGEST_BATCH: '1' }, stdio: ['pipe', 'ignore', 'ignore'] });
      child.stdin.on('error', () => {});
      child.stdin.end(input);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      // The journal exists from the first append to the clean close: kill inside that window.
      for (let i = 0; i < 800 && child.exitCode === null && !existsSync(join(store, 'journal')); i++) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, run * 25));
      if (child.exitCode === null && existsSync(join(store, 'journal'))) {
        child.kill('SIGKILL');
        midWrite += 1;
      }
      await exited;
      const after = sp('sp-sync', ['ingest', '-q'], { home, input });
      expect(after.status, after.stderr).toBe(0);
      expect(diagnostics(after.stderr, 'sp-sync').filter((l) => !/repaired: an interrupted append cut back/.test(l))).toEqual([]);
      const verify = sp('sp-verify', ['--store', store], { home });
      expect(verify.status, verify.stdout).toBe(0);
      const stored = parseLines(sp('sp-sync', ['ls', '--json'], { home }).stdout).reduce((n, s) => n + Number(s.events), 0);
      expect(stored).toBe(total);
      rmSync(store, { recursive: true, force: true });
    }
    expect(midWrite).toBeGreaterThanOrEqual(3);
  });
});

describe('schema at ingest', () => {
  it('refuses an event that fails the schema, naming its line; the rest is stored and the session verifies', () => {
    const home = tempDir('sp-sec-');
    const lines = claudeDebug.trim().split('\n');
    const [a] = sessionIds(claudeDebug);
    const bad = { ...(JSON.parse(lines[1]) as Record<string, unknown>), type: 'tool.call', payload: { name: 'Bash' } };
    const input = [lines[0], JSON.stringify(bad), ...lines.slice(2)].join('\n') + '\n';
    const r = sp('sp-sync', ['ingest'], { home, input });
    expect(r.status).toBe(2);
    expect(diagnostics(r.stderr, 'sp-sync')[0]).toBe("sp-sync: stdin:2: schema: /payload must have required property 'call_id'; not stored");
    // and the summary, and what the next search adds to the index (the text is indexed after the log)
    expect(diagnostics(r.stderr, 'sp-sync').slice(1)).toEqual([expect.stringMatching(/new events? stored/), expect.stringMatching(/to add to the search index/)]);
    const stored = parseLines(sp('sp-sync', ['log', a], { home }).stdout);
    expect(stored).toHaveLength(lines.length - 1);
    expect(stored.some((e) => e.type === 'tool.call' && !(e.payload as Record<string, unknown>).call_id)).toBe(false);
    expect(sp('sp-verify', ['--store', join(home, 'store')], { home }).status).toBe(0);
  });
});

describe('sp doctor', () => {
  it('finds a 0644 file, a stale lock, a stale temp file and a trusted key that does not parse; --fix repairs the safe ones', () => {
    const home = tempDir('sp-sec-');
    expect(sp('sp-sync', ['ingest', '-q'], { home, input: claudeDebug }).status).toBe(0);
    const store = join(home, 'store');
    const clean = sp('sp-doctor', ['--no-agents'], { home });
    expect(clean.status, clean.stdout).toBe(0);
    expect(clean.stdout).not.toMatch(/PROBLEM/);

    chmodSync(join(store, 'index.sqlite'), 0o644);
    chmodSync(home, 0o755);
    writeFileSync(join(store, 'lock'), `999999 ${hostname()}\n`, { mode: 0o600 });
    const temp = join(store, 'sessions', sessionIds(claudeDebug)[0], '.manifest.json.999998.00ff00ff.tmp');
    writeFileSync(temp, '{', { mode: 0o600 });
    // A writer killed after staging its lock and before linking it into place leaves the staging file.
    const stagedLock = join(store, 'lock.new.999997');
    writeFileSync(stagedLock, `999997 ${hostname()}\n`, { mode: 0o600 });
    const badKey = join(home, 'keys', 'trusted', 'mallory.pub');
    mkdirSync(join(home, 'keys', 'trusted'), { recursive: true });
    writeFileSync(badKey, 'not a key\n', { mode: 0o600 });

    const found = sp('sp-doctor', ['--no-agents'], { home });
    expect(found.status).toBe(1);
    const problems = found.stdout.split('\n').filter((l) => l.startsWith('PROBLEM'));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`permissions: ${join(store, 'index.sqlite')}: mode 0644, should be 0600 (other local users can read it) — fix: chmod 600 ${join(store, 'index.sqlite')}`),
        expect.stringContaining(`permissions: ${home}: mode 0755, should be 0700`),
        expect.stringContaining(`locks: ${join(store, 'lock')}: a lock left by pid 999999, which is not running — fix: rm ${join(store, 'lock')}`),
        expect.stringContaining(`temp: ${temp}: a temp file left by a process that died (pid 999998)`),
        expect.stringContaining(`temp: ${stagedLock}: a temp file left by a process that died (pid 999997)`),
        expect.stringContaining(`trusted: ${badKey}: does not parse as an Ed25519 public key`),
      ]),
    );
    expect(problems).toHaveLength(6);
    expect(found.stderr).toBe('sp-doctor: 6 problems (5 fixable with --fix)\n');

    const json = parseLines(sp('sp-doctor', ['--no-agents', '--json'], { home }).stdout);
    expect(json.filter((f) => f.status === 'problem').map((f) => f.check).sort()).toEqual(['locks', 'permissions', 'permissions', 'temp', 'temp', 'trusted']);

    const fixed = sp('sp-doctor', ['--no-agents', '--fix'], { home });
    expect(fixed.status).toBe(1); // the key file is not the doctor's to delete
    expect(fixed.stdout.split('\n').filter((l) => l.startsWith('fixed'))).toHaveLength(5);
    expect(statSync(join(store, 'index.sqlite')).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(existsSync(join(store, 'lock'))).toBe(false);
    expect(existsSync(temp)).toBe(false);
    expect(existsSync(stagedLock)).toBe(false);
    expect(existsSync(badKey)).toBe(true);

    rmSync(badKey);
    const after = sp('sp-doctor', ['--no-agents'], { home });
    expect(after.status, after.stdout).toBe(0);
    expectPrivate(home, 'sp doctor --fix');
  });

  it('is reachable as `sp doctor`, reports agent clients on PATH with their versions, and a dir remote that is gone', () => {
    const home = tempDir('sp-sec-');
    const work = tempDir('sp-sec-');
    const path = join(work, 'bin');
    mkdirSync(path);
    writeFileSync(join(path, 'claude'), '#!/bin/sh\necho "9.9.9 (Claude Code)"\n', { mode: 0o755 });
    writeFileSync(join(path, 'codex'), '#!/bin/sh\nsleep 30 &\nsleep 30\n', { mode: 0o755 }); // hangs, with a child holding its stdout
    expect(sp('sp-sync', ['remote', 'add', 'nas', `dir:${join(work, 'nas')}`], { home }).status).toBe(0);
    const r = spawnSync(process.execPath, [bin('sp'), 'doctor'], { env: { ...process.env, SP_HOME: home, PATH: `${path}:/usr/bin:/bin` }, encoding: 'utf8', timeout: 30_000 });
    expect(r.stdout).toContain(`ok      agents: claude: 9.9.9 (Claude Code) (${join(path, 'claude')})`);
    expect(r.stdout).toContain(`info    agents: codex: ${join(path, 'codex')} does not answer --version within 5 s`);
    // The commands come from the adapters: npm-pinned clients (gemini, cn) and the others (aider, goose).
    const missing = /info {4}agents: PATH: not installed: (.*)/.exec(r.stdout)?.[1].split(', ') ?? [];
    expect(missing).toEqual(expect.arrayContaining(['gemini', 'cn', 'auggie', 'aider', 'cursor-agent', 'hermes', 'goose']));
    expect(missing).not.toContain('claude');
    expect(r.stdout).toContain(`PROBLEM remotes: nas: dir ${join(work, 'nas')} is not a folder this user can read and write — fix: mkdir -p ${join(work, 'nas')}`);
    expect(r.status).toBe(1);
    mkdirSync(join(work, 'nas'));
    const ok = spawnSync(process.execPath, [bin('sp'), 'doctor', '--no-agents'], { env: { ...process.env, SP_HOME: home }, encoding: 'utf8' });
    expect(ok.stdout).toContain(`ok      remotes: nas: dir ${join(work, 'nas')} reachable`);
    expect(ok.status, ok.stdout).toBe(0);
  });
});

describe('red team', () => {
  it('sp doctor --fix does not chmod through a symlink swapped in after the check (file and folder)', async () => {
    const home = tempDir('sp-sec-doctor-swap-');
    const outside = tempDir('sp-sec-outside-');
    mkdirSync(join(home, 'store', 'loose'), { recursive: true });
    writeFileSync(join(home, 'store', 'notes.txt'), 'x');
    chmodSync(join(home, 'store', 'notes.txt'), 0o644);
    chmodSync(join(home, 'store', 'loose'), 0o755);
    writeFileSync(join(outside, 'target.txt'), 'not sp\'s');
    chmodSync(join(outside, 'target.txt'), 0o644);
    mkdirSync(join(outside, 'dir'));
    chmodSync(join(outside, 'dir'), 0o755);
    const findings = await diagnose({ home, store: join(home, 'store'), agents: false });
    const planned = findings.filter((f) => f.check === 'permissions' && f.safe).map((f) => f.subject);
    expect(planned).toEqual(expect.arrayContaining([join(home, 'store', 'notes.txt'), join(home, 'store', 'loose')]));
    // The race: between the check and the fix, each path becomes a link to something outside.
    rmSync(join(home, 'store', 'notes.txt'));
    symlinkSync(join(outside, 'target.txt'), join(home, 'store', 'notes.txt'));
    rmSync(join(home, 'store', 'loose'), { recursive: true });
    symlinkSync(join(outside, 'dir'), join(home, 'store', 'loose'));
    applySafeFixes(findings);
    expect(statSync(join(outside, 'target.txt')).mode & 0o777).toBe(0o644);
    expect(statSync(join(outside, 'dir')).mode & 0o777).toBe(0o755);
    for (const subject of [join(home, 'store', 'notes.txt'), join(home, 'store', 'loose')]) {
      const f = findings.find((x) => x.subject === subject && x.check === 'permissions')!;
      expect(f.status).toBe('problem');
      expect(f.message).toMatch(/--fix failed: .*changed since it was checked/);
    }
  });

  it('sp doctor --fix on an SP_HOME that is itself a symlink (made by the user) fixes its target', async () => {
    const real = tempDir('sp-sec-real-home-');
    chmodSync(real, 0o755);
    const link = join(tempDir('sp-sec-link-'), 'home');
    symlinkSync(real, link);
    const findings = await diagnose({ home: link, store: join(link, 'store'), agents: false });
    applySafeFixes(findings);
    expect(findings.find((f) => f.subject === link)?.status).toBe('fixed');
    expect(statSync(real).mode & 0o777).toBe(0o700);
  });
});
