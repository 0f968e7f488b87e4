// Two machines on one git remote, from the command line: concurrent handoffs resolve to the same
// owner and `sp-sync log` prints the same bytes on both; receipts travel and verify on the other
// machine; an ack travels back; `sp-sync status` says (and exits 1) when a session is out of sync;
// `git clone` of the remote finds its HEAD. Receipts a pulled manifest carries are taken only when
// signed by that folder's key for that machine and session. And a store pair and remote written by
// the previous release (fixtures/sync-upgrade) are read and converge.
import { describe, expect, it, vi } from 'vitest';
import { chmodSync, cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseLines, root, sp, tempDir } from './support/store.js';
import { ensureKeys, signDocument, type KeyPair } from '../lib/store/identity.js';
import { importReceipts } from '../lib/store/receipts.js';
import { RECEIPT_TYPE } from '../lib/store/verify.js';

vi.setConfig({ testTimeout: 300_000 });

const SESSION = 'sess_converge_cli';

function events(texts: string[], start: number, agent = 'claude'): string {
  return texts.map((text, i) => JSON.stringify({ session: SESSION, seq: start + i, ts: 1_800_000_000 + start + i, agent, actor: 'user', type: 'message.user', payload: { content: [{ type: 'text', text }] } }) + '\n').join('');
}

function ok(r: { status: number | null; stderr: string; stdout: string }, what: string) {
  expect(r.status, `${what}: ${r.stderr}`).toBe(0);
  return r;
}

function handoff(home: string, to: string): string {
  const script = `const { Store, recordHandoff } = await import(${JSON.stringify(join(root, 'dist/lib/store/index.js'))});
const s = Store.open(process.env.SP_HOME + '/store');
try { process.stdout.write(recordHandoff(s, { sourceSession: ${JSON.stringify(SESSION)}, fromAgent: 'claude', toAgent: ${JSON.stringify(to)}, expect: 'run the tests' }).receipt.receipt_id); } finally { s.close(); }`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, SP_HOME: home }, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/**
 * The converged record a pull signs into the manifest (computed without holding the session) is
 * what the full merged view says: count, head, machines, owner and its history.
 */
function expectManifestMatchesView(home: string, session: string): void {
  const script = `const { Store, convergedView } = await import(${JSON.stringify(join(root, 'dist/lib/store/index.js'))});
const s = Store.open(process.env.SP_HOME + '/store');
try {
  const v = convergedView(s, ${JSON.stringify(session)});
  const last = v.owner_history[v.owner_history.length - 1];
  process.stdout.write(JSON.stringify({ converged: { event_count: v.events.length, head: v.head, machines: [...new Set(v.from)].sort() }, current_owner: { agent: v.owner, ...(last?.granted_at !== undefined ? { granted_at: last.granted_at } : {}), ...(last?.receipt ? { receipt: last.receipt } : {}) }, owner_history: v.owner_history }));
} finally { s.close(); }`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, SP_HOME: home }, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const view = JSON.parse(r.stdout);
  const manifest = JSON.parse(readFileSync(join(home, 'store/sessions', session, 'manifest.json'), 'utf8'));
  expect(view.converged.machines.length).toBeGreaterThan(1);
  expect({ converged: manifest.converged, current_owner: manifest.current_owner, owner_history: manifest.owner_history }).toEqual(view);
}

function manifestOwner(home: string): unknown {
  return JSON.parse(readFileSync(join(home, 'store/sessions', SESSION, 'manifest.json'), 'utf8')).current_owner.agent;
}

describe('convergent sync between two machines', () => {
  it('agrees on events, head, owner and receipts; acks travel; status says when out of sync', () => {
    const remote = `dir:${join(tempDir('sp-conv-remote-'), 'shared')}`;
    const a = tempDir('sp-conv-a-');
    const b = tempDir('sp-conv-b-');
    ok(sp('sp-sync', ['ingest', '-q'], { home: a, input: events(['fix the todo test', 'looking'], 0) }), 'ingest');
    for (const [home, other, name] of [
      [a, b, 'b'],
      [b, a, 'a'],
    ]) {
      ensureKeys(other);
      ok(sp('sp-sync', ['trust', 'add', join(other, 'keys', 'id_ed25519.pub'), '--name', name], { home }), 'trust');
      ok(sp('sp-sync', ['remote', 'add', 'origin', remote], { home }), 'remote add');
    }
    ok(sp('sp-sync', ['push', '-q'], { home: a }), 'push a');
    ok(sp('sp-sync', ['pull', '-q'], { home: b }), 'pull b');

    // The same moment on both machines: A hands to pi, B to codex; each also writes an event.
    ok(sp('sp-sync', ['ingest', '-q'], { home: a, input: events(['A goes on'], 2) }), 'ingest a');
    ok(sp('sp-sync', ['ingest', '-q'], { home: b, input: events(['B goes on'], 2) }), 'ingest b');
    const fromA = handoff(a, 'pi');
    const fromB = handoff(b, 'codex');
    const status = sp('sp-sync', ['status', '-q'], { home: a });
    expect(status.status, status.stderr).toBe(1);
    expect(parseLines(status.stdout)[0]).toMatchObject({ session: SESSION, in_sync: false, remotes: [{ remote: 'origin', ahead: 2 }] });

    for (const home of [a, b]) ok(sp('sp-sync', ['push', '-q'], { home }), 'push');
    for (const home of [a, b]) ok(sp('sp-sync', ['pull', '-q'], { home }), 'pull');
    const logA = ok(sp('sp-sync', ['log', SESSION], { home: a }), 'log a').stdout;
    const logB = ok(sp('sp-sync', ['log', SESSION], { home: b }), 'log b').stdout;
    expect(logB).toBe(logA);
    expect(parseLines(logA)).toHaveLength(6);
    expect(ok(sp('sp-verify', [], { home: a, input: logA }), 'verify the merged log').status).toBe(0);
    // Each local log keeps its own order (append-only): they differ, the merged view does not.
    expect(sp('sp-sync', ['log', SESSION, '--local'], { home: a }).stdout).not.toBe(sp('sp-sync', ['log', SESSION, '--local'], { home: b }).stdout);
    expect(manifestOwner(a)).toBe(manifestOwner(b));
    const rowA = parseLines(ok(sp('sp-sync', ['status', '-q'], { home: a }), 'status a').stdout)[0];
    const rowB = parseLines(ok(sp('sp-sync', ['status', '-q'], { home: b }), 'status b').stdout)[0];
    expect(rowA.in_sync).toBe(true);
    expect({ ...rowA }).toEqual({ ...rowB });
    // Both grants kept; the later one in merged order is the owner on both machines.
    const grants = (rowA.owner_history as Array<{ agent: string }>).map((g) => g.agent);
    expect([...grants].sort()).toEqual(['codex', 'pi']);
    expect(grants[grants.length - 1]).toBe(rowA.owner);
    expect(manifestOwner(a)).toBe(rowA.owner);
    for (const home of [a, b]) expectManifestMatchesView(home, SESSION);

    // Receipts travel: each machine holds and verifies the other's.
    for (const [home, receipt] of [
      [b, fromA],
      [a, fromB],
    ]) {
      const path = join(home, 'store/receipts', `${receipt}.json`);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      ok(sp('sp-verify', ['--receipt', path, '--store', join(home, 'store')], { home }), `verify ${receipt} on the other machine`);
    }
    // A receipt whose handoff event is not in its issuer's chain does not verify.
    const forged = JSON.parse(readFileSync(join(b, 'store/receipts', `${fromA}.json`), 'utf8'));
    const forgedPath = join(tempDir(), 'forged.json');
    writeFileSync(forgedPath, JSON.stringify({ ...forged, to_agent: 'aider' }));
    expect(sp('sp-verify', ['--receipt', forgedPath, '--store', join(b, 'store')], { home: b }).status).toBe(1);

    // B acknowledges A's handoff; the ack reaches A.
    const ack = JSON.parse(ok(sp('sp-sync', ['ack', fromA, '--note', 'tests run'], { home: b }), 'ack').stdout);
    expect(ack).toMatchObject({ receipt: fromA, session: SESSION });
    expect(sp('sp-sync', ['ack', 'rcpt_000000000000000000000000'], { home: b }).status).toBe(2);
    expect(sp('sp-sync', ['ack', '../../etc/passwd'], { home: b }).status).toBe(2);
    ok(sp('sp-sync', ['push', '-q'], { home: b }), 'push ack');
    ok(sp('sp-sync', ['pull', '-q'], { home: a }), 'pull ack');
    const acked = parseLines(sp('sp-sync', ['log', SESSION], { home: a }).stdout).find((e) => e.type === 'handoff.ack');
    expect(acked).toMatchObject({ payload: { receipt_id: fromA, expect: 'run the tests', note: 'tests run' } });
    const behind = sp('sp-sync', ['status', '-q'], { home: a });
    expect(behind.status, behind.stdout).toBe(0);
    expectManifestMatchesView(a, SESSION);

  });

  it('points a bare git remote\'s HEAD at the branch sp pushes, so git clone finds it', () => {
    const remote = join(tempDir('sp-conv-git-'), 'sessions.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    const a = tempDir('sp-conv-a-');
    ok(sp('sp-sync', ['ingest', '-q'], { home: a, input: events(['one'], 0) }), 'ingest');
    ok(sp('sp-sync', ['remote', 'add', 'origin', remote], { home: a }), 'remote add');
    ok(sp('sp-sync', ['push', '-q'], { home: a }), 'push');
    expect(execFileSync('git', ['--git-dir', remote, 'symbolic-ref', 'HEAD'], { encoding: 'utf8' }).trim()).toBe('refs/heads/main');
    const clone = spawnSync('git', ['clone', remote, join(tempDir(), 'c')], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
    expect(clone.status, clone.stderr).toBe(0);
    expect(clone.stderr).not.toMatch(/nonexistent ref|empty repository/);
  });

  it('takes only receipts signed by the folder key for its machine and session', () => {
    const store = tempDir('sp-conv-receipts-');
    const keys: KeyPair = ensureKeys(tempDir());
    const other: KeyPair = ensureKeys(tempDir());
    const trusted = new Map([
      [keys.keyId, keys.publicRaw],
      [other.keyId, other.publicRaw],
    ]);
    const receipt = (fields: Record<string, unknown>, by = keys) => signDocument({ type: RECEIPT_TYPE, receipt_id: 'rcpt_0123456789abcdef01234567', session_id: 'sess_x', machine: 'm_a', from_agent: 'claude', to_agent: 'codex', ...fields }, by);
    const take = (value: unknown) => importReceipts(store, value, 'm_a', 'sess_x', keys.keyId, trusted);
    expect(take('nope').refused).toHaveLength(1);
    expect(take([receipt({ receipt_id: '../../../escape' })]).refused[0]).toMatch(/not one/);
    expect(take([receipt({}, other)]).refused[0]).toMatch(/not by the key of machine m_a/);
    expect(take([receipt({ machine: 'm_b' })]).refused[0]).toMatch(/not the folder's/);
    expect(take([receipt({ session_id: 'sess_y' })]).refused[0]).toMatch(/not the folder's/);
    expect(take([{ ...receipt({}), to_agent: 'pi' }]).refused[0]).toMatch(/bad signature/);
    expect(readdirSync(store)).toEqual([]);
    expect(take([receipt({})])).toEqual({ added: 1, refused: [] });
    expect(take([receipt({})])).toEqual({ added: 0, refused: [] });
    expect(readdirSync(join(store, 'receipts'))).toEqual(['rcpt_0123456789abcdef01234567.json']);
  });

  it('reads and converges a store pair and remote written by the previous release', () => {
    const work = tempDir('sp-upgrade-');
    cpSync(join(root, 'fixtures/sync-upgrade'), work, { recursive: true });
    const remote = join(work, 'remote');
    for (const home of ['home-a', 'home-b']) {
      // git keeps files 0644: give the homes back their private modes, and point them at this copy.
      execFileSync('sh', ['-c', `find "${join(work, home)}" -type d -exec chmod 700 {} + && find "${join(work, home)}" -type f -exec chmod 600 {} +`]);
      writeFileSync(join(work, home, 'store/remotes.json'), JSON.stringify({ origin: { name: 'origin', kind: 'dir', url: remote } }));
      chmodSync(join(work, home, 'store/remotes.json'), 0o600);
    }
    const a = join(work, 'home-a');
    const b = join(work, 'home-b');
    ok(sp('sp-sync', ['pull', '-q'], { home: a }), 'pull a');
    for (const home of [a, b]) ok(sp('sp-sync', ['push', '-q'], { home }), 'push');
    for (const home of [a, b]) ok(sp('sp-sync', ['pull', '-q'], { home }), 'pull');
    const logA = sp('sp-sync', ['log', 'sess_upgradefixture0001'], { home: a }).stdout;
    expect(sp('sp-sync', ['log', 'sess_upgradefixture0001'], { home: b }).stdout).toBe(logA);
    expect(parseLines(logA).map((e) => e.type)).toEqual(['message', 'message', 'message', 'message', 'handoff']);
    for (const home of [a, b]) {
      ok(sp('sp-verify', ['--store', join(home, 'store')], { home }), 'verify store');
      expect(manifestOwnerOf(home)).toBe('codex');
      expectManifestMatchesView(home, 'sess_upgradefixture0001');
      ok(sp('sp-sync', ['status', '-q'], { home }), 'status');
    }
    // The receipt A issued before the upgrade reached B and verifies there (found by its id in A's chain).
    ok(sp('sp-verify', ['--receipt', join(b, 'store/receipts/rcpt_5a566d3f771b60341fa4f15e.json'), '--store', join(b, 'store')], { home: b }), 'old receipt on B');
  });
});

function manifestOwnerOf(home: string): unknown {
  return JSON.parse(readFileSync(join(home, 'store/sessions/sess_upgradefixture0001/manifest.json'), 'utf8')).current_owner.agent;
}
