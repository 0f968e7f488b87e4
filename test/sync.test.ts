// Sync between two "machines" (two SP_HOMEs) through a local bare git repo, a file:// URL and a
// plain directory: both append to the same session concurrently and converge to the same events;
// a forced rewrite of the remote is refused; interrupted pushes and pulls resume.
import { describe, expect, it, beforeAll, vi } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { CORPUS, capture, sp, tempDir, bin, keysOf, machine as newMachine, trust, withStore, type Machine } from './support/store.js';
import { Store, eventKey, verifyStore, trustedKeys, type SpEvent } from '../lib/store/index.js';
import { addRemote, getRemote, pull, push } from '../lib/sync/remote.js';

// Every step spawns node; on a loaded shared machine one test can take a minute.
vi.setConfig({ testTimeout: 180_000 });

let claudeDebug: string;
beforeAll(() => {
  claudeDebug = capture('claude', CORPUS.claudeDebug);
}, 60_000);

function items(text: string) {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line, i) => ({ event: JSON.parse(line) as Record<string, unknown>, where: `input:${i + 1}` }));
}

const machine = () => newMachine('sp-sync-');




function newEvents(session: string, who: string, n: number, base: number): Array<{ event: Record<string, unknown> }> {
  return Array.from({ length: n }, (_, i) => ({
    event: { session, seq: 1000 + i, ts: base + i, agent: 'claude', actor: 'user', type: 'message.user', payload: { content: [{ type: 'text', text: `${who} says ${i}` }] } },
  }));
}

async function verifiesFor(m: Machine, trustHome: Machine[]): Promise<boolean> {
  const trusted = new Map<string, Buffer>();
  for (const t of trustHome) for (const [k, v] of trustedKeys(t.home)) trusted.set(k, v);
  const reports = await verifyStore(m.dir, trusted);
  for (const r of reports) if (!r.ok) throw new Error(`${r.session}: ${r.problems.join('; ')}`);
  return reports.length > 0;
}

async function convergeScenario(url: string, dir = false): Promise<void> {
  const a = machine();
  const b = machine();
  const session = JSON.parse(claudeDebug.split('\n')[0]).session as string;
  await withStore(a, async (s) => {
    await s.ingest(items(claudeDebug));
    addRemote(s, 'origin', url, dir);
    await push(s, getRemote(s));
  });
  trust(b, a, 'alice');
  trust(a, b, 'bob');
  await withStore(b, async (s) => {
    addRemote(s, 'origin', url, dir);
    const r = await pull(s, getRemote(s));
    expect(r.events).toBe(items(claudeDebug).length);
  });
  // Both machines append to the same session, then push at the same time.
  await withStore(a, (s) => s.ingest(newEvents(session, 'alice', 5, 1_900_000_000)));
  await withStore(b, (s) => s.ingest(newEvents(session, 'bob', 7, 1_900_000_100)));
  const storeA = Store.open(a.dir, { home: a.home });
  const storeB = Store.open(b.dir, { home: b.home });
  try {
    await Promise.all([push(storeA, getRemote(storeA)), push(storeB, getRemote(storeB))]);
    await Promise.all([pull(storeA, getRemote(storeA)), pull(storeB, getRemote(storeB))]);
    // A second round carries nothing new but must not duplicate anything.
    await Promise.all([push(storeA, getRemote(storeA)), push(storeB, getRemote(storeB))]);
    await Promise.all([pull(storeA, getRemote(storeA)), pull(storeB, getRemote(storeB))]);
  } finally {
    storeA.close();
    storeB.close();
  }
  const ka = await keysOf(a, session);
  const kb = await keysOf(b, session);
  expect(ka.length).toBe(items(claudeDebug).length + 12);
  expect(ka).toEqual(kb);
  expect(new Set(ka).size).toBe(ka.length);
  expect(await verifiesFor(a, [a])).toBe(true);
  expect(await verifiesFor(b, [b])).toBe(true);
}

describe('two machines converge', () => {
  it('through a local bare git repository (a path)', async () => {
    const remote = join(tempDir('sp-remote-'), 'sessions.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    await convergeScenario(remote);
  }, 180_000);

  it('through a file:// git URL', async () => {
    const remote = join(tempDir('sp-remote-'), 'sessions.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    await convergeScenario(`file://${remote}`);
  }, 180_000);

  it('through a plain directory remote', async () => {
    await convergeScenario(`dir:${join(tempDir('sp-remote-'), 'shared')}`);
  });
});

describe('what travels with the events', () => {
  it('tombstones, fork lineage, owners and URIs reach the other machine', async () => {
    const shared = `dir:${join(tempDir('sp-remote-'), 'shared')}`;
    const a = machine();
    const b = machine();
    const session = JSON.parse(claudeDebug.split('\n')[0]).session as string;
    let child = '';
    await withStore(a, async (s) => {
      await s.ingest(items(claudeDebug));
      child = (await s.fork(session, 4, 'explore')).session;
      s.remove(session, 'done with it');
      addRemote(s, 'origin', shared);
      await push(s, getRemote(s));
    });
    trust(b, a, 'alice');
    await withStore(b, async (s) => {
      addRemote(s, 'origin', shared);
      await pull(s, getRemote(s));
      expect(s.sessions().map((x) => x.id)).toEqual([child]);
      expect(s.session(session)?.deleted).toBe(true);
      const ma = JSON.parse((await import('node:fs')).readFileSync(join(a.dir, 'sessions', child, 'manifest.json'), 'utf8'));
      const mb = s.manifest(child)!;
      expect(mb.session_uri).toBe(ma.session_uri);
      expect(mb.lineage).toMatchObject({ root: session, fork_of: session, fork_seq: 4, reason: 'explore' });
      expect(mb.signature?.key_id).not.toBe(ma.signature.key_id); // each machine signs its own manifests
    });
  });
});

describe('remote integrity', () => {
  it('refuses a remote whose history was rewritten by a forced push', async () => {
    const remote = join(tempDir('sp-remote-'), 'sessions.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    const a = machine();
    const b = machine();
    const lines = claudeDebug.split('\n').filter(Boolean);
    await withStore(a, async (s) => {
      await s.ingest(items(lines.slice(0, 10).join('\n')));
      addRemote(s, 'origin', remote);
      await push(s, getRemote(s));
      await s.ingest(items(lines.join('\n')));
      await push(s, getRemote(s));
    });
    trust(b, a, 'alice');
    await withStore(b, async (s) => {
      addRemote(s, 'origin', remote);
      await pull(s, getRemote(s));
    });
    // Someone drops the last commit and force-pushes.
    const work = tempDir('sp-rewrite-');
    execFileSync('git', ['clone', '-q', '--branch', 'main', remote, work]);
    execFileSync('git', ['-C', work, 'reset', '-q', '--hard', 'HEAD~1']);
    execFileSync('git', ['-C', work, 'push', '-q', '--force', 'origin', 'main']);
    await withStore(b, async (s) => {
      await expect(pull(s, getRemote(s))).rejects.toThrow(/history was rewritten.*refusing/);
    });
    await withStore(a, async (s) => {
      await expect(push(s, getRemote(s))).rejects.toThrow(/history was rewritten/);
    });
    // The CLI says the same, exit 2.
    const r = sp('sp-sync', ['pull'], { home: b.home });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/rewritten/);
  });

  it('refuses a directory remote whose log was changed under a cursor', async () => {
    const shared = join(tempDir('sp-remote-'), 'shared');
    const a = machine();
    const b = machine();
    await withStore(a, async (s) => {
      await s.ingest(items(claudeDebug));
      addRemote(s, 'origin', `dir:${shared}`);
      await push(s, getRemote(s));
    });
    trust(b, a, 'alice');
    await withStore(b, async (s) => {
      addRemote(s, 'origin', `dir:${shared}`);
      await pull(s, getRemote(s));
    });
    const { readdirSync, readFileSync, writeFileSync } = await import('node:fs');
    const machineDir = join(shared, 'machines', readdirSync(join(shared, 'machines'))[0], 'sessions');
    const sessionDir = join(machineDir, readdirSync(machineDir)[0]);
    const segment = join(sessionDir, readdirSync(sessionDir).filter((n) => n.endsWith('.jsonl'))[0]);
    // The history is cut back by three events and one different event is appended in their place.
    const lines = readFileSync(segment, 'utf8').split('\n').filter(Boolean);
    const kept = lines.slice(0, -3);
    const replaced = { ...JSON.parse(lines[lines.length - 3]), ts: 1 };
    writeFileSync(segment, [...kept, JSON.stringify(replaced)].join('\n') + '\n');
    // That machine's folder is refused (named, with the reason), nothing of it is taken.
    await withStore(b, async (s) => {
      const before = s.session(JSON.parse(lines[0]).session)!.events;
      const r = await pull(s, getRemote(s));
      expect(r.events).toBe(0);
      expect(r.refused).toHaveLength(1);
      expect(r.refused[0].reason).toMatch(/rewritten|shorter/);
      expect(s.session(JSON.parse(lines[0]).session)!.events).toBe(before);
    });
  });

  it('resumes pushes and pulls killed at random points; both sides stay consistent', async () => {
    const remote = join(tempDir('sp-remote-'), 'sessions.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    const a = machine();
    const b = machine();
    const { canonicalSessionId } = await import('../lib/core/event.js');
    const { syntheticChained } = await import('../adapters/claude/synthetic.js');
    const synthetic = [...syntheticChained({ events: 1500, sessions: 3, seed: 7 })].map((e) => JSON.stringify(e)).join('\n');
    void canonicalSessionId;
    await withStore(a, async (s) => {
      await s.ingest(items(synthetic));
      addRemote(s, 'origin', remote);
    });
    await withStore(b, (s) => void addRemote(s, 'origin', remote));
    trust(b, a, 'alice');
    const killed = async (m: Machine, command: string, delay: number) =>
      new Promise<void>((resolve) => {
        // Stored through the library, which records no redaction state: push needs --allow-unredacted.
        const args = command === 'push' ? [command, '-q', '--allow-unredacted'] : [command, '-q'];
        const child = spawn(process.execPath, [bin('sp-sync'), ...args], { env: { ...process.env, SP_HOME: m.home }, stdio: 'ignore' });
        const timer = setTimeout(() => child.kill('SIGKILL'), delay);
        child.on('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    for (const delay of [800, 2000, 3500]) await killed(a, 'push', delay);
    expect(sp('sp-sync', ['push'], { home: a.home }).status).toBe(2); // refused: stored unredacted
    const pushed = sp('sp-sync', ['push', '--allow-unredacted'], { home: a.home });
    expect(pushed.status, pushed.stderr).toBe(0);
    for (const delay of [800, 2500]) await killed(b, 'pull', delay);
    const r = sp('sp-sync', ['pull', '--json'], { home: b.home });
    expect(r.status, r.stderr).toBe(0);
    expect(await verifiesFor(b, [b])).toBe(true);
    const sessions = [...new Set(synthetic.split('\n').map((l) => (JSON.parse(l) as SpEvent).session))];
    for (const id of sessions) expect(await keysOf(b, id)).toEqual(await keysOf(a, id));
    const status = sp('sp-sync', ['status', '--remotes', '--json'], { home: b.home });
    const cursors = JSON.parse(status.stdout.split('\n')[0]).cursors as Array<{ seq: number; local_events: number }>;
    expect(cursors.length).toBe(3);
    for (const c of cursors) expect(c.seq).toBe(500);
  }, 300_000);
});

describe('sp-sync remote commands', () => {
  it('remote add, push, clone, status from the command line', () => {
    const remote = join(tempDir('sp-remote-'), 'sessions.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    const a = machine();
    const b = machine();
    expect(sp('sp-sync', ['ingest', '-q'], { home: a.home, input: claudeDebug }).status).toBe(0);
    expect(sp('sp-sync', ['remote', 'add', 'origin', remote], { home: a.home }).status).toBe(0);
    expect(sp('sp-sync', ['remote', 'add', 'origin', remote], { home: a.home }).status).toBe(2);
    const pushed = sp('sp-sync', ['push'], { home: a.home });
    expect(pushed.status, pushed.stderr).toBe(0);
    expect(pushed.stderr).toMatch(/pushed \d+ events in 1 session/);
    expect(sp('sp-sync', ['trust', 'add', join(a.home, 'keys', 'id_ed25519.pub'), '--name', 'alice'], { home: b.home }).status).toBe(0);
    const cloned = sp('sp-sync', ['clone', `file://${remote}`], { home: b.home });
    expect(cloned.status, cloned.stderr).toBe(0);
    expect(sp('sp-sync', ['ls'], { home: b.home }).stdout).toBe(sp('sp-sync', ['ls'], { home: a.home }).stdout);
    const status = sp('sp-sync', ['status', '--remotes'], { home: b.home });
    expect(status.stdout).toMatch(/origin\tgit\tfile:\/\//);
    expect(status.stdout).toMatch(/pulled from m_[0-9a-f]{16}: seq \d+/);
    expect(sp('sp-sync', ['push', 'nowhere'], { home: b.home }).status).toBe(2);
  });
});
