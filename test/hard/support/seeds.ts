// The good inputs the bad ones are made from: for every adapter in adapters/index.ts, a real session
// file from fixtures/<agent>/ that sp-capture reads cleanly (and its SQLite database, if it keeps
// sessions in one); and a canonical stream captured from one of them. A new adapter with fixtures
// is covered without a change here.
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adapters } from '../../../adapters/index.js';
import type { SeedKind } from './cases.js';
import { ROOT, runBin } from './harness.js';

export interface NativeSeed {
  agent: string;
  /** A session file `sp-capture <agent> --path` reads with exit 0 and no diagnostics. */
  file?: { path: string; kind: SeedKind; events: number };
  /** A SQLite database the adapter reads sessions from. */
  db?: string;
  /** Why the adapter has no file seed. */
  skip?: string;
}

const SKIP_NAMES = /^(README|LICENSE|scenarios?\.json$)|\.LICENSE$|\.(md|txt|summary\.json|ndjson)$/i;

function filesOf(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.name === 'expected') continue;
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile() && !SKIP_NAMES.test(entry.name)) out.push(p);
    }
  };
  try {
    walk(dir);
  } catch {
    // no fixtures for this agent
  }
  return out;
}

function head(path: string, n: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    return buf.subarray(0, readSync(fd, buf, 0, n, 0));
  } finally {
    closeSync(fd);
  }
}

export const isSqlite = (path: string) => head(path, 16).toString('latin1') === 'SQLite format 3\u0000';

function kindOf(path: string): SeedKind {
  const first = head(path, 1 << 16).toString('utf8').split('\n')[0];
  try {
    JSON.parse(first);
    return 'lines';
  } catch {
    return 'json';
  }
}

/** Seeds per adapter; capture runs on a few candidates, smallest first (corpus recordings before public fixtures). */
export async function nativeSeeds(): Promise<NativeSeed[]> {
  // Every test file of one run needs them: the first worker to find them keeps them for the others.
  const cache = join(tmpdir(), `sp-hard-seeds-${process.ppid}.json`);
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8')) as NativeSeed[];
  const seeds = await findSeeds();
  writeFileSync(cache, JSON.stringify(seeds));
  return seeds;
}

async function findSeeds(): Promise<NativeSeed[]> {
  const out: NativeSeed[] = [];
  await Promise.all(
    Object.keys(adapters)
      .sort()
      .map(async (agent) => {
        const files = filesOf(join(ROOT, 'fixtures', agent)).map((path) => ({ path, size: statSync(path).size }));
        const seed: NativeSeed = { agent };
        const db = files.filter((f) => isSqlite(f.path)).sort((a, b) => a.size - b.size)[0];
        if (db) seed.db = db.path;
        const candidates = files
          .filter((f) => /\.jsonl?$/.test(f.path) && !isSqlite(f.path) && f.size >= 1024 && f.size <= 400_000)
          .sort((a, b) => Number(b.path.includes('/corpus/')) - Number(a.path.includes('/corpus/')) || a.size - b.size);
        for (const { path } of candidates.slice(0, 6)) {
          const run = await runBin('sp-capture', [agent, '--path', path]);
          const events = run.stdout.toString('utf8').split('\n').filter(Boolean).length;
          if (run.code === 0 && run.stderr === '' && events >= 4) {
            seed.file = { path, kind: kindOf(path), events };
            break;
          }
        }
        if (!seed.file) seed.skip = candidates.length === 0 ? `no session file under fixtures/${agent}/` : `none of fixtures/${agent}/'s files captured cleanly`;
        out.push(seed);
      }),
  );
  return out.sort((a, b) => a.agent.localeCompare(b.agent));
}

/** Agents sp-materialize can write. */
export const writers = (): string[] => Object.keys(adapters).filter((id) => adapters[id].materialize).sort();

/** The flags sp-materialize needs for a writer: an experimental one (Cursor) writes only with --experimental. */
export const writerFlags = (agent: string): string[] => (adapters[agent].capabilities.experimental ? ['--experimental'] : []);

/** A canonical stream to damage: the capture of the Claude corpus session S1 (any seed if Claude has none). */
export async function canonicalSeed(seeds: NativeSeed[]): Promise<Buffer> {
  const seed = seeds.find((s) => s.agent === 'claude' && s.file) ?? seeds.find((s) => s.file);
  if (!seed?.file) throw new Error('no adapter has a file seed to capture');
  const run = await runBin('sp-capture', [seed.agent, '--path', seed.file.path]);
  if (run.code !== 0) throw new Error(`capturing the canonical seed failed: ${run.stderr}`);
  return run.stdout;
}
