// Forwarding: a push also carries the other machines' signed folders this store holds (its origin
// mirror, lib/store/origins.ts) to a remote that lacks them, so A → r1 → B → r2 → C reaches C.
//
// A forwarded folder is the origin's, unchanged: its segment lines and its signed manifest go to
// machines/<origin>/sessions/<id>/ exactly as the mirror holds them (on a plain tree the files end
// byte for byte equal to the mirror's; a sealed tree seals the same lines and manifest for its
// recipients). The forwarder signs nothing: C verifies the folder against the origin's key as if
// it came from the origin. Rules, per origin folder of a session:
// - the mirror must still verify with a key this store trusts (a signer no longer trusted is not forwarded);
// - the remote's copy must be a prefix of it (the same checksum at its last event): only the
//   missing events are appended, then the manifest written; a remote holding more events of that
//   machine, or other ones, is left as it is (never rewound, never overwritten);
// - with the same events, the manifest is replaced only when its receipts include all of the
//   remote's (a later acknowledgement), so an older manifest never replaces a newer one;
// - a folder pulled from an encrypted remote is forwarded only to encrypted remotes (never
//   downgraded to plaintext); a plaintext folder forwarded to an encrypted remote is sealed there
//   like the pusher's own files;
// - sessions push does not send (options.skip: stored unredacted without --allow-unredacted) are
//   not forwarded either: the redaction rule covers every event a push sends.
// The remote therefore holds each event once, under the machine that wrote it, however many
// machines forward it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDir, PRIVATE_FILE } from '../fs/private.js';
import { parseJsonObject } from '../core/json.js';
import { trustedKeys, type Store } from '../store/index.js';
import { firstIrregular, mirrorDir, mirroredOrigins, notPlainDir, readSignedFolder, SEGMENT, segmentName } from '../store/origins.js';
import type { RemoteTree } from './sealed.js';

/** In an origin mirror folder: present when the folder was pulled from an encrypted remote. */
export const SEALED_SOURCE = 'sealed-source';

/** Marks a mirror as pulled from an encrypted remote (kept for good: it is never forwarded in plaintext). */
export function markSealedSource(storeDir: string, machine: string, id: string): void {
  const path = join(mirrorDir(storeDir, machine, id), SEALED_SOURCE);
  if (!existsSync(path)) writeFileSync(path, 'pulled from an encrypted remote: forwarded only to encrypted remotes\n', { mode: PRIVATE_FILE });
}

export interface ForwardReport {
  /** Origin folders written to (events appended or a newer manifest). */
  folders: Array<{ machine: string; session: string; events: number }>;
  /** Origin folders not forwarded, and why (the remote holds more, differs, or it may not go there). */
  left: Array<{ machine: string; session: string; reason: string }>;
}

/** The lines of a verified mirror from `from` on (segment files: lines ending in \n). */
function* mirrorLines(dir: string, from: number, count: number): Generator<{ seq: number; text: string }> {
  for (let start = from - (from % SEGMENT); start < count; start += SEGMENT) {
    const bytes = readFileSync(join(dir, segmentName(start)), 'utf8');
    const lines = bytes.slice(0, -1).split('\n');
    for (let i = 0; i < lines.length; i++) if (start + i >= from && start + i < count) yield { seq: start + i, text: lines[i] };
  }
}

function receiptIds(manifest: unknown): Set<string> {
  const list = (manifest as { receipts?: unknown } | undefined)?.receipts;
  return new Set((Array.isArray(list) ? list : []).map((r) => `${String((r as { receipt_id?: unknown })?.receipt_id)}:${JSON.stringify((r as { signature?: unknown })?.signature ?? null)}`));
}

/**
 * Writes into the tree at `root` the origin folders the store mirrors and the tree lacks or holds
 * a shorter prefix of (see the top of this file). `encrypted`: the tree seals what it writes.
 */
export async function forwardTree(store: Store, root: string, tree: RemoteTree, options: { skip?: ReadonlySet<string>; encrypted: boolean }): Promise<ForwardReport> {
  const report: ForwardReport = { folders: [], left: [] };
  const machinesDir = join(root, 'machines');
  if (notPlainDir(machinesDir, true)) return report;
  const trusted = trustedKeys(store.home);
  for (const s of store.sessions({ all: true })) {
    if (options.skip?.has(s.id)) continue;
    for (const origin of mirroredOrigins(store.dir, s.id)) {
      if (origin === store.machine) continue;
      const leave = (reason: string) => report.left.push({ machine: origin, session: s.id, reason });
      const source = mirrorDir(store.dir, origin, s.id);
      if (!options.encrypted && existsSync(join(source, SEALED_SOURCE))) {
        leave('pulled from an encrypted remote: not forwarded to a plaintext one');
        continue;
      }
      const machineDir = join(machinesDir, origin);
      const dir = join(machineDir, 'sessions', s.id);
      // Already there (the usual case): the remote's manifest is the mirrored one; no need to
      // read and verify the whole mirror again.
      const mirrored = parseJsonObject(readFileSync(join(source, 'manifest.json'), 'utf8')).value;
      if (mirrored && notPlainDir(dir, false) === undefined) {
        const there = await tree.readManifest(dir).catch(() => undefined);
        if (there && JSON.stringify(there) === JSON.stringify(mirrored)) continue;
      }
      const read = readSignedFolder(source, origin, s.id, trusted);
      if (!read.ok) {
        leave(`the mirrored folder does not verify here (${read.reason})`);
        continue;
      }
      const count = read.manifest.event_count;
      const irregular = notPlainDir(machineDir, true) ?? notPlainDir(join(machineDir, 'sessions'), true) ?? firstIrregular(dir)?.reason;
      if (irregular) {
        leave(`the remote's folder ${irregular}`);
        continue;
      }
      const problem = await tree.machineProblem(machineDir);
      if (problem) {
        leave(problem);
        continue;
      }
      // How far the remote's copy goes (complete lines; a plain tree drops a torn last line of an
      // interrupted forward) and whether it is a prefix of the mirror.
      const segments = tree.segments(dir);
      const last = segments[segments.length - 1];
      let have = 0;
      let head: string | undefined;
      if (last) {
        const lines = await tree.ownLines(last);
        have = last.start + lines.length;
        if (lines.length > 0) head = parseJsonObject(lines[lines.length - 1]).value?.checksum as string | undefined;
      }
      if (have > count) {
        leave(`the remote holds ${have} events of it, more than the ${count} mirrored here (never rewound)`);
        continue;
      }
      if (have > 0) {
        let mine: string | undefined;
        for (const { text } of mirrorLines(source, have - 1, have)) mine = parseJsonObject(text).value?.checksum as string | undefined;
        if (mine === undefined || mine !== head) {
          leave(`the remote's copy differs from the mirrored one at seq ${have - 1}: left as it is`);
          continue;
        }
      }
      const published = await tree.readManifest(dir).catch(() => undefined);
      const publishedCount = (published as { event_count?: unknown } | undefined)?.event_count;
      if (typeof publishedCount === 'number' && publishedCount > count) {
        leave(`the remote's manifest covers ${publishedCount} events, more than the ${count} mirrored here (never rewound)`);
        continue;
      }
      let newerManifest = have < count || publishedCount !== count;
      if (!newerManifest && published) {
        const theirs = receiptIds(published);
        const ours = receiptIds(read.manifest);
        newerManifest = [...theirs].every((r) => ours.has(r)) && ours.size > theirs.size;
      }
      if (!newerManifest && published) continue; // the remote has this folder already
      let chunk = '';
      let chunkStart = -1;
      const flush = async () => {
        if (chunk) await tree.writeChunk(dir, chunkStart, chunk);
        chunk = '';
      };
      makePrivateDir(dir);
      // Chunks never cross a 512 boundary (a sealed tree names each by its first seq).
      for (const { seq, text } of mirrorLines(source, have, count)) {
        if (seq % SEGMENT === 0) await flush();
        if (!chunk) chunkStart = seq;
        chunk += text + '\n';
      }
      await flush();
      // The origin's signed manifest, its bytes unchanged, after its events.
      await tree.writeManifest(dir, read.manifestBytes.toString('utf8'));
      report.folders.push({ machine: origin, session: s.id, events: count - have });
    }
  }
  return report;
}

