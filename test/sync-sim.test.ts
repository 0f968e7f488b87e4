// A seeded simulation of sync (docs/design.md "Sync and convergence"): 3–5 SP_HOMEs share one
// remote (a kind from REMOTES: git, folder; another kind is one more factory) and
// run a random schedule of appends, handoffs, acks, forks, tombstones, pushes and pulls, some pushes
// and pulls killed with SIGKILL part-way. After a full exchange every machine must hold the same
// merged events (the bytes `sp-sync log` prints), heads, owners, owner histories and receipts, every
// stored session and receipt must verify, and no event may be stored twice on the remote.
// SP_SIM_SCHEDULES sets how many schedules (default 200), SP_SIM_SEED runs one; a failure names its seed.
import { describe, expect, it, vi } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bin, tempDir } from './support/store.js';
import { Store, convergedView, ensureKeys, eventKey, recordAck, recordHandoff, trustedKeys, verifyReceipt, verifyStore, type SpEvent } from '../lib/store/index.js';
import { addTrusted } from '../lib/store/trust.js';
import { addRemote, getRemote, pull, push } from '../lib/sync/remote.js';
import { storedReceipts } from '../lib/store/receipts.js';
import { random as rng } from '../lib/synthetic.js';

vi.setConfig({ testTimeout: 600_000 });

/** A kind of remote: made fresh per schedule; `files` lists what it stores (for the stored-once check). */
export interface RemoteFactory {
  kind: string;
  create(dir: string): { url: string; dirKind: boolean; files(): Map<string, string> };
}

function walk(root: string, under = ''): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(join(root, under))) return out;
  for (const name of readdirSync(join(root, under), { withFileTypes: true })) {
    const rel = under ? `${under}/${name.name}` : name.name;
    if (name.isDirectory()) for (const [k, v] of walk(root, rel)) out.set(k, v);
    else out.set(rel, readFileSync(join(root, rel), 'utf8'));
  }
  return out;
}

export const REMOTES: RemoteFactory[] = [
  {
    kind: 'git',
    create(dir) {
      const url = join(dir, 'remote.git');
      execFileSync('git', ['init', '-q', '--bare', url]);
      return {
        url,
        dirKind: false,
        files() {
          const out = join(dir, 'export');
          rmSync(out, { recursive: true, force: true });
          mkdirSync(out);
          const has = execFileSync('git', ['--git-dir', url, 'for-each-ref', '--format=%(refname)', 'refs/heads/main'], { encoding: 'utf8' }).trim();
          if (has) execFileSync('sh', ['-c', `git --git-dir "${url}" archive main | tar -x -C "${out}"`]);
          return walk(out);
        },
      };
    },
  },
  {
    kind: 'folder',
    create(dir) {
      const url = join(dir, 'remote-dir');
      mkdirSync(url); // a shared folder exists before anyone pulls from it
      return { url, dirKind: true, files: () => walk(url) };
    },
  },
];

/**
 * The schedules' homes and remotes go on a memory file system when there is one: every store write
 * is fsynced, and on a shared disk the fsyncs, not the work, would take most of the run.
 */
function simDir(prefix: string): string {
  try {
    return mkdtempSync(join('/dev/shm', prefix));
  } catch {
    return tempDir(prefix);
  }
}

let keysMade: string | undefined;
function keyHomes(): string {
  if (keysMade) return keysMade;
  const dir = simDir('sp-sim-keys-');
  for (let i = 0; i < 5; i++) ensureKeys(join(dir, `k${i}`));
  return (keysMade = dir);
}


interface Machine {
  name: string;
  home: string;
  dir: string;
  store?: Store;
}

const AGENTS = ['claude', 'codex', 'pi'];

function open(m: Machine): Store {
  m.store ??= Store.open(m.dir, { home: m.home, lockTimeoutMs: 60_000 });
  return m.store;
}

function close(m: Machine): void {
  m.store?.close();
  m.store = undefined;
}

/** Runs `sp-sync push|pull` as a child and kills it with SIGKILL after `delay` ms (or lets it finish). */
function killedSync(m: Machine, op: 'push' | 'pull', delay: number): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin('sp-sync'), op, '-q', ...(op === 'push' ? ['--allow-unredacted'] : [])], { env: { ...process.env, SP_HOME: m.home, SP_PROGRESS: '0' }, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), delay);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function runSchedule(seed: number, factory: RemoteFactory): Promise<void> {
  const random = rng(seed);
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)];
  const work = simDir(`sp-sim-${seed}-`);
  const remote = factory.create(work);
  const count = 3 + Math.floor(random() * 3);
  const machines: Machine[] = [];
  for (let i = 0; i < count; i++) {
    const home = join(work, `home${i}`);
    // Key pairs made once per run and copied in (key generation is not what is tested here).
    cpSync(join(keyHomes(), `k${i}`, 'keys'), join(home, 'keys'), { recursive: true });
    machines.push({ name: `m${i}`, home, dir: join(home, 'store') });
  }
  for (const m of machines) for (const other of machines) if (m !== other) addTrusted(m.home, ensureKeys(other.home).publicRaw, other.name);
  for (const m of machines) addRemote(open(m), 'origin', remote.url, remote.dirKind);
  let clock = 1_800_000_000;
  let counter = 0;
  const message = (session: string, agent: string): SpEvent =>
    ({ session, seq: 0, ts: (clock += 1), agent, actor: 'user', type: 'message.user', payload: { content: [{ type: 'text', text: `step ${seed}.${counter++}` }] } }) as unknown as SpEvent;
  const first = `sess_sim${seed}`;
  open(machines[0]).append(first, [message(first, 'claude'), message(first, 'claude')]);
  const killAt = random() < 0.1 ? Math.floor(random() * 6) : -1;
  const steps = 4 + Math.floor(random() * 5);
  for (let step = 0; step < steps; step++) {
    const m = pick(machines);
    const store = open(m);
    const held = store.sessions({ all: true }).map((s) => s.id);
    const roll = random();
    if (step === killAt) {
      close(m);
      await killedSync(m, random() < 0.5 ? 'push' : 'pull', 50 + Math.floor(random() * 400));
    } else if (roll < 0.25 || held.length === 0) {
      await push(store, getRemote(store));
    } else if (roll < 0.5) {
      await pull(store, getRemote(store));
    } else {
      const id = pick(held);
      const s = store.session(id)!;
      const kind = random();
      if (kind < 0.4) store.append(id, [message(id, s.owner ?? 'claude')]);
      else if (kind < 0.65) recordHandoff(store, { sourceSession: id, fromAgent: s.owner ?? 'claude', toAgent: pick(AGENTS) });
      else if (kind < 0.8) {
        const theirs = storedReceipts(store.dir).filter((r) => r.session_id === id && r.machine !== store.machine);
        if (theirs.length > 0) await recordAck(store, pick(theirs)).catch(() => undefined); // acknowledged already: fine
        else store.append(id, [message(id, 'codex')]);
      } else if (kind < 0.9) await store.fork(id, Math.floor(random() * s.events), `sim ${seed}`);
      else store.remove(id, 'sim');
    }
  }
  // The full exchange: everyone pushes, then everyone pulls (a pull writes no events of its own).
  for (const m of machines) await push(open(m), getRemote(open(m)));
  for (const m of machines) await pull(open(m), getRemote(open(m)));

  const ids = new Set<string>();
  for (const m of machines) for (const s of open(m).sessions({ all: true })) ids.add(s.id);
  for (const id of [...ids].sort()) {
    const views = machines.map((m) => convergedView(open(m), id));
    const log = (v: (typeof views)[number]) => v.events.map((e) => JSON.stringify(e) + '\n').join('');
    for (let i = 1; i < views.length; i++) {
      expect(log(views[i]), `${id} on ${machines[i].name} vs ${machines[0].name}`).toBe(log(views[0]));
      expect(views[i].head).toBe(views[0].head);
      expect(views[i].owner).toBe(views[0].owner);
      expect(views[i].owner_history).toEqual(views[0].owner_history);
    }
    const receipts = machines.map((m) =>
      storedReceipts(m.dir)
        .filter((r) => r.session_id === id)
        .map((r) => JSON.stringify(r))
        .sort(),
    );
    for (let i = 0; i < views.length; i++) expect(open(machines[i]).manifest(id)?.current_owner.agent ?? null, `owner of ${id} in ${machines[i].name}'s manifest`).toBe(views[i].owner);
    for (let i = 1; i < receipts.length; i++) expect(receipts[i], `receipts of ${id} on ${machines[i].name}`).toEqual(receipts[0]);
    // Every handoff in the merged view has its receipt on every machine (a fork copies its parent's
    // handoffs: their receipts name the parent session).
    for (const e of views[0].events.filter((x) => x.type === 'handoff')) {
      const rid = (e.payload as { receipt_id: string }).receipt_id;
      for (const m of machines) expect(existsSync(join(m.dir, 'receipts', `${rid}.json`)), `receipt ${rid} of ${id} on ${m.name}`).toBe(true);
    }
  }
  for (const m of machines) {
    const trusted = trustedKeys(m.home);
    close(m);
    for (const report of await verifyStore(m.dir, trusted)) expect(report.ok, `${m.name}: ${JSON.stringify(report)}`).toBe(true);
    for (const r of storedReceipts(m.dir)) {
      const checked = await verifyReceipt(r, trusted, m.dir);
      expect(checked.ok, `${m.name}: ${checked.problems.join('; ')}`).toBe(true);
    }
  }
  // Stored once: no event key twice in the published chains of a session on the remote.
  const perSession = new Map<string, Set<string>>();
  for (const [path, text] of remote.files()) {
    const match = /^machines\/[^/]+\/sessions\/([^/]+)\/\d{12}\.jsonl$/.exec(path);
    if (!match) continue;
    const keys = perSession.get(match[1]) ?? new Set<string>();
    perSession.set(match[1], keys);
    for (const line of text.split('\n').filter(Boolean)) {
      const key = eventKey(JSON.parse(line) as SpEvent);
      expect(keys.has(key), `event ${key} of ${match[1]} stored twice on the ${factory.kind} remote`).toBe(false);
      keys.add(key);
    }
  }
  rmSync(work, { recursive: true, force: true });
}

describe('sync simulation', () => {
  it('converges for every seeded schedule on every remote kind', async () => {
    const only = process.env.SP_SIM_SEED;
    const total = Number(process.env.SP_SIM_SCHEDULES) || 200;
    const seeds = only !== undefined ? [Number(only)] : Array.from({ length: total }, (_, i) => i + 1);
    // A git push or pull runs about ten git processes: git takes every GIT_EVERY-th schedule (and
    // every one with SP_SIM_GIT_EVERY=1), the folder remote the others; SP_SIM_REMOTE=KIND takes one kind.
    const gitEvery = Number(process.env.SP_SIM_GIT_EVERY) || 40;
    const kind = (seed: number) => process.env.SP_SIM_REMOTE ?? (seed % gitEvery === 0 ? 'git' : 'folder');
    for (const seed of seeds) {
      const factory = REMOTES.find((r) => r.kind === kind(seed));
      if (!factory) throw new Error(`no remote kind ${kind(seed)} (have ${REMOTES.map((r) => r.kind).join(', ')})`);
      try {
        await runSchedule(seed, factory);
      } catch (err) {
        throw new Error(`schedule seed ${seed} (${factory.kind} remote) failed; rerun with SP_SIM_SEED=${seed}: ${(err as Error).message}`);
      }
    }
  });
});
