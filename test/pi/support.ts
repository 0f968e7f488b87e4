// The Pi fixtures (fixtures/pi/) and helpers shared by the Pi tests.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { SpEvent } from '../../lib/core/event.js';
import { Chainer } from '../../lib/core/chain.js';
import { canonicalize } from '../../lib/core/jcs.js';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const PI = `${ROOT}fixtures/pi/`;
const SESSIONS = (scenario: string) => `${PI}corpus/${scenario}/agent/sessions/--home-carol-acme-api--/`;
export const S1 = `${SESSIONS('S1-feature')}2026-11-30T05-01-52-356Z_01a22ad4-b363-77ef-ab50-931c39c72539.jsonl`;
export const S2 = `${SESSIONS('S2-debug')}2026-11-30T05-02-18-208Z_01a22ad5-1860-75b1-a6ae-a6566d610280.jsonl`;
export const S3 = `${SESSIONS('S3-long')}2026-11-30T05-03-28-829Z_01a22ad6-2c3b-714c-9526-cda55a420afd.jsonl`;
const MONO = `${PI}public/pi-mono/packages/coding-agent/test/fixtures/`;
/** v1, 2.4 MB: two compactions by index, bashExecution, aborted turns. */
export const BEFORE_COMPACTION = `${MONO}before-compaction.jsonl`;
/** v1, 1 MB: provider switch, openai-responses tool ids, 103 thinking_level_change. */
export const LARGE_SESSION = `${MONO}large-session.jsonl`;
const STAGE0 = `${PI}public/agent-sessions/Resources/Fixtures/stage0/agents/`;
/** v3 from 0.74+: two compactions keeping from the root. */
export const STAGE0_PI = `${STAGE0}pi/small.jsonl`;
/** A Pi-like v3 writer: parents that are not entries, custom / custom_message, string tool results. */
export const OPENCLAW = `${STAGE0}openclaw/large.jsonl`;

export const CORPUS = [S1, S2, S3];
export const ALL = [S1, S2, S3, STAGE0_PI, OPENCLAW, LARGE_SESSION, BEFORE_COMPACTION];

export function name(path: string): string {
  return relative(PI, path);
}

/** A short name for golden files: the scenario, or the upstream project and file. */
export function short(path: string): string {
  const n = name(path);
  const scenario = /^corpus\/([^/]+)\//.exec(n);
  if (scenario) return scenario[1];
  if (n.includes('pi-mono')) return `pi-mono-${n.split('/').pop()!.replace(/\.jsonl$/, '')}`;
  const parts = n.replace(/\.jsonl$/, '').split('/');
  return `stage0-${parts[parts.length - 2]}-${parts[parts.length - 1]}`;
}

/** Pi's own parse: JSON lines, bad ones skipped. */
export function readEntries(path: string): Array<Record<string, any>> {
  const out: Array<Record<string, any>> = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // skipped, as the client does
    }
  }
  return out;
}

/** The chained NDJSON a capture prints, with the machine-specific source path made relative. */
export function goldenText(events: SpEvent[]): string {
  const chainer = new Chainer();
  return (
    events
      .map((e) => {
        if (e.type !== 'session.start' || typeof e.payload.source_path !== 'string') return e;
        return { ...e, payload: { ...e.payload, source_path: relative(ROOT, e.payload.source_path) } };
      })
      .map((e) => canonicalize(chainer.chain(e)))
      .join('\n') + '\n'
  );
}

/**
 * The client's in-memory v1 → v2 migration (docs/formats/pi.md §8), for expectations about v1 files:
 * ids by position, each entry the child of the one before, compaction indices made ids.
 */
export function migrateV1(entries: Array<Record<string, any>>): Array<Record<string, any>> {
  if (entries[0]?.type !== 'session' || entries[0].version !== undefined) return entries;
  return entries.map((e, i) => {
    if (i === 0) return { ...e, version: 3 };
    const out: Record<string, any> = { ...e, id: `#${i}`, parentId: i > 1 ? `#${i - 1}` : null };
    if (e.type === 'compaction' && typeof e.firstKeptEntryIndex === 'number') out.firstKeptEntryId = `#${e.firstKeptEntryIndex}`;
    return out;
  });
}

/** The path root → leaf through `parentId`, as the client walks it (leaf = the last entry). */
export function activePath(entries: Array<Record<string, any>>): Array<Record<string, any>> {
  const body = migrateV1(entries).filter((e) => e.type !== 'session');
  const byId = new Map(body.map((e) => [e.id, e]));
  const path: Array<Record<string, any>> = [];
  for (let at: Record<string, any> | undefined = body[body.length - 1]; at; at = at.parentId ? byId.get(at.parentId) : undefined) {
    path.unshift(at);
    if (path.length > body.length) throw new Error('parent cycle');
  }
  return path;
}
