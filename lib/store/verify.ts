// Verifying what the store holds: each session's log (schema, seq, chain, anchors) against its
// signed manifest, its artifact blobs against their names, and handoff receipts against their signatures and the log they point into.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Verifier, type SessionReport } from '../core/verify.js';
import type { EventValidator } from '../core/schema.js';
import { fileLines } from '../core/lines.js';
import { parseJsonObject, isObject } from '../core/json.js';
import { checkSignature, type SignatureCheck } from './identity.js';
import { LOG_FILE, MANIFEST_FILE, readAnchors } from './log.js';
import { SESSION_ID_PATTERN } from './paths.js';
import { pendingAppend, readJournal, type JournalEntry } from './journal.js';
import { blobMatches, listArtifacts } from '../core/artifacts.js';
import { eventKey } from './derive.js';
import { inRanges, MACHINE_PATTERN, mirrorDir, mirroredEvents, mirroredOrigins, readSignedFolder, type OriginRecord } from './origins.js';
import type { SpEvent } from '../core/event.js';

export interface StoredSessionReport {
  session: string;
  ok: boolean;
  events: number;
  head?: string;
  signature: SignatureCheck;
  /** Everything wrong, first the log's first damage. */
  problems: string[];
  /** Notes that are not failures (an interrupted write past the acknowledged end). */
  notes: string[];
  /** The machines whose events the session holds (pulled), each checked against its own signed manifest in the mirror. */
  origins: Array<{ machine: string; key_id: string; events: number }>;
}

/**
 * Checks the `origins` a session manifest records against the store's origin mirror: each origin's
 * signed manifest verifies with a trusted key, is the one recorded (its hash), its chain ends at its
 * head, and every local seq attributed to it holds one of its events (same event key).
 */
function checkOrigins(storeDir: string, id: string, records: unknown, keysAt: Map<number, string>, trusted: Map<string, Buffer>, problems: string[]): StoredSessionReport['origins'] {
  const out: StoredSessionReport['origins'] = [];
  if (records === undefined) return out;
  if (!Array.isArray(records)) {
    problems.push(`${id}: the manifest's origins is not a list`);
    return out;
  }
  for (const r of records as OriginRecord[]) {
    let dir: string;
    try {
      dir = mirrorDir(storeDir, String(r?.machine), id);
    } catch {
      problems.push(`${id}: origin ${JSON.stringify(r?.machine)} is not a machine id`);
      continue;
    }
    const read = readSignedFolder(dir, r.machine, id, trusted);
    if (!read.ok) {
      problems.push(`${dir}: origin ${r.machine}: ${read.reason}`);
      continue;
    }
    if (read.keyId !== r.key_id) problems.push(`${dir}: origin ${r.machine} is signed by ${read.keyId}, the manifest records ${String(r.key_id)}`);
    if (read.manifestHash !== r.manifest_sha256) problems.push(`${dir}: origin ${r.machine}'s manifest is not the one the session manifest records (${String(r.manifest_sha256)})`);
    const theirs = new Set<string>();
    for (const e of mirroredEvents(storeDir, r.machine, id)) theirs.add(eventKey(e));
    let events = 0;
    for (const [a, b] of Array.isArray(r.seqs) ? r.seqs : []) {
      for (let seq = a; seq <= b; seq++) {
        events += 1;
        const key = keysAt.get(seq);
        if (key === undefined || !theirs.has(key)) {
          problems.push(`${id}: seq ${seq} is attributed to ${r.machine} but is not one of its signed events`);
          return out;
        }
      }
    }
    out.push({ machine: r.machine, key_id: read.keyId, events });
  }
  return out;
}

/** Verifies one stored session directory (sessions/<id>/). */
export async function verifySessionDir(dir: string, trusted: Map<string, Buffer>, validator?: EventValidator, journal?: JournalEntry[]): Promise<StoredSessionReport> {
  const id = dir.replace(/\/+$/, '').split('/').pop()!;
  const problems: string[] = [];
  const notes: string[] = [];
  const manifestPath = join(dir, MANIFEST_FILE);
  const logPath = join(dir, LOG_FILE);
  // The store's journal (signed entries only): an append in progress, or one a killed writer left.
  journal ??= readJournal(join(dir, '..', '..'), trusted);
  let manifest: Record<string, unknown> | undefined;
  if (!existsSync(manifestPath)) {
    // Only a journaled first append of a new session may be without a manifest, and only for the
    // bytes it journaled; a non-empty log without one had its manifest removed.
    const size = existsSync(logPath) ? statSync(logPath).size : 0;
    const first = pendingAppend(journal, id, 0);
    if (size === 0 || (first && size <= first.end)) {
      return { session: id, ok: true, events: 0, signature: { status: 'unsigned', message: 'not acknowledged yet' }, problems: [], origins: [], notes: [`an interrupted first write (${size} bytes journaled, no manifest yet; the next writer completes it or cuts it back)`] };
    }
    problems.push(`${manifestPath}: no manifest, but the log holds ${size} bytes that no journaled append covers (damaged at offset 0; sp doctor shows the repair)`);
  }
  else {
    manifest = parseJsonObject(readFileSync(manifestPath, 'utf8')).value;
    if (!manifest) problems.push(`${manifestPath}: not a JSON object`);
  }
  // Only the key that signed the session's manifest journals appends to it.
  const signer = isObject(manifest?.signature) ? manifest.signature.key_id : undefined;
  if (signer !== undefined) journal = journal.filter((e) => e.key_id === signer);
  if (manifest && validator) for (const issue of validator.validateManifest(manifest)) problems.push(`${manifestPath}: ${issue.path} ${issue.message}`);
  const signature: SignatureCheck = manifest ? checkSignature(manifest, trusted) : { status: 'unsigned', message: 'no manifest' };
  if (manifest && signature.status !== 'trusted') problems.push(`${manifestPath}: ${signature.message}`);
  if (manifest && manifest.session_id !== id) problems.push(`${manifestPath}: session_id ${String(manifest.session_id)} is not the folder's ${id}`);

  const limit = typeof manifest?.bytes === 'number' ? manifest.bytes : Infinity;
  const verifier = new Verifier({ validator });
  const ends = new Map<number, { end: number; checksum: string }>();
  const anchors = readAnchors(dir);
  const anchorSeqs = new Set(anchors.map((a) => a.seq));
  let foreign = 0;
  const records = manifest?.origins as OriginRecord[] | undefined;
  const attributed = Array.isArray(records) ? records.flatMap((r) => (Array.isArray(r?.seqs) ? r.seqs : [])) : [];
  const keysAt = new Map<number, string>();
  if (existsSync(logPath)) {
    for await (const line of fileLines(logPath)) {
      if (line.start >= limit) break;
      const parsed = parseJsonObject(line.text);
      if (!parsed.value) {
        verifier.badLine(logPath, line, parsed.reason!);
        continue;
      }
      const v = parsed.value;
      if (v.session !== id) foreign += 1;
      if (attributed.length > 0 && typeof v.seq === 'number' && inRanges(attributed, v.seq)) keysAt.set(v.seq, eventKey(v as unknown as SpEvent));
      if (anchorSeqs.has(v.seq as number)) ends.set(v.seq as number, { end: line.end, checksum: String(v.checksum) });
      verifier.push(logPath, line, v);
    }
    const size = statSync(logPath).size;
    if (size > limit) {
      const pending = pendingAppend(journal, id, limit);
      if (pending && size <= pending.end) notes.push(`${size - limit} bytes after the end the manifest acknowledges (a journaled append in progress or interrupted; the next writer completes it or cuts it back)`);
      else problems.push(`${logPath}: damaged at offset ${limit}: ${size - limit} bytes past the end the signed manifest acknowledges that no journaled append covers; not adopted (sp doctor shows the repair)`);
    }
    if (size < limit && limit !== Infinity) problems.push(`${logPath}: the log is shorter (${size} bytes) than its manifest says (${limit}): events were removed`);
  } else problems.push(`${logPath}: no log`);
  const report = verifier.finish();
  const s: SessionReport | undefined = report.sessions.find((r) => r.session === id) ?? report.sessions[0];
  for (const d of report.stream_damage) problems.push(`${d.where}: ${d.kind}: ${d.message}`);
  for (const r of report.sessions) if (!r.ok && r.damage) problems.push(`${r.damage.where}: ${r.damage.kind}${r.damage.seq !== undefined ? ` at seq ${r.damage.seq}` : ''}: ${r.damage.message}`);
  if (foreign > 0) problems.push(`${logPath}: ${foreign} event(s) of another session`);
  if (manifest && s) {
    if (manifest.head !== (s.head ?? null)) problems.push(`${manifestPath}: head ${String(manifest.head)} is not the log's last checksum ${s.head}`);
    if (manifest.event_count !== s.events) problems.push(`${manifestPath}: event_count ${String(manifest.event_count)} but the log holds ${s.events}`);
  }
  for (const a of anchors) {
    const at = ends.get(a.seq);
    if (a.offset > limit) continue;
    if (!at || at.end !== a.offset || at.checksum !== a.head) problems.push(`${join(dir, 'events.jsonl.ckpt')}: the anchor at seq ${a.seq} does not match the log`);
  }
  const origins = checkOrigins(join(dir, '..', '..'), id, manifest?.origins, keysAt, trusted, problems);
  return { session: id, ok: problems.length === 0, events: s?.events ?? 0, head: s?.head, signature, problems, notes, origins };
}

/** Verifies every session of a store. */
export async function verifyStore(storeDir: string, trusted: Map<string, Buffer>, validator?: EventValidator, only?: string[]): Promise<StoredSessionReport[]> {
  const root = join(storeDir, 'sessions');
  if (!existsSync(root)) return [];
  const ids = only ?? readdirSync(root).filter((id) => SESSION_ID_PATTERN.test(id)).sort();
  const journal = readJournal(storeDir, trusted);
  const out: StoredSessionReport[] = [];
  for (const id of ids) out.push(await verifySessionDir(join(root, id), trusted, validator, journal));
  return out;
}

export const RECEIPT_TYPE = 'sp.handoff-receipt';

/**
 * Whether the issuing machine's mirrored chain of the session holds the receipt's handoff event:
 * true, or why not; undefined when the store mirrors no chain of that machine (nothing to say).
 */
function handoffInMirror(storeDir: string, machine: string, session: string, receipt: Record<string, unknown>): true | string | undefined {
  if (!MACHINE_PATTERN.test(machine) || mirroredOrigins(storeDir, session).indexOf(machine) < 0) return undefined;
  const mirrored = parseJsonObject(readFileSync(join(mirrorDir(storeDir, machine, session), 'manifest.json'), 'utf8')).value;
  const signer = (receipt.signature as { key_id?: unknown } | undefined)?.key_id;
  const chainSigner = (mirrored?.signature as { key_id?: unknown } | undefined)?.key_id;
  if (signer !== chainSigner) return `the receipt is signed by ${String(signer)}, but machine ${machine}'s chain by ${String(chainSigner)}`;
  for (const e of mirroredEvents(storeDir, machine, session)) {
    const p = isObject(e.payload) ? e.payload : {};
    if (e.type !== 'handoff' || p.receipt_id !== receipt.receipt_id) continue;
    if (typeof receipt.event_key === 'string' && eventKey(e) !== receipt.event_key) return `the handoff event of ${String(receipt.receipt_id)} in machine ${machine}'s chain is not the one the receipt names (event key)`;
    if (p.from_agent !== receipt.from_agent || p.to_agent !== receipt.to_agent) return `the handoff event of ${String(receipt.receipt_id)} in machine ${machine}'s chain names other agents than the receipt`;
    return true;
  }
  return `machine ${machine}'s chain of ${session} holds no handoff event of ${String(receipt.receipt_id)}`;
}

export function isReceipt(value: unknown): value is Record<string, unknown> {
  return isObject(value) && value.type === RECEIPT_TYPE;
}

export function isManifest(value: unknown): value is Record<string, unknown> {
  return isObject(value) && typeof value.session_id === 'string' && 'event_count' in value && 'head' in value;
}

export interface ReceiptReport {
  receipt: string;
  ok: boolean;
  signature: SignatureCheck;
  problems: string[];
}

/**
 * Verifies a handoff receipt: its signature, and, when the store holds the session, that the
 * handoff event it names is there with the checksum it records.
 */
export async function verifyReceipt(receipt: Record<string, unknown>, trusted: Map<string, Buffer>, storeDir?: string): Promise<ReceiptReport> {
  const problems: string[] = [];
  const signature = checkSignature(receipt, trusted);
  if (signature.status !== 'trusted') problems.push(signature.message);
  for (const field of ['receipt_id', 'session_id', 'from_agent', 'to_agent', 'event_seq', 'event_checksum']) {
    if (receipt[field] === undefined) problems.push(`no ${field}`);
  }
  const session = String(receipt.session_id);
  const dir = storeDir && SESSION_ID_PATTERN.test(session) ? join(storeDir, 'sessions', session) : undefined;
  if (dir && existsSync(join(dir, LOG_FILE))) {
    let found: Record<string, unknown> | undefined;
    for await (const line of fileLines(join(dir, LOG_FILE))) {
      const v = parseJsonObject(line.text).value;
      if (v && v.seq === receipt.event_seq) {
        found = v;
        break;
      }
    }
    const p = isObject(found?.payload) ? found.payload : {};
    const here = found !== undefined && found.checksum === receipt.event_checksum && found.type === 'handoff' && p.receipt_id === receipt.receipt_id;
    // A receipt issued on another machine names seq and checksum of that machine's log; there the
    // handoff event is found in the issuer's verified chain (the origin mirror), by receipt id and key.
    const elsewhere = !here && typeof receipt.machine === 'string' ? handoffInMirror(storeDir!, receipt.machine, session, receipt) : undefined;
    if (elsewhere === true) {
      // found in the chain the issuing machine signed
    } else if (elsewhere !== undefined) problems.push(elsewhere);
    else if (!found) problems.push(`the store has no seq ${String(receipt.event_seq)} in ${session}`);
    else {
      if (found.checksum !== receipt.event_checksum) problems.push(`seq ${String(receipt.event_seq)} of ${session} has checksum ${String(found.checksum)}, the receipt records ${String(receipt.event_checksum)}`);
      if (found.type !== 'handoff' || p.receipt_id !== receipt.receipt_id) problems.push(`seq ${String(receipt.event_seq)} of ${session} is not this receipt's handoff event`);
    }
  }
  return { receipt: String(receipt.receipt_id), ok: problems.length === 0, signature, problems };
}

export interface StoredInputs {
  /** Session folders (sessions/<id>/) to verify against their manifests. */
  sessionDirs: string[];
  /** Store folders: every session in them. */
  storeDirs: string[];
  receipts: string[];
  /** What is left: NDJSON event streams. */
  streams: string[];
}

/**
 * Sorts sp-verify's file arguments: a store or session folder, a manifest.json (its session folder)
 * and a receipt (a .json file of that shape) are checked with their signatures; everything else is
 * an event stream.
 */
export function splitStoredInputs(files: readonly string[]): StoredInputs {
  const out: StoredInputs = { sessionDirs: [], storeDirs: [], receipts: [], streams: [] };
  for (const file of files) {
    let isDir = false;
    try {
      isDir = file !== '-' && statSync(file).isDirectory();
    } catch {
      // missing: the stream reader reports it
    }
    if (isDir) {
      if (existsSync(join(file, MANIFEST_FILE)) || existsSync(join(file, LOG_FILE))) out.sessionDirs.push(file);
      else out.storeDirs.push(file);
      continue;
    }
    if (file.endsWith('.json') && existsSync(file) && statSync(file).size < 1 << 20) {
      const value = parseJsonObject(readFileSync(file, 'utf8')).value;
      if (isReceipt(value)) {
        out.receipts.push(file);
        continue;
      }
      if (isManifest(value)) {
        out.sessionDirs.push(join(file, '..'));
        continue;
      }
    }
    out.streams.push(file);
  }
  return out;
}

export interface StoredVerifyReport {
  ok: boolean;
  stored: StoredSessionReport[];
  receipts: ReceiptReport[];
  /** Per store directory: its artifacts/ blobs checked against their names. */
  artifacts: ArtifactsReport[];
}

export interface ArtifactsReport {
  store: string;
  ok: boolean;
  blobs: number;
  problems: string[];
}

/** Checks every blob in a store's artifacts/ hashes to its name. */
export function verifyArtifacts(storeDir: string): ArtifactsReport {
  const dir = join(storeDir, 'artifacts');
  const blobs = listArtifacts(dir);
  const problems = blobs.filter((hex) => !blobMatches(join(dir, hex), hex)).map((hex) => `${join(dir, hex)}: the bytes do not hash to the name (changed)`);
  return { store: storeDir, ok: problems.length === 0, blobs: blobs.length, problems };
}

/** Verifies stored sessions and receipts; `storeDir` is where receipts' sessions are looked up. */
export async function verifyStoredInputs(inputs: StoredInputs, trusted: Map<string, Buffer>, validator?: EventValidator, storeDir?: string): Promise<StoredVerifyReport> {
  const stored: StoredSessionReport[] = [];
  for (const dir of inputs.storeDirs) stored.push(...(await verifyStore(dir, trusted, validator)));
  for (const dir of inputs.sessionDirs) stored.push(await verifySessionDir(dir, trusted, validator));
  const receipts: ReceiptReport[] = [];
  for (const file of inputs.receipts) {
    const value = parseJsonObject(readFileSync(file, 'utf8')).value;
    if (!value) {
      receipts.push({ receipt: file, ok: false, signature: { status: 'unsigned', message: 'not JSON' }, problems: [`${file}: not a JSON object`] });
      continue;
    }
    const r = await verifyReceipt(value, trusted, storeDir);
    receipts.push({ ...r, problems: r.problems.map((p) => `${file}: ${p}`) });
  }
  const artifacts = inputs.storeDirs.map(verifyArtifacts);
  return { ok: stored.every((s) => s.ok) && receipts.every((r) => r.ok) && artifacts.every((a) => a.ok), stored, receipts, artifacts };
}

/** `<name> <key id>` for a signer (the name from `names`, e.g. trust.ts signerNames), or the key id alone. */
function signerLabel(keyId: string | undefined, names?: Map<string, string>): string {
  const name = keyId ? names?.get(keyId) : undefined;
  return name ? `${name} ${keyId}` : String(keyId);
}

export function formatStoredReport(report: StoredVerifyReport, names?: Map<string, string>): string {
  const out: string[] = [];
  for (const s of report.stored) {
    const signers = [signerLabel(s.signature.key_id, names), ...s.origins.map((o) => `${signerLabel(o.key_id, names)} (${o.events} events from ${o.machine})`)];
    if (s.ok) out.push(`ok      ${s.session} (stored, ${s.events} events, head ${s.head}; signed by ${signers.join(', ')})`);
    else out.push(`FAILED  ${s.session} (stored): ${s.problems.join('; ')}`);
    for (const n of s.notes) out.push(`        ${s.session}: ${n}`);
  }
  for (const a of report.artifacts) {
    if (a.ok) {
      if (a.blobs > 0) out.push(`ok      ${a.store} artifacts (${a.blobs} blob${a.blobs === 1 ? '' : 's'})`);
    } else out.push(`FAILED  ${a.store} artifacts: ${a.problems.join('; ')}`);
  }
  for (const r of report.receipts) {
    if (r.ok) out.push(`ok      receipt ${r.receipt} (${r.signature.message})`);
    else out.push(`FAILED  receipt ${r.receipt}: ${r.problems.join('; ')}`);
  }
  return out.length ? out.join('\n') + '\n' : '';
}
