// The store: ingest idempotence and growth on corpus captures, log back out byte-identical and
// verifiable, search (CJK, identifiers, short queries), reindex = incremental index, signatures and
// tamper detection, fork lineage, handoff receipts, tombstones, torn-tail repair, the lock.
import { describe, expect, it, beforeAll, vi } from 'vitest';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { CORPUS, capture, parseLines, sp, tempDir } from './support/store.js';
import { Store, recordHandoff, verifyStore, trustedKeys, loadKeys } from '../lib/store/index.js';

// Every step spawns node; on a loaded shared machine one test can take a minute.
vi.setConfig({ testTimeout: 180_000 });

let claudeLong: string;
let claudeDebug: string;
let codexLong: string;
let piLong: string;

beforeAll(() => {
  claudeLong = capture('claude', CORPUS.claudeLong);
  claudeDebug = capture('claude', CORPUS.claudeDebug);
  codexLong = capture('codex', CORPUS.codexLong);
  piLong = capture('pi', CORPUS.piLong);
}, 120_000);

function sessionsOf(ndjson: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of ndjson.split('\n').filter(Boolean)) {
    const id = (JSON.parse(line) as { session: string }).session;
    if (!out.has(id)) out.set(id, []);
    out.get(id)!.push(line);
  }
  return out;
}

describe('sp-sync ingest', () => {
  it('stores corpus captures once: a second ingest adds nothing, a grown session adds only its new events', () => {
    const home = tempDir();
    const all = claudeLong.split('\n').filter(Boolean);
    const prefix = all.slice(0, 100).join('\n') + '\n';
    const first = sp('sp-sync', ['ingest', '--json'], { home, input: prefix });
    expect(first.status).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ added: 100, skipped: 0 });

    const grown = sp('sp-sync', ['ingest', '--json'], { home, input: claudeLong });
    expect(grown.status).toBe(0);
    expect(JSON.parse(grown.stdout)).toMatchObject({ added: all.length - 100, skipped: 100 });

    const again = sp('sp-sync', ['ingest', '--json'], { home, input: claudeLong });
    expect(JSON.parse(again.stdout)).toMatchObject({ added: 0, skipped: all.length });

    // Written back, each session is the capture byte for byte (same seqs, same chain) and verifies.
    for (const [id, lines] of sessionsOf(claudeLong)) {
      const log = sp('sp-sync', ['log', id], { home });
      expect(log.status).toBe(0);
      expect(log.stdout).toBe(lines.join('\n') + '\n');
      const verified = sp('sp-verify', ['-'], { home, input: log.stdout });
      expect(verified.status).toBe(0);
    }
    const since = sp('sp-sync', ['log', [...sessionsOf(claudeLong).keys()][0], '--since', '50'], { home });
    expect(parseLines(since.stdout)[0].seq).toBe(50);
  });

  it('is idempotent for codex and pi captures too, and ls lists what it stored', () => {
    const home = tempDir();
    for (const text of [codexLong, piLong]) {
      const n = text.split('\n').filter(Boolean).length;
      expect(JSON.parse(sp('sp-sync', ['ingest', '--json'], { home, input: text }).stdout).added).toBe(n);
      expect(JSON.parse(sp('sp-sync', ['ingest', '--json'], { home, input: text }).stdout)).toMatchObject({ added: 0, skipped: n });
    }
    const ls = parseLines(sp('sp-sync', ['ls', '--json'], { home }).stdout);
    expect(ls.map((s) => s.agent).sort()).toEqual(['codex', 'pi']);
    for (const s of ls) expect(s.title).toBeTruthy();
  });

  it('re-chains new events onto the stored tail when their seqs do not line up', () => {
    const home = tempDir();
    sp('sp-sync', ['ingest'], { home, input: piLong });
    const [id, lines] = [...sessionsOf(piLong)][0];
    const extra = [0, 1].map((i) => JSON.stringify({ session: id, seq: 900 + i, ts: 1_800_000_000 + i, agent: 'pi', type: 'message.user', payload: { content: [{ type: 'text', text: `later ${i}` }] } }));
    const r = sp('sp-sync', ['ingest', '--json'], { home, input: extra.join('\n') + '\n' });
    expect(JSON.parse(r.stdout).added).toBe(2);
    const log = parseLines(sp('sp-sync', ['log', id], { home }).stdout);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i));
    expect(log.length).toBe(lines.length + 2);
    expect(sp('sp-verify', ['-'], { home, input: log.map((e) => JSON.stringify(e)).join('\n') + '\n' }).status).toBe(0);
  });

  it('rejects lines that are not events, stores the rest, exits 2', () => {
    const home = tempDir();
    const good = claudeDebug.split('\n')[0];
    const r = sp('sp-sync', ['ingest'], { home, input: `${good}\n{"not":"an event"}\nnot json\n` });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/stdin:2: not stored: no usable "session"/);
    expect(r.stderr).toMatch(/stdin:3: invalid JSON .*: not json; not stored/);
    expect(parseLines(sp('sp-sync', ['ls', '--json'], { home }).stdout)[0].events).toBe(1);
  });

  it('a line that is not JSON alone also makes the exit status 2, after the good events are stored', () => {
    const home = tempDir();
    const [first, second] = claudeDebug.split('\n');
    const r = sp('sp-sync', ['ingest'], { home, input: `${first}\n{"torn":\n${second}\n` });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^sp-sync: stdin:2: invalid JSON/m);
    expect(parseLines(sp('sp-sync', ['ls', '--json'], { home }).stdout)[0].events).toBe(2);
  });
});

describe('search', () => {
  it('finds a Chinese substring, a code identifier, and short queries', () => {
    const home = tempDir();
    sp('sp-sync', ['ingest'], { home, input: claudeDebug + claudeLong });
    const debugId = [...sessionsOf(claudeDebug).keys()][0];
    const cjk = parseLines(sp('sp-sync', ['search', '测试失败', '--json'], { home }).stdout);
    expect(cjk.length).toBeGreaterThan(0);
    expect(cjk.every((h) => h.session === debugId)).toBe(true);
    expect(String(cjk[0].snippet)).toContain('测试失败');
    const ident = parseLines(sp('sp-sync', ['search', 'deepEqual', '--json'], { home }).stdout);
    expect(ident.length).toBeGreaterThan(0);
    expect(String(ident[0].snippet)).toContain('deepEqual');
    // Two characters are below the trigram size: a scan finds them all the same.
    const short = parseLines(sp('sp-sync', ['search', '失败', '--json'], { home }).stdout);
    expect(short.length).toBeGreaterThanOrEqual(cjk.length);
    const none = sp('sp-sync', ['search', 'zzqqxx-nowhere'], { home });
    expect(none.status).toBe(1);
  });
});

function dumpIndex(dir: string): string {
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const db = new Database(join(dir, 'index.sqlite'), { readonly: true });
  const out = JSON.stringify([
    db.prepare('SELECT * FROM sessions ORDER BY id').all(),
    db.prepare('SELECT * FROM events ORDER BY session, seq').all(),
    db.prepare('SELECT session, seq, text FROM fts ORDER BY session, seq').all(),
    db.prepare('SELECT * FROM fts_mark ORDER BY session').all(),
  ]);
  db.close();
  return out;
}

describe('reindex', () => {
  it('rebuilds an index equal to the incremental one', () => {
    const home = tempDir();
    const lines = claudeLong.split('\n').filter(Boolean);
    // Built incrementally in three ingests, with a fork and a tombstone in between.
    sp('sp-sync', ['ingest'], { home, input: lines.slice(0, 40).join('\n') + '\n' });
    sp('sp-sync', ['ingest'], { home, input: lines.slice(0, 120).join('\n') + '\n' + claudeDebug });
    sp('sp-sync', ['ingest'], { home, input: claudeLong });
    const id = [...sessionsOf(claudeLong).keys()][0];
    expect(sp('sp-sync', ['fork', id, '--at', '5', '--reason', 'try another way'], { home }).status).toBe(0);
    expect(sp('sp-sync', ['rm', [...sessionsOf(claudeDebug).keys()][0]], { home }).status).toBe(0);
    const storeDir = join(home, 'store');
    // The search text goes in after the log: a search adds what the writers left (search-index.ts).
    sp('sp-sync', ['search', 'todos'], { home });
    const before = dumpIndex(storeDir);
    expect(sp('sp-sync', ['reindex'], { home }).status).toBe(0);
    expect(dumpIndex(storeDir)).toBe(before);
  });
});

describe('identity and tamper detection', () => {
  it('signs manifests; sp-verify reports a changed event, a changed manifest and an unknown signer', () => {
    const home = tempDir();
    expect(sp('sp-sync', ['keygen'], { home }).stdout).toMatch(/^ed25519:[0-9a-f]{32}\n$/);
    expect(statSync(join(home, 'keys/id_ed25519')).mode & 0o777).toBe(0o600);
    sp('sp-sync', ['ingest'], { home, input: claudeDebug });
    const storeDir = join(home, 'store');
    const ok = sp('sp-verify', ['--store', storeDir], { home });
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    const id = [...sessionsOf(claudeDebug).keys()][0];
    const manifest = JSON.parse(readFileSync(join(storeDir, 'sessions', id, 'manifest.json'), 'utf8'));
    expect(manifest.signature.key_id).toMatch(/^ed25519:/);
    expect(manifest.session_uri).toBe(`session://local/acme-api/${manifest.session_uri.split('/')[4]}/${id}`);

    // Another SP_HOME does not know the signer, until it trusts the public key.
    const other = tempDir();
    const unknown = sp('sp-verify', ['--store', storeDir], { home: other });
    expect(unknown.status).toBe(1);
    expect(unknown.stdout).toMatch(/unknown signer/);
    mkdirSync(join(other, 'keys/trusted'), { recursive: true });
    copyFileSync(join(home, 'keys/id_ed25519.pub'), join(other, 'keys/trusted/alice.pub'));
    expect(sp('sp-verify', ['--store', storeDir], { home: other }).status).toBe(0);

    // An edited manifest: bad signature.
    const manifestPath = join(storeDir, 'sessions', id, 'manifest.json');
    const original = readFileSync(manifestPath, 'utf8');
    writeFileSync(manifestPath, original.replace(/"title": "[^"]*"/, '"title": "something else"'));
    const badManifest = sp('sp-verify', [join(storeDir, 'sessions', id)], { home });
    expect(badManifest.status).toBe(1);
    expect(badManifest.stdout).toMatch(/bad signature/);
    writeFileSync(manifestPath, original);

    // An edited event: the chain breaks.
    const logPath = join(storeDir, 'sessions', id, 'events.jsonl');
    const log = readFileSync(logPath, 'utf8');
    writeFileSync(logPath, log.replace('测试失败', '测试成功'));
    const badEvent = sp('sp-verify', ['--store', storeDir], { home });
    expect(badEvent.status).toBe(1);
    expect(badEvent.stdout).toMatch(/modified/);

    // A cut-back log: verify says events were removed, and a writer refuses to heal over it.
    writeFileSync(logPath, log.slice(0, Math.floor(log.length / 2)).replace(/[^\n]*$/, ''));
    const cut = sp('sp-verify', ['--store', storeDir], { home });
    expect(cut.status).toBe(1);
    expect(cut.stdout).toMatch(/shorter .* than its manifest says/);
    const refused = sp('sp-sync', ['ingest'], { home, input: claudeDebug });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/events were removed/);
  });
});

describe('fork, handoff, tombstone', () => {
  it('forks a session at a seq with lineage in the manifest and a session.fork event', async () => {
    const home = tempDir();
    sp('sp-sync', ['ingest'], { home, input: claudeDebug });
    const parent = [...sessionsOf(claudeDebug).keys()][0];
    const r = sp('sp-sync', ['fork', parent, '--at', '10', '--reason', 'hand to codex', '--json'], { home });
    expect(r.status, r.stderr).toBe(0);
    const child = JSON.parse(r.stdout).session as string;
    const storeDir = join(home, 'store');
    const m = JSON.parse(readFileSync(join(storeDir, 'sessions', child, 'manifest.json'), 'utf8'));
    expect(m).toMatchObject({ parent_session: parent, lineage: { root: parent, fork_of: parent, fork_seq: 10, reason: 'hand to codex' }, event_count: 12 });
    const events = parseLines(sp('sp-sync', ['log', child], { home }).stdout);
    const parentEvents = parseLines(sp('sp-sync', ['log', parent], { home }).stdout);
    expect(events.length).toBe(12);
    const strip = (e: Record<string, unknown>) => ({ ...e, session: undefined, checksum: undefined });
    expect(events.slice(0, 11).map(strip)).toEqual(parentEvents.slice(0, 11).map(strip));
    expect(events[11]).toMatchObject({ type: 'session.fork', parent_seq: 10, payload: { from_session: parent, from_seq: 10, to_session: child } });
    expect(sp('sp-verify', ['--store', storeDir], { home }).status).toBe(0);
    // A fork of the fork keeps the root.
    const grand = JSON.parse(sp('sp-sync', ['fork', child, '--at', '3', '--reason', 'again', '--json'], { home }).stdout).session;
    expect(JSON.parse(readFileSync(join(storeDir, 'sessions', grand, 'manifest.json'), 'utf8')).lineage).toMatchObject({ root: parent, fork_of: child });
    expect(sp('sp-sync', ['fork', parent, '--at', '999', '--reason', 'x'], { home }).status).toBe(2);
  });

  it('records a handoff: event, signed receipt that sp-verify checks, owner moved', () => {
    const home = tempDir();
    sp('sp-sync', ['ingest'], { home, input: claudeDebug });
    const id = [...sessionsOf(claudeDebug).keys()][0];
    const storeDir = join(home, 'store');
    const prev = process.env.SP_HOME;
    process.env.SP_HOME = home;
    let receiptPath: string;
    try {
      const store = Store.open(storeDir, { home });
      try {
        receiptPath = recordHandoff(store, { sourceSession: id, fromAgent: 'claude', toAgent: 'codex', targetSessionId: '019a-target', note: 'continue the fix' }).receiptPath;
      } finally {
        store.close();
      }
    } finally {
      if (prev === undefined) delete process.env.SP_HOME;
      else process.env.SP_HOME = prev;
    }
    const m = JSON.parse(readFileSync(join(storeDir, 'sessions', id, 'manifest.json'), 'utf8'));
    expect(m.current_owner).toMatchObject({ agent: 'codex' });
    expect(m.owner_history.map((o: { agent: string }) => o.agent)).toEqual(['claude', 'codex']);
    const last = parseLines(sp('sp-sync', ['log', id], { home }).stdout).pop()!;
    expect(last).toMatchObject({ type: 'handoff', payload: { from_agent: 'claude', to_agent: 'codex', target_session: '019a-target', note: 'continue the fix' } });
    expect(parseLines(sp('sp-sync', ['ls', '--json'], { home }).stdout)[0].owner).toBe('codex');
    const ok = sp('sp-verify', ['--receipt', receiptPath!, '--store', storeDir], { home });
    expect(ok.status, ok.stdout).toBe(0);
    expect(sp('sp-verify', [receiptPath!], { home }).status).toBe(0); // detected by shape
    const receipt = readFileSync(receiptPath!, 'utf8');
    writeFileSync(receiptPath!, receipt.replace('"to_agent": "codex"', '"to_agent": "pi"'));
    const bad = sp('sp-verify', [receiptPath!], { home });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/bad signature/);
  });

  it('rm appends a tombstone: ls hides the session, nothing is removed', () => {
    const home = tempDir();
    sp('sp-sync', ['ingest'], { home, input: claudeDebug + piLong });
    const id = [...sessionsOf(claudeDebug).keys()][0];
    const logPath = join(home, 'store/sessions', id, 'events.jsonl');
    const before = readFileSync(logPath);
    const size = before.length;
    expect(sp('sp-sync', ['rm', id, '--reason', 'obsolete'], { home }).status).toBe(0);
    expect(sp('sp-sync', ['ls', '--json'], { home }).stdout).not.toContain(id);
    expect(sp('sp-sync', ['ls', '--all', '--json'], { home }).stdout).toContain(id);
    expect(statSync(logPath).size).toBeGreaterThan(size);
    expect(readFileSync(logPath).subarray(0, size).equals(before)).toBe(true);
    expect(parseLines(sp('sp-sync', ['search', '测试失败', '--json'], { home }).stdout)).toEqual([]);
  });
});

describe('crash leftovers and the lock', () => {
  it('cuts an interrupted journaled append back to the signed end on the next write and leaves everything before it untouched', async () => {
    const home = tempDir();
    sp('sp-sync', ['ingest'], { home, input: claudeDebug });
    const id = [...sessionsOf(claudeDebug).keys()][0];
    const storeDir = join(home, 'store');
    const logPath = join(storeDir, 'sessions', id, 'events.jsonl');
    const before = readFileSync(logPath);
    // What a writer killed mid-append leaves: its signed journal entry, and part of the bytes.
    const torn = Buffer.from('{"session":"' + id + '","seq":9');
    const { journalAppend } = await import('../lib/store/journal.js');
    const { createHash } = await import('node:crypto');
    const whole = Buffer.concat([torn, Buffer.from('9,"type":"meta"}\n')]);
    journalAppend(storeDir, { session: id, start: before.length, end: before.length + whole.length, sha256: 'sha256:' + createHash('sha256').update(whole).digest('hex') }, loadKeys(home)!);
    appendFileSync(logPath, torn);
    // Readers stop at the manifest's byte count: the torn line is invisible, the store verifies.
    expect((await verifyStore(storeDir, trustedKeys(home)))[0].ok).toBe(true);
    const r = sp('sp-sync', ['ingest', '--json'], { home, input: claudeDebug });
    expect(r.stderr).toMatch(/repaired: an interrupted append cut back to the signed end/);
    expect(JSON.parse(r.stdout).added).toBe(0);
    expect(readFileSync(logPath).equals(before)).toBe(true);
    expect(existsSync(join(storeDir, 'journal'))).toBe(false);
  });

  it('lets one writer in at a time, with a clear error for the other', () => {
    const home = tempDir();
    const storeDir = join(home, 'store');
    const first = Store.open(storeDir, { home });
    try {
      expect(() => Store.open(storeDir, { home, lockTimeoutMs: 100 })).toThrow(/locked by another writer \(pid \d+/);
      const reader = Store.open(storeDir, { readonly: true, home });
      expect(reader.sessions()).toEqual([]);
      reader.close();
    } finally {
      first.close();
    }
    Store.open(storeDir, { home }).close();
  });
});
