// A seeded simulation of sync (docs/design.md "Sync and convergence"): 3–5 SP_HOMEs share one
// remote (a kind from REMOTES: git, folder, pg) or two at once (git+pg: every machine has both and
// each push, pull or kill picks one), and run a random schedule of appends, handoffs, acks, forks,
// tombstones, pushes and pulls, some pushes and pulls killed with SIGKILL part-way. After a full
// exchange every machine must hold the same merged events (the bytes `sp-sync log` prints), heads,
// owners, owner histories and receipts, every stored session and receipt must verify, and no event
// may be stored twice on any remote (on PostgreSQL: the event rows, counted by event key).
// SP_SIM_SCHEDULES sets how many schedules (default 200), SP_SIM_SEED runs one, SP_SIM_REMOTE=KIND
// (git, folder, pg, git+pg, forward) one kind; a failure names its seed. forward: two folder
// remotes that the machines at the ends reach one each, so their events meet only by forwarding.
import { describe, expect, it, vi } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bin, tempDir } from './support/store.js';
import { Store, convergedView, ensureKeys, eventKey, recordAck, recordHandoff, trustedKeys, verifyReceipt, verifyStore, type SpEvent } from '../lib/store/index.js';
import { addTrusted } from '../lib/store/trust.js';
import { addRemote, getRemote, pull, push } from '../lib/sync/remote.js';
import { storedReceipts } from '../lib/store/receipts.js';
import { random as rng } from '../lib/core/random.js';
import { connect, initSchema } from '../lib/sync/pg.js';
import { pgMissing, usePostgres, type TestPostgres } from './support/pg.js';

vi.setConfig({ testTimeout: 600_000 });

/** A kind of remote: made fresh per schedule; `files` lists what it stores (for the stored-once check). */
export interface RemoteFactory {
  kind: string;
  create(dir: string): Promise<{ url: string; dirKind: boolean; files(): Promise<Map<string, string>> }>;
}

// One throwaway PostgreSQL server for the file; each pg schedule gets a fresh database of its own.
let server: TestPostgres | undefined;
let pgUrl: string | undefined;
const PG_TABLES = 'sp.events, sp.files, sp.sessions, sp.artifacts, sp.machines';
usePostgres((db) => (server = db));

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
    async create(dir) {
      const url = join(dir, 'remote.git');
      execFileSync('git', ['init', '-q', '--bare', url]);
      return {
        url,
        dirKind: false,
        async files() {
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
    async create(dir) {
      const url = join(dir, 'remote-dir');
      mkdirSync(url); // a shared folder exists before anyone pulls from it
      return { url, dirKind: true, files: async () => walk(url) };
    },
  },
  {
    kind: 'pg',
    async create() {
      if (!server) throw new Error(`no PostgreSQL for the pg schedules: ${pgMissing ?? 'the server did not start'}`);
      // One database for the run, emptied per schedule (a fresh database and schema cost ~1.5 s each).
      if (!pgUrl) {
        pgUrl = await server.another();
        const client = await connect(pgUrl);
        try {
          await initSchema(client);
        } finally {
          await client.end();
        }
      }
      const url = pgUrl;
      const client = await connect(url);
      try {
        await client.query(`TRUNCATE ${PG_TABLES} CASCADE`);
      } finally {
        await client.end();
      }
      return {
        url,
        dirKind: false,
        // The event rows as the segment files they stand for (the stored-once check reads them the
        // same way as a folder's), every row once: a row stored twice would show as a repeated key.
        async files() {
          const client = await connect(url);
          try {
            const rows = (await client.query('SELECT machine, session_id, seq, line FROM sp.events ORDER BY machine, session_id, seq')).rows as Array<{ machine: string; session_id: string; seq: number; line: string }>;
            const out = new Map<string, string>();
            for (const r of rows) {
              const path = `machines/${r.machine}/sessions/${r.session_id}/${String(r.seq - (r.seq % 512)).padStart(12, '0')}.jsonl`;
              out.set(path, (out.get(path) ?? '') + r.line + '\n');
            }
            return out;
          } finally {
            await client.end();
          }
        },
      };
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
  /** The remotes this machine has (every one, except at the ends of a forwarding schedule). */
  remotes: string[];
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
function killedSync(m: Machine, op: 'push' | 'pull', remote: string, delay: number): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin('sp-sync'), op, remote, '-q', ...(op === 'push' ? ['--allow-unredacted'] : [])], { env: { ...process.env, SP_HOME: m.home, SP_PROGRESS: '0' }, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), delay);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The remotes' names in every machine: the first is origin (a one-remote schedule is as before). */
const remoteName = (i: number) => (i === 0 ? 'origin' : `r${i}`);

/**
 * forward: two folder remotes, the first machine on the first only, the last on the second only,
 * the others on both: what the end machines write reaches each other only by forwarding.
 */
async function runSchedule(seed: number, factories: RemoteFactory[], forwarding = false): Promise<void> {
  const random = rng(seed);
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)];
  const work = simDir(`sp-sim-${seed}-`);
  const remotes = [];
  for (const [i, f] of factories.entries()) {
    mkdirSync(join(work, `remote${i}`));
    remotes.push(await f.create(join(work, `remote${i}`)));
  }
  const names = remotes.map((_, i) => remoteName(i));
  // With several remotes each push, pull or kill picks one of the machine's (no draw at all with
  // one: the single-remote schedules stay what their seeds always gave).
  const reach = (i: number, total: number): string[] => (!forwarding ? names : i === 0 ? [names[0]] : i === total - 1 ? [names[1]] : names);
  const pickRemote = (m: Machine) => (m.remotes.length === 1 ? m.remotes[0] : pick(m.remotes));
  const onPg = factories.some((f) => f.kind === 'pg');
  const count = 3 + Math.floor(random() * 3);
  const machines: Machine[] = [];
  for (let i = 0; i < count; i++) {
    const home = join(work, `home${i}`);
    // Key pairs made once per run and copied in (key generation is not what is tested here).
    cpSync(join(keyHomes(), `k${i}`, 'keys'), join(home, 'keys'), { recursive: true });
    machines.push({ name: `m${i}`, home, dir: join(home, 'store'), remotes: [] });
  }
  for (const m of machines) for (const other of machines) if (m !== other) addTrusted(m.home, ensureKeys(other.home).publicRaw, other.name);
  for (const [mi, m] of machines.entries()) {
    m.remotes = reach(mi, machines.length);
    for (const [i, r] of remotes.entries()) if (m.remotes.includes(names[i])) addRemote(open(m), names[i], r.url, r.dirKind);
  }
  let clock = 1_800_000_000;
  let counter = 0;
  const message = (session: string, agent: string): SpEvent =>
    ({ session, seq: 0, ts: (clock += 1), agent, actor: 'user', type: 'message.user', payload: { content: [{ type: 'text', text: `step ${seed}.${counter++}` }] } }) as unknown as SpEvent;
  const first = `sess_sim${seed}`;
  open(machines[0]).append(first, [message(first, 'claude'), message(first, 'claude')]);
  // Kills are rarer on the cheap folder remote; a PostgreSQL schedule has one every other time.
  const killAt = random() < (onPg ? 0.5 : 0.1) ? Math.floor(random() * 6) : -1;
  const steps = 4 + Math.floor(random() * 5);
  for (let step = 0; step < steps; step++) {
    const m = pick(machines);
    const store = open(m);
    const held = store.sessions({ all: true }).map((s) => s.id);
    const roll = random();
    if (step === killAt) {
      close(m);
      const op = random() < 0.5 ? 'push' : 'pull';
      await killedSync(m, op, pickRemote(m), 50 + Math.floor(random() * 400));
    } else if (roll < 0.25 || held.length === 0) {
      await push(store, getRemote(store, pickRemote(m)));
    } else if (roll < 0.5) {
      await pull(store, getRemote(store, pickRemote(m)));
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
  // The full exchange: everyone pushes to each of its remotes, then everyone pulls from each (a
  // pull writes no events of its own); with forwarding a second round carries what the machines
  // in the middle pulled in the first to the other remote, and the ends pull it.
  for (let round = 0; round < (forwarding ? 2 : 1); round++) {
    for (const name of names) for (const m of machines) if (m.remotes.includes(name)) await push(open(m), getRemote(open(m), name));
    for (const name of names) for (const m of machines) if (m.remotes.includes(name)) await pull(open(m), getRemote(open(m), name));
  }

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
  // Stored once: no event key twice in the published chains of a session on each remote.
  for (const [i, remote] of remotes.entries()) {
    const perSession = new Map<string, Set<string>>();
    for (const [path, text] of await remote.files()) {
      const match = /^machines\/[^/]+\/sessions\/([^/]+)\/\d{12}\.jsonl$/.exec(path);
      if (!match) continue;
      const keys = perSession.get(match[1]) ?? new Set<string>();
      perSession.set(match[1], keys);
      for (const line of text.split('\n').filter(Boolean)) {
        const key = eventKey(JSON.parse(line) as SpEvent);
        expect(keys.has(key), `event ${key} of ${match[1]} stored twice on the ${factories[i].kind} remote`).toBe(false);
        keys.add(key);
      }
    }
  }
  rmSync(work, { recursive: true, force: true });
}

describe('sync simulation', () => {
  it('converges for every seeded schedule on every remote kind', async () => {
    const only = process.env.SP_SIM_SEED;
    const total = Number(process.env.SP_SIM_SCHEDULES) || 200;
    const seeds = only !== undefined ? [Number(only)] : Array.from({ length: total }, (_, i) => i + 1);
    // A git push or pull runs about ten git processes and a pg one a few round trips: git takes
    // every GIT_EVERY-th schedule, pg every PG_EVERY-th, both at once (git+pg) every MIXED_EVERY-th
    // (SP_SIM_GIT_EVERY=1 … makes it every one), forwarding across two folders every
    // FORWARD_EVERY-th, the folder remote the others; SP_SIM_REMOTE=KIND (git, folder, pg, git+pg,
    // forward) takes one kind.
    const every = (name: string, fallback: number) => Number(process.env[name]) || fallback;
    const kind = (seed: number) =>
      process.env.SP_SIM_REMOTE ??
      (seed % every('SP_SIM_GIT_EVERY', 40) === 0 ? 'git' : seed % every('SP_SIM_FORWARD_EVERY', 40) === 30 % every('SP_SIM_FORWARD_EVERY', 40) ? 'forward' : seed % every('SP_SIM_MIXED_EVERY', 50) === 25 % every('SP_SIM_MIXED_EVERY', 50) ? 'git+pg' : seed % every('SP_SIM_PG_EVERY', 40) === 10 % every('SP_SIM_PG_EVERY', 40) ? 'pg' : 'folder');
    const counts: Record<string, number> = {};
    for (const seed of seeds) {
      const forwarding = kind(seed) === 'forward';
      const factories = (forwarding ? 'folder+folder' : kind(seed))
        .split('+')
        .map((k) => {
          const found = REMOTES.find((r) => r.kind === k);
          if (!found) throw new Error(`no remote kind ${k} (have ${REMOTES.map((r) => r.kind).join(', ')})`);
          return found;
        });
      // Without PostgreSQL binaries (locally only: CI fails in test/support/pg.ts) its schedules are left out.
      if (pgMissing && factories.some((f) => f.kind === 'pg')) continue;
      try {
        await runSchedule(seed, factories, forwarding);
      } catch (err) {
        throw new Error(`schedule seed ${seed} (${kind(seed)} remote) failed; rerun with SP_SIM_SEED=${seed} SP_SIM_REMOTE=${kind(seed)}: ${(err as Error).message}`);
      }
      counts[kind(seed)] = (counts[kind(seed)] ?? 0) + 1;
    }
    process.stderr.write(`sync simulation: ${Object.entries(counts).map(([k, n]) => `${n} on ${k}`).join(', ')}\n`);
  });
});
