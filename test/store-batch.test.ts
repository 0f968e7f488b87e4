// Ingest commits every pending session together (one journal fsync, one index transaction): the
// store it builds is the one that committing each session alone builds, and one damaged session in
// a group is refused alone while the others of the same commit are stored.
import { describe, expect, it } from 'vitest';
import { appendFileSync, cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { capture, CORPUS, sp, tempDir } from './support/store.js';
import { trustedKeys, verifyStore } from '../lib/store/index.js';

/** Every session file of a store: logs and anchors as bytes, manifests without their time and signature. */
function storeContents(storeDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const sessions = join(storeDir, 'sessions');
  for (const id of readdirSync(sessions).sort()) {
    for (const file of readdirSync(join(sessions, id)).sort()) {
      const text = readFileSync(join(sessions, id, file), 'utf8');
      if (file !== 'manifest.json') out[`${id}/${file}`] = text;
      else {
        const { updated_at: _u, signature: _s, ...rest } = JSON.parse(text) as Record<string, unknown>;
        out[`${id}/${file}`] = JSON.stringify(rest);
      }
    }
  }
  return out;
}

describe('ingest in group commits', () => {
  it('builds the same logs, anchors, manifests and search results as committing each session alone', async () => {
    // Two real sessions, interleaved line by line, so commits hold several sessions at once.
    const streams = [capture('claude', CORPUS.claudeLong), capture('codex', CORPUS.codexLong)].map((t) => t.trim().split('\n'));
    const interleaved: string[] = [];
    for (let i = 0; i < Math.max(...streams.map((s) => s.length)); i++) for (const s of streams) if (i < s.length) interleaved.push(s[i]);
    const base = tempDir('sp-batch-');
    writeFileSync(join(base, 'in.ndjson'), interleaved.join('\n') + '\n');
    // One SP_HOME's keys and machine id for both stores, so the manifests can be compared.
    expect(sp('sp-sync', ['ingest', '-q', join(base, 'in.ndjson')], { home: join(base, 'a') }).status).toBe(0);
    const homeB = join(base, 'b');
    cpSync(join(base, 'a'), homeB, { recursive: true, filter: (src) => !src.startsWith(join(base, 'a', 'store')) });
    // The same sessions one ingest each: every commit holds one session (a session's commits end at
    // the same events either way: where they end shows in the manifest, e.g. the URI's title slug).
    streams.forEach((lines, i) => writeFileSync(join(base, `one-${i}.ndjson`), lines.join('\n') + '\n'));
    for (const i of streams.keys()) expect(sp('sp-sync', ['ingest', '-q', join(base, `one-${i}.ndjson`)], { home: homeB }).status).toBe(0);
    const a = storeContents(join(base, 'a', 'store'));
    const b = storeContents(join(homeB, 'store'));
    expect(Object.keys(a).length).toBeGreaterThanOrEqual(4);
    expect(b).toEqual(a);
    for (const home of [join(base, 'a'), homeB]) for (const r of await verifyStore(join(home, 'store'), trustedKeys(home))) expect(r.problems).toEqual([]);
    const search = (home: string) => sp('sp-sync', ['search', '--json', 'the'], { home }).stdout;
    const hits = search(homeB);
    expect(hits.trim().split('\n').length).toBeGreaterThan(1);
    expect(hits).toBe(search(join(base, 'a')));
  }, 240_000);

  it('refuses a damaged session alone; the other sessions of the same commit are stored', () => {
    const home = tempDir('sp-batch-');
    const claude = capture('claude', CORPUS.claudeLong).trim().split('\n');
    const codex = capture('codex', CORPUS.codexLong).trim().split('\n');
    const half = (lines: string[]) => lines.slice(0, Math.floor(lines.length / 2));
    writeFileSync(join(home, 'first.ndjson'), [...half(claude), ...half(codex)].join('\n') + '\n');
    expect(sp('sp-sync', ['ingest', '-q', join(home, 'first.ndjson')], { home }).status).toBe(0);
    const damagedId = (JSON.parse(claude[0]) as { session: string }).session;
    const otherId = (JSON.parse(codex[0]) as { session: string }).session;
    // Bytes past the signed end that no journaled append covers: the session is damaged.
    appendFileSync(join(home, 'store', 'sessions', damagedId, 'events.jsonl'), '{"not":"journaled"}\n');
    writeFileSync(join(home, 'all.ndjson'), [...claude, ...codex].join('\n') + '\n');
    const r = sp('sp-sync', ['ingest', '--json', join(home, 'all.ndjson')], { home });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/damaged/);
    const result = JSON.parse(r.stdout) as { added: number; rejected: number; sessions: Array<{ session: string; last_seq: number }> };
    const ofDamaged = [...claude, ...codex].filter((l) => (JSON.parse(l) as { session: string }).session === damagedId).length;
    expect(ofDamaged).toBeGreaterThan(0);
    expect(result.rejected).toBe(ofDamaged);
    expect(result.sessions.find((s) => s.session === otherId)?.last_seq).toBe(codex.length - 1);
    const ls = sp('sp-sync', ['ls', '--json'], { home }).stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; events: number });
    expect(ls.find((s) => s.id === otherId)?.events).toBe(codex.length);
  }, 120_000);
});
