// Content-addressed artifacts in the store: `sp-sync ingest --artifacts DIR` keeps the image blobs
// a capture wrote (hash-checked, once), `sp-verify --store` catches a changed blob, and push/pull
// through a git remote and a plain directory carry the blobs to another SP_HOME.
import { describe, expect, it, beforeAll, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { CORPUS, parseLines, root, sp, tempDir } from './support/store.js';

vi.setConfig({ testTimeout: 180_000 });

let blobsDir: string;
let events: string;
let refs: string[];

beforeAll(() => {
  blobsDir = tempDir('sp-blobs-');
  const r = sp('sp-capture', ['claude', '--path', join(root, CORPUS.claudeDebug), '--artifacts', blobsDir], { home: tempDir() });
  expect(r.status, r.stderr).toBe(0);
  events = r.stdout;
  refs = [...new Set(events.match(/"artifact":"sha256:[0-9a-f]{64}"/g)?.map((m) => m.slice('"artifact":"'.length, -1)) ?? [])];
}, 60_000);

function storeBlobs(home: string): string[] {
  const dir = join(home, 'store', 'artifacts');
  return existsSync(dir) ? readdirSync(dir).filter((n) => /^[0-9a-f]{64}$/.test(n)).sort() : [];
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

describe('sp-sync ingest --artifacts', () => {
  it('the fixture references an image blob the capture wrote', () => {
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(existsSync(join(blobsDir, ref.slice(7)))).toBe(true);
  });

  it('stores each referenced blob once, under its hash; again adds nothing', () => {
    const home = tempDir();
    const first = sp('sp-sync', ['ingest', '--artifacts', blobsDir], { home, input: events });
    expect(first.status, first.stderr).toBe(0);
    const stored = storeBlobs(home);
    expect(stored).toEqual(refs.map((r) => r.slice(7)).sort());
    for (const hex of stored) expect(sha256(join(home, 'store', 'artifacts', hex))).toBe(hex);
    const inodes = stored.map((hex) => statSync(join(home, 'store', 'artifacts', hex)).ino);
    const again = sp('sp-sync', ['ingest', '--json', '--artifacts', blobsDir], { home, input: events });
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).added).toBe(0);
    expect(storeBlobs(home)).toEqual(stored);
    // Not rewritten: the same files.
    expect(stored.map((hex) => statSync(join(home, 'store', 'artifacts', hex)).ino)).toEqual(inodes);
    expect(sp('sp-verify', ['--store', join(home, 'store')], { home }).status).toBe(0);
  });

  it('without --artifacts stores no blobs', () => {
    const home = tempDir();
    expect(sp('sp-sync', ['ingest'], { home, input: events }).status).toBe(0);
    expect(storeBlobs(home)).toEqual([]);
  });

  it('a referenced blob missing from DIR is a warning, not a failure', () => {
    const home = tempDir();
    const empty = tempDir('sp-noblobs-');
    const r = sp('sp-sync', ['ingest', '--artifacts', empty], { home, input: events });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`sp-sync: ${empty}: artifact ${refs[0]} referenced by `);
    expect(r.stderr).toMatch(/ seq \d+ is not there/);
    expect(storeBlobs(home)).toEqual([]);
  });

  it('a blob whose bytes do not match its name is not stored', () => {
    const home = tempDir();
    const bad = tempDir('sp-badblobs-');
    writeFileSync(join(bad, refs[0].slice(7)), 'not the image');
    const r = sp('sp-sync', ['ingest', '--artifacts', bad], { home, input: events });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('does not hash to its name');
    expect(storeBlobs(home)).toEqual([]);
  });

  it('sp-verify --store names a changed blob and exits 1', () => {
    const home = tempDir();
    expect(sp('sp-sync', ['ingest', '--artifacts', blobsDir], { home, input: events }).status).toBe(0);
    const blob = join(home, 'store', 'artifacts', refs[0].slice(7));
    rmSync(blob);
    writeFileSync(blob, 'tampered');
    const r = sp('sp-verify', ['--store', join(home, 'store')], { home });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(blob);
  });
});

describe('push and pull carry artifacts', () => {
  function pushThenPull(remoteArgs: string[]): void {
    const a = tempDir('sp-a-');
    const b = tempDir('sp-b-');
    expect(sp('sp-sync', ['ingest', '--artifacts', blobsDir], { home: a, input: events }).status).toBe(0);
    expect(sp('sp-sync', ['remote', 'add', 'origin', ...remoteArgs], { home: a }).status).toBe(0);
    const pushed = sp('sp-sync', ['push', '--json'], { home: a });
    expect(pushed.status, pushed.stderr).toBe(0);
    expect(JSON.parse(pushed.stdout).artifacts).toBe(refs.length);
    // A second push has nothing new to write.
    expect(JSON.parse(sp('sp-sync', ['push', '--json'], { home: a }).stdout).artifacts).toBe(0);
    // b takes only events signed by keys it trusts: a's, explicitly.
    expect(sp('sp-sync', ['trust', 'add', join(a, 'keys', 'id_ed25519.pub'), '--name', 'a'], { home: b }).status).toBe(0);
    const cloned = sp('sp-sync', ['clone', '--json', ...remoteArgs], { home: b });
    expect(cloned.status, cloned.stderr).toBe(0);
    expect(JSON.parse(cloned.stdout).artifacts).toBe(refs.length);
    expect(storeBlobs(b)).toEqual(storeBlobs(a));
    for (const hex of storeBlobs(b)) expect(sha256(join(b, 'store', 'artifacts', hex))).toBe(hex);
    expect(sp('sp-verify', ['--store', join(b, 'store')], { home: b }).status).toBe(0);
    const again = sp('sp-sync', ['pull', '--json'], { home: b });
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).artifacts).toBe(0);
  }

  it('through a local bare git repo', () => {
    const bare = join(tempDir('sp-bare-'), 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', bare]);
    pushThenPull([bare]);
    const tree = execFileSync('git', ['-C', bare, 'ls-tree', '-r', '--name-only', 'main'], { encoding: 'utf8' });
    for (const ref of refs) expect(tree).toContain(`artifacts/${ref.slice(7)}`);
  });

  it('through a plain directory', () => {
    const dir = join(tempDir('sp-dirremote-'), 'remote');
    pushThenPull([`dir:${dir}`]);
    expect(readdirSync(join(dir, 'artifacts')).sort()).toEqual(refs.map((r) => r.slice(7)).sort());
  });
});
