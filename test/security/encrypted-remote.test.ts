// Encrypted remotes (`sp-sync remote add NAME URL --encrypt-to FILE`): three SP_HOMEs, A and B in the
// recipients file and C not, sync through a bare git repository and through a dir: remote. The
// remote must hold ciphertext only; B reads exactly what A stored; C takes nothing and says so;
// appends flow both ways through the cursors; a tampered or forged file is refused. Signed sync
// holds on them as on a plain remote: the machines trust each other's signing keys, and a recipient
// whose key is not trusted cannot get a session adopted.
import { describe, expect, it, beforeAll, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CORPUS, root, sp, tempDir, type Ran } from '../support/store.js';

// Every step spawns node; on a loaded shared machine one step can take many seconds.
vi.setConfig({ testTimeout: 180_000 });

const MARKER = `sp-marker-${randomBytes(6).toString('hex')}-the-launch-code`;
const NOT_AMONG = "encrypted to recipients this machine's age key is not among; nothing taken";

let capture: string;
let blobs: string;
let blobHex: string;
let session: string;

beforeAll(() => {
  blobs = tempDir('sp-enc-blobs-');
  const r = sp('sp-capture', ['claude', '--path', join(root, CORPUS.claudeDebug), '--artifacts', blobs], { home: tempDir() });
  expect(r.status, r.stderr).toBe(0);
  capture = r.stdout;
  session = JSON.parse(capture.split('\n')[0]).session as string;
  blobHex = readdirSync(blobs).find((n) => /^[0-9a-f]{64}$/.test(n))!;
  expect(blobHex).toBeDefined();
}, 60_000);

/** Events for `session` holding `text`, as a canonical stream (the store chains and numbers them). */
function said(text: string, n: number, base: number): string {
  return (
    Array.from({ length: n }, (_, i) =>
      JSON.stringify({ session, seq: 5000 + i, ts: base + i, agent: 'claude', actor: 'user', type: 'message.user', payload: { content: [{ type: 'text', text: `${text} #${i}` }] } }),
    ).join('\n') + '\n'
  );
}

function ok(r: Ran): Ran {
  expect(r.status, r.stderr).toBe(0);
  return r;
}

function machineId(home: string): string {
  return readFileSync(join(home, 'machine-id'), 'utf8').trim();
}

function storedEvents(home: string): number {
  const r = sp('sp-sync', ['ls', '--json', '--all'], { home });
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .reduce((n, l) => n + (JSON.parse(l) as { events: number }).events, 0);
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((n) => join(dir, n))
    .filter((p) => statSync(p).isFile())
    .sort();
}

interface Remote {
  kind: 'git' | 'dir';
  url: string;
  /** Every byte the remote holds: all git objects (decompressed), or every file and its name. */
  bytes(): Buffer;
  /** The remote's file names (git: the tree of main). */
  names(): string[];
  /** Replaces one file on the remote (git: an ordinary commit on main, not a rewrite). */
  change(path: string, edit: (bytes: Buffer) => Buffer): void;
  remove(path: string): void;
  read(path: string): Buffer;
}

/** A new SP_HOME holding the age identity of `home` (another machine of the same person) and its own signing key. */
function recipientLike(home: string): string {
  const fresh = tempDir('sp-enc-d-');
  mkdirSync(join(fresh, 'keys'), { recursive: true, mode: 0o700 });
  writeFileSync(join(fresh, 'keys', 'age.key'), readFileSync(join(home, 'keys', 'age.key')), { mode: 0o600 });
  signingKey(fresh);
  return fresh;
}

/** The path of `home`'s Ed25519 public key, made now if the store has not made it yet. */
function signingKey(home: string): string {
  const pub = join(home, 'keys', 'id_ed25519.pub');
  if (!existsSync(pub)) ok(sp('sp-sync', ['keygen', '-q'], { home }));
  return pub;
}

let peers = 0;
/** `home` takes events signed by each of `others` (signed sync: pull adopts only trusted signers). */
function trusts(home: string, ...others: string[]): void {
  for (const other of others) ok(sp('sp-sync', ['trust', 'add', signingKey(other), '--name', `peer-${++peers}`], { home }));
}

function gitRemote(): Remote {
  const repo = join(tempDir('sp-enc-remote-'), 'team.git');
  execFileSync('git', ['init', '-q', '--bare', repo]);
  return {
    kind: 'git',
    url: repo,
    bytes: () => execFileSync('git', ['--git-dir', repo, 'cat-file', '--batch-all-objects', '--batch'], { maxBuffer: 256 << 20 }),
    names: () => execFileSync('git', ['--git-dir', repo, 'ls-tree', '-r', '--name-only', 'main'], { encoding: 'utf8' }).split('\n').filter(Boolean),
    change: (path, edit) =>
      commitAs(repo, (work) => {
        const target = join(work, path);
        mkdirSync(join(target, '..'), { recursive: true });
        writeFileSync(target, edit(existsSync(target) ? readFileSync(target) : Buffer.alloc(0)));
      }),
    remove: (path) => commitAs(repo, (work) => rmSync(join(work, path))),
    read: (path) => execFileSync('git', ['--git-dir', repo, 'show', `main:${path}`], { maxBuffer: 64 << 20 }),
  };
}

/** Someone with write access changes the repository with an ordinary commit on main. */
function commitAs(repo: string, edit: (work: string) => void): void {
  const work = tempDir('sp-enc-attacker-');
  execFileSync('git', ['clone', '-q', '--branch', 'main', repo, work]);
  edit(work);
  const as = ['-c', 'user.name=mallory', '-c', 'user.email=m@example.org', '-c', 'commit.gpgsign=false'];
  execFileSync('git', ['-C', work, ...as, 'add', '-A']);
  execFileSync('git', ['-C', work, ...as, 'commit', '-q', '-m', 'change']);
  execFileSync('git', ['-C', work, 'push', '-q', 'origin', 'main']);
}

function dirRemote(): Remote {
  const dir = join(tempDir('sp-enc-remote-'), 'team');
  return {
    kind: 'dir',
    url: `dir:${dir}`,
    bytes: () => Buffer.concat(filesUnder(dir).flatMap((p) => [Buffer.from(relative(dir, p) + '\n'), readFileSync(p)])),
    names: () => filesUnder(dir).map((p) => relative(dir, p)),
    change: (path, edit) => {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), edit(existsSync(join(dir, path)) ? readFileSync(join(dir, path)) : Buffer.alloc(0)));
    },
    remove: (path) => rmSync(join(dir, path)),
    read: (path) => readFileSync(join(dir, path)),
  };
}

describe.each([
  ['a bare git repository', gitRemote],
  ['a dir: remote', dirRemote],
])('an encrypted remote through %s', (_, makeRemote) => {
  const a = tempDir('sp-enc-a-');
  const b = tempDir('sp-enc-b-');
  const c = tempDir('sp-enc-c-');
  const recipients = join(tempDir('sp-enc-team-'), 'recipients.txt');
  let remote: Remote;

  it('A and B are recipients: keygen --age prints the recipient, keeps the identity 0600, and is idempotent', () => {
    remote = makeRemote();
    const ra = ok(sp('sp-sync', ['keygen', '--age'], { home: a })).stdout.trim();
    const rb = ok(sp('sp-sync', ['keygen', '--age'], { home: b })).stdout.trim();
    expect(ra).toMatch(/^age1[0-9a-z]{58}$/);
    expect(rb).toMatch(/^age1[0-9a-z]{58}$/);
    expect(rb).not.toBe(ra);
    expect(ok(sp('sp-sync', ['keygen', '--age'], { home: a })).stdout.trim()).toBe(ra);
    expect(statSync(join(a, 'keys', 'age.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(a, 'keys')).mode & 0o777).toBe(0o700);
    writeFileSync(recipients, `# the team\n${ra}   \n\n# bob\n${rb}\n`);
    // Their signing keys: A and B trust each other; C trusts both (it is refused for its age key, not a signer).
    trusts(a, b);
    trusts(b, a);
    trusts(c, a, b);
  });

  it('A pushes a session with a marker and an image; the remote holds ciphertext only', () => {
    ok(sp('sp-sync', ['ingest', '-q', '--artifacts', blobs], { home: a, input: capture }));
    ok(sp('sp-sync', ['ingest', '-q'], { home: a, input: said(MARKER, 3, 1_900_000_000) }));
    const added = ok(sp('sp-sync', ['remote', 'add', 'team', remote.url, '--encrypt-to', recipients], { home: a }));
    expect(added.stderr).toMatch(/encrypted to 2 age recipients/);
    const remotes = JSON.parse(readFileSync(join(a, 'store', 'remotes.json'), 'utf8')) as Record<string, { recipients: string[] }>;
    expect(remotes.team.recipients).toHaveLength(2);
    const pushed = ok(sp('sp-sync', ['push', 'team', '--json'], { home: a }));
    const report = JSON.parse(pushed.stdout) as { events: number; artifacts: number };
    expect(report.events).toBe(storedEvents(a));
    expect(report.artifacts).toBe(1);

    const bytes = remote.bytes();
    expect(bytes.length).toBeGreaterThan(1000);
    expect(bytes.includes(MARKER)).toBe(false);
    expect(bytes.includes('"session"')).toBe(false);
    expect(bytes.includes('"seq"')).toBe(false);
    expect(bytes.includes('"checksum"')).toBe(false);
    // The image: neither its bytes nor its hash (which would say the remote holds a known file).
    const image = readFileSync(join(blobs, blobHex));
    expect(bytes.includes(image.subarray(image.length >> 1, (image.length >> 1) + 48))).toBe(false);
    expect(bytes.includes(blobHex)).toBe(false);
    const names = remote.names();
    const own = `machines/${machineId(a)}/sessions/${session}`;
    expect(names).toContain(`${own}/000000000000.jsonl.age`);
    expect(names).toContain(`${own}/manifest.json.age`);
    expect(names.filter((n) => n.startsWith('artifacts/'))).toHaveLength(1);
    for (const n of names) expect(n).toMatch(/\.age$/);
    expect(bytes.includes('age-encryption.org/v1')).toBe(true);
  });

  it('B clones and reads exactly what A stored: byte-identical log, the same image', () => {
    const cloned = ok(sp('sp-sync', ['clone', remote.url, '--name', 'team', '--encrypt-to', recipients], { home: b }));
    expect(cloned.stderr).toMatch(/cloned \d+ events/);
    const logA = ok(sp('sp-sync', ['log', session], { home: a })).stdout;
    const logB = ok(sp('sp-sync', ['log', session], { home: b })).stdout;
    expect(logB).toContain(MARKER);
    expect(logB).toBe(logA);
    const blob = join(b, 'store', 'artifacts', blobHex);
    expect(readFileSync(blob).equals(readFileSync(join(blobs, blobHex)))).toBe(true);
    ok(sp('sp-verify', ['--store', join(b, 'store')], { home: b }));
  });

  it('C is not a recipient: takes nothing, names the machine folder, exit 1', () => {
    const r = sp('sp-sync', ['clone', remote.url, '--name', 'team', '--encrypt-to', recipients], { home: c });
    expect(r.status).toBe(1);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines).toContain(`sp-sync: team: machines/${machineId(a)}: ${NOT_AMONG} from it`);
    expect(lines).toContain("sp-sync: team: artifacts: 1 encrypted to recipients this machine's age key is not among; nothing taken from it");
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(storedEvents(c)).toBe(0);
    expect(existsSync(join(c, 'store', 'artifacts'))).toBe(false);
    // A second pull says the same: nothing was recorded as taken.
    const again = sp('sp-sync', ['pull', 'team'], { home: c });
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(`machines/${machineId(a)}: ${NOT_AMONG}`);
  });

  it('C cannot push to it either: its own key is not among the recipients (nothing written)', () => {
    ok(sp('sp-sync', ['ingest', '-q'], { home: c, input: said('from c', 2, 1_900_000_500).replaceAll(session, 'sess_from_c') }));
    const before = remote.names();
    const r = sp('sp-sync', ['push', 'team'], { home: c });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^sp-sync: .*age\.key: this machine's age key \(age1[0-9a-z]+\) is not among the recipients of remote team/);
    expect(remote.names()).toEqual(before);
  });

  it('B appends and pushes, A pulls incrementally from its cursor, both converge', () => {
    ok(sp('sp-sync', ['ingest', '-q'], { home: b, input: said('bob adds', 4, 1_900_001_000) }));
    const pushed = JSON.parse(ok(sp('sp-sync', ['push', 'team', '--json'], { home: b })).stdout) as { events: number; artifacts: number };
    expect(pushed.artifacts).toBe(0); // B holds the image A pushed: not sealed a second time
    const eventsA = storedEvents(a);
    const pulled = JSON.parse(ok(sp('sp-sync', ['pull', 'team', '--json'], { home: a })).stdout) as { events: number };
    expect(pulled.events).toBe(4);
    expect(storedEvents(a)).toBe(eventsA + 4);
    // The next round: A appends in turn; each pull takes exactly the new events.
    ok(sp('sp-sync', ['ingest', '-q'], { home: a, input: said('alice answers', 2, 1_900_002_000) }));
    ok(sp('sp-sync', ['push', 'team'], { home: a }));
    expect(JSON.parse(ok(sp('sp-sync', ['pull', 'team', '--json'], { home: b })).stdout).events).toBe(2);
    // B holds A's two events in its own log but publishes only its own (signed sync): nothing to push, nothing duplicated.
    expect(JSON.parse(ok(sp('sp-sync', ['push', 'team', '--json'], { home: b })).stdout).events).toBe(0);
    expect(JSON.parse(ok(sp('sp-sync', ['pull', 'team', '--json'], { home: a })).stdout).events).toBe(0);
    const logA = ok(sp('sp-sync', ['log', session], { home: a })).stdout;
    expect(ok(sp('sp-sync', ['log', session], { home: b })).stdout).toBe(logA);
    expect(logA).toContain('bob adds #3');
    expect(logA).toContain('alice answers #1');
    // Each push wrote new immutable chunks: A's folder has one per push, none rewritten.
    const chunks = remote.names().filter((n) => n.startsWith(`machines/${machineId(a)}/`) && n.endsWith('.jsonl.age'));
    expect(chunks.length).toBe(2);
    const cursor = (JSON.parse(ok(sp('sp-sync', ['status', '--remotes', '--json'], { home: a })).stdout.split('\n')[0]) as { cursors: Array<{ machine: string; seq: number }> }).cursors.find(
      (x) => x.machine === machineId(b),
    );
    expect(cursor?.seq).toBe(4); // B's own events: the four it wrote
    // What A adopted from B is mirrored as plaintext under B's signed manifest, and verifies; the
    // sealed-source mark keeps a later push from forwarding it to a remote that is not encrypted.
    const mirror = join(a, 'store', 'origins', machineId(b), 'sessions', session);
    expect(readdirSync(mirror).sort()).toEqual(['000000000000.jsonl', 'manifest.json', 'sealed-source']);
    expect(readFileSync(join(mirror, '000000000000.jsonl'), 'utf8')).toContain('bob adds #3');
    for (const file of ['manifest.json', 'sealed-source']) expect(statSync(join(mirror, file)).mode & 0o777).toBe(0o600);
    ok(sp('sp-verify', ['--store', join(a, 'store')], { home: a }));
  });

  it('a tampered chunk is refused: exit 1, one line, nothing taken from that folder', () => {
    ok(sp('sp-sync', ['ingest', '-q'], { home: a, input: said('alice again', 3, 1_900_003_000) }));
    ok(sp('sp-sync', ['push', 'team'], { home: a }));
    const newest = remote
      .names()
      .filter((n) => n.startsWith(`machines/${machineId(a)}/`) && n.endsWith('.jsonl.age'))
      .sort()
      .at(-1)!;
    let original: Buffer | undefined;
    remote.change(newest, (bytes) => {
      original = bytes;
      const out = Buffer.from(bytes);
      out[out.length - 20] ^= 0x01;
      return out;
    });
    const before = storedEvents(b);
    const r = sp('sp-sync', ['pull', 'team', '-q'], { home: b });
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^sp-sync: team: machines/${machineId(a)}/sessions/${session}: \\d{12}\\.jsonl\\.age: does not decrypt \\(damaged or tampered: .*\\); nothing taken from it$`));
    expect(storedEvents(b)).toBe(before);
    // Put back as it was, the chunk is taken.
    remote.change(newest, () => original!);
    ok(sp('sp-sync', ['pull', 'team'], { home: b }));
    expect(storedEvents(b)).toBe(before + 3);
  });

  it('a chunk gone missing is refused: the one before it does not reach the next (exit 1, nothing taken from that folder)', () => {
    const chunks = remote
      .names()
      .filter((n) => n.startsWith(`machines/${machineId(a)}/`) && n.endsWith('.jsonl.age'))
      .sort();
    expect(chunks.length).toBe(3);
    const kept = remote.read(chunks[1]);
    remote.remove(chunks[1]);
    try {
      // A recipient that has pulled nothing yet (a second machine holding B's age key) reads every chunk.
      const d = recipientLike(b);
      trusts(d, a, b);
      const r = sp('sp-sync', ['clone', remote.url, '--name', 'team', '--encrypt-to', recipients, '-q'], { home: d });
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      const [folder, chunk] = [chunks[0].slice(0, chunks[0].lastIndexOf('/')), chunks[0].slice(chunks[0].lastIndexOf('/') + 1)];
      expect(r.stderr).toMatch(new RegExp(`^sp-sync: team: ${folder}: ${chunk.replace(/[.]/g, '\\.')}: holds events 0–\\d+ but the next chunk starts at \\d+: chunks are missing or overlap; nothing taken from it\n$`));
      const cursors = sp('sp-sync', ['status', '--remotes', '--json'], { home: d }).stdout;
      expect(cursors).toContain('"cursors"');
      expect(cursors).not.toContain(machineId(a));
    } finally {
      remote.change(chunks[1], () => kept);
    }
  });

  it('unencrypted files on the encrypted remote are refused (exit 1, named, nothing taken)', () => {
    const intruder = 'm_0123456789abcdef';
    const line = JSON.stringify({ session: 'sess_intruder', seq: 0, ts: 1, agent: 'claude', actor: 'user', type: 'message.user', payload: { content: [] } });
    remote.change(`machines/${intruder}/sessions/sess_intruder/000000000000.jsonl`, () => Buffer.from(line + '\n'));
    const r = sp('sp-sync', ['pull', 'team'], { home: b });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`sp-sync: team: machines/${intruder}: holds unencrypted files on a remote configured for encryption; nothing taken`);
    expect(sp('sp-sync', ['ls', '--json', '--all'], { home: b }).stdout).not.toContain('sess_intruder');
  });

  it('a forged artifact (sealed to the public recipients, lying about its hash) is not taken', async () => {
    const { Encrypter } = await import('age-encryption');
    const e = new Encrypter();
    for (const r of readFileSync(recipients, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l.startsWith('age1'))) e.addRecipient(r);
    const claimed = createHash('sha256').update('the real file').digest('hex');
    const sealed = Buffer.from(await e.encrypt(Buffer.from(`sp-sealed-artifact sha256:${claimed}\nsomething else`)));
    const name = createHash('sha256').update(sealed).digest('hex');
    remote.change(`artifacts/${name}.age`, () => sealed);
    // A recipient that does not have the blob yet.
    const fresh = recipientLike(b);
    trusts(fresh, a, b);
    const r = sp('sp-sync', ['clone', remote.url, '--name', 'team', '--encrypt-to', recipients], { home: fresh });
    expect(r.stderr, r.stderr).toContain(`${name}.age: decrypts to bytes that do not hash to the sha256 it names (${claimed.slice(0, 12)}…); not taken`);
    expect(existsSync(join(fresh, 'store', 'artifacts', claimed))).toBe(false);
    expect(readdirSync(join(fresh, 'store', 'artifacts'))).toEqual([blobHex]);
  });

  it('a recipient whose signing key is not trusted pushes a forged continuation of the session: refused as an unknown signer', () => {
    // Mallory holds B's age key (so can read and write the remote) but signs with her own key.
    const mallory = recipientLike(b);
    const forged = `forged-${randomBytes(4).toString('hex')}`;
    ok(sp('sp-sync', ['ingest', '-q'], { home: mallory, input: said(forged, 2, 1_900_009_000) }));
    ok(sp('sp-sync', ['remote', 'add', 'team', remote.url, '--encrypt-to', recipients], { home: mallory }));
    ok(sp('sp-sync', ['push', 'team'], { home: mallory }));
    expect(remote.names()).toContain(`machines/${machineId(mallory)}/sessions/${session}/manifest.json.age`);
    const before = storedEvents(a);
    const r = sp('sp-sync', ['pull', 'team', '-q'], { home: a });
    expect(r.status).toBe(1);
    // (The intruder folder and the forged blob of the cases before are still on the remote, named on their own lines.)
    const lines = r.stderr.trim().split('\n').filter((l) => l.includes(machineId(mallory)));
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^sp-sync: team: machines/${machineId(mallory)}/sessions/${session}: signed by ed25519:[0-9a-f]{32}, a key this store does not trust; nothing taken\\. To trust it: sp-sync trust add \\S+ --name ${machineId(mallory)}$`),
    );
    expect(storedEvents(a)).toBe(before);
    expect(ok(sp('sp-sync', ['log', session], { home: a })).stdout).not.toContain(forged);
    expect(existsSync(join(a, 'store', 'origins', machineId(mallory)))).toBe(false);
  });
});

describe('configuring an encrypted remote', () => {
  it('a recipients file with a bad line is refused (file:line), nothing recorded', () => {
    const home = tempDir('sp-enc-cfg-');
    const file = join(tempDir('sp-enc-team-'), 'recipients.txt');
    const good = ok(sp('sp-sync', ['keygen', '--age'], { home })).stdout.trim();
    writeFileSync(file, `${good}\nage1notakey\n`);
    const r = sp('sp-sync', ['remote', 'add', 'team', `dir:${tempDir()}`, '--encrypt-to', file], { home });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`sp-sync: ${file}:2: not an age recipient (one age1… public key per line): "age1notakey"\n`);
    expect(existsSync(join(home, 'store', 'remotes.json'))).toBe(false);
    writeFileSync(file, '# nobody yet\n');
    const empty = sp('sp-sync', ['remote', 'add', 'team', `dir:${tempDir()}`, '--encrypt-to', file], { home });
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/no age recipient in the file/);
  });

  it('--no-encrypt is recorded and pushes plaintext; a plain remote config will not take sealed files', () => {
    const a = tempDir('sp-enc-cfg-');
    const b = tempDir('sp-enc-cfg-');
    const file = join(tempDir('sp-enc-team-'), 'recipients.txt');
    writeFileSync(file, ok(sp('sp-sync', ['keygen', '--age'], { home: a })).stdout);
    ok(sp('sp-sync', ['ingest', '-q'], { home: a, input: capture }));
    const plain = join(tempDir('sp-enc-plain-'), 'shared');
    ok(sp('sp-sync', ['remote', 'add', 'open', `dir:${plain}`, '--encrypt-to', file, '--no-encrypt'], { home: a }));
    const config = JSON.parse(readFileSync(join(a, 'store', 'remotes.json'), 'utf8')) as Record<string, { encrypt?: boolean }>;
    expect(config.open.encrypt).toBe(false);
    expect(ok(sp('sp-sync', ['remote', 'list'], { home: a })).stdout).toContain('not encrypted (--no-encrypt)');
    ok(sp('sp-sync', ['push', 'open'], { home: a }));
    expect(filesUnder(plain).some((p) => p.endsWith('000000000000.jsonl'))).toBe(true);
    // Sealed files pulled through a remote added without --encrypt-to: named, not taken.
    const sealed = join(tempDir('sp-enc-sealed-'), 'shared');
    ok(sp('sp-sync', ['remote', 'add', 'team', `dir:${sealed}`, '--encrypt-to', file], { home: a }));
    ok(sp('sp-sync', ['push', 'team'], { home: a }));
    const r = sp('sp-sync', ['clone', `dir:${sealed}`], { home: b });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`sp-sync: origin: machines/${machineId(a)}: holds encrypted files, but this remote is not configured for encryption`);
    expect(storedEvents(b)).toBe(0);
  });
});

describe('an interrupted encrypted push', () => {
  it('killed at random points, then run again, leaves contiguous chunks a recipient reads whole', async () => {
    const { spawn } = await import('node:child_process');
    const { syntheticChained } = await import('../../adapters/claude/synthetic.js');
    const { bin } = await import('../support/store.js');
    const a = tempDir('sp-enc-kill-');
    const b = tempDir('sp-enc-kill-');
    const shared = join(tempDir('sp-enc-kill-'), 'team');
    const events = [...syntheticChained({ events: 1500, sessions: 3, seed: 11 })];
    ok(sp('sp-sync', ['ingest', '-q'], { home: a, input: events.map((e) => JSON.stringify(e)).join('\n') + '\n' }));
    const file = join(tempDir('sp-enc-team-'), 'recipients.txt');
    writeFileSync(file, ok(sp('sp-sync', ['keygen', '--age'], { home: a })).stdout + ok(sp('sp-sync', ['keygen', '--age'], { home: b })).stdout);
    ok(sp('sp-sync', ['remote', 'add', 'team', `dir:${shared}`, '--encrypt-to', file], { home: a }));
    trusts(b, a);
    for (const delay of [700, 1600, 3000]) {
      await new Promise<void>((resolve) => {
        const child = spawn(process.execPath, [bin('sp-sync'), 'push', 'team', '-q'], { env: { ...process.env, SP_HOME: a, SP_PROGRESS: '0' }, stdio: 'ignore' });
        const timer = setTimeout(() => child.kill('SIGKILL'), delay);
        child.on('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    ok(sp('sp-sync', ['push', 'team'], { home: a }));
    expect(JSON.parse(ok(sp('sp-sync', ['push', 'team', '--json'], { home: a })).stdout).events).toBe(0);
    ok(sp('sp-sync', ['clone', `dir:${shared}`, '--name', 'team', '--encrypt-to', file], { home: b }));
    const sessions = [...new Set(events.map((e) => e.session))];
    expect(sessions).toHaveLength(3);
    for (const id of sessions) expect(ok(sp('sp-sync', ['log', id], { home: b })).stdout).toBe(ok(sp('sp-sync', ['log', id], { home: a })).stdout);
    // Whatever a killed push left (a temp file at worst) is ciphertext too.
    for (const path of filesUnder(shared)) {
      const bytes = readFileSync(path);
      expect(bytes.includes('"seq"'), path).toBe(false);
      expect(bytes.subarray(0, 21).toString(), path).toBe('age-encryption.org/v1');
    }
  }, 300_000);
});
