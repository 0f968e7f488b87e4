// Handoff (seed §9.3): a `handoff` event in the stored session, a signed receipt (JSON) for audit
// and for the receiving side, and the manifest's current_owner moved to the receiving agent.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createFileAtomic } from '../fs/atomic.js';
import { makePrivateDir, PRIVATE_FILE } from '../fs/private.js';
import { UserError } from '../cli/diagnostics.js';
import { signDocument } from './identity.js';
import type { Store } from './store.js';
import { RECEIPT_TYPE } from './verify.js';
import { eventKey } from './derive.js';
import { convergedSummary } from './converge.js';

export interface HandoffOptions {
  sourceSession: string;
  fromAgent: string;
  toAgent: string;
  /** The session id the receiving agent resumes (e.g. the materialized native session). */
  targetSessionId?: string;
  note?: string;
  /** What the handing side expects the receiving one to do (`--expect`); the receiver acknowledges it with `sp-sync ack`. */
  expect?: string;
}

export interface HandoffResult {
  receiptPath: string;
  receipt: Record<string, unknown>;
  seq: number;
}

export function recordHandoff(store: Store, options: HandoffOptions): HandoffResult {
  const summary = store.session(options.sourceSession);
  if (!summary || summary.events === 0) throw new UserError(`no stored session ${options.sourceSession}`, store.dir);
  const ts = Date.now() / 1000;
  const receiptId =
    'rcpt_' + createHash('sha256').update(`sp-handoff\0${options.sourceSession}\0${summary.events}\0${summary.head}\0${options.toAgent}\0${ts}`).digest('hex').slice(0, 24);
  const payload: Record<string, unknown> = { from_agent: options.fromAgent, to_agent: options.toAgent, receipt_id: receiptId };
  if (options.targetSessionId) payload.target_session = options.targetSessionId;
  if (options.note) payload.note = options.note;
  if (options.expect) payload.expect = options.expect;
  const result = store.append(options.sourceSession, [
    { session: options.sourceSession, seq: summary.events, ts, agent: options.fromAgent, actor: 'system', type: 'handoff', payload },
  ]);
  const seq = result.seqs[0];
  const after = store.session(options.sourceSession)!;
  const event = store.eventAt(options.sourceSession, seq);
  const manifest = store.manifest(options.sourceSession);
  const receipt = signDocument(
    {
      type: RECEIPT_TYPE,
      version: 1,
      receipt_id: receiptId,
      session_id: options.sourceSession,
      session_uri: manifest?.session_uri ?? null,
      from_agent: options.fromAgent,
      to_agent: options.toAgent,
      target_session: options.targetSessionId ?? null,
      note: options.note ?? null,
      expect: options.expect ?? null,
      event_seq: seq,
      event_checksum: after.head,
      // The event's key names it on every machine (its seq and checksum are this store's).
      event_key: event ? eventKey(event) : null,
      issued_at: ts,
      machine: store.machine,
    },
    store.signer(),
  );
  const receiptPath = join(store.dir, 'receipts', `${receiptId}.json`);
  makePrivateDir(join(store.dir, 'receipts'));
  createFileAtomic(receiptPath, [JSON.stringify(receipt, null, 2) + '\n'], PRIVATE_FILE);
  store.updateManifest(options.sourceSession, (m) => {
    m.current_owner = { ...m.current_owner, agent: options.toAgent, granted_at: ts, receipt: receiptId };
  });
  refreshConverged(store, options.sourceSession);
  return { receiptPath, receipt, seq };
}

/**
 * Signs the merged view's event count, head, owner and owner history (lib/store/converge.ts) into
 * the local manifest of a session other machines wrote to; a session only this store wrote to keeps
 * the owner its own log gives.
 */
export function refreshConverged(store: Store, id: string): void {
  if (!store.manifest(id)) return;
  const view = convergedSummary(store, id);
  if (view.local) return;
  const last = view.owner_history[view.owner_history.length - 1];
  store.updateManifest(id, (m) => {
    m.converged = { event_count: view.event_count, head: view.head, machines: view.machines };
    m.current_owner = { agent: view.owner, ...(last?.granted_at !== undefined ? { granted_at: last.granted_at } : {}), ...(last?.receipt ? { receipt: last.receipt } : {}) };
    m.owner_history = view.owner_history;
    m.deleted = m.deleted || view.deleted;
  });
}

/**
 * `sp-sync ack RECEIPT`: the receiving side acknowledges a handoff (and its expectation) with a
 * `handoff.ack` event in its own chain of the session, which travels back like any event. The
 * receipt must verify with a trusted key and its handoff must be in the store.
 */
export async function recordAck(store: Store, receipt: Record<string, unknown>, note?: string): Promise<{ seq: number; session: string }> {
  const { checkSignature, trustedKeys } = await import('./identity.js');
  const check = checkSignature(receipt, trustedKeys(store.home));
  if (check.status !== 'trusted') throw new UserError(`the receipt does not verify: ${check.message}`);
  const session = typeof receipt.session_id === 'string' ? receipt.session_id : '';
  const summary = session ? store.session(session) : undefined;
  if (!summary || summary.events === 0) throw new UserError(`the receipt's session ${JSON.stringify(receipt.session_id)} is not in the store (sp-sync pull first)`, store.dir);
  const payload: Record<string, unknown> = { receipt_id: receipt.receipt_id, from_agent: receipt.from_agent, to_agent: receipt.to_agent, machine: store.machine, receipt_machine: receipt.machine ?? null };
  if (typeof receipt.expect === 'string') payload.expect = receipt.expect;
  if (note) payload.note = note;
  const agent = typeof receipt.to_agent === 'string' && receipt.to_agent !== '' ? receipt.to_agent.slice(0, 64) : 'sp';
  const result = store.append(session, [{ session, seq: summary.events, ts: Date.now() / 1000, agent, actor: 'system', type: 'handoff.ack', payload }]);
  if (result.seqs.length === 0) throw new UserError(`receipt ${String(receipt.receipt_id)} is acknowledged already by this machine`);
  refreshConverged(store, session);
  return { seq: result.seqs[0], session };
}

export interface StoredHandoffOptions extends Omit<HandoffOptions, 'fromAgent'> {
  /** `--store DIR`; without it the default store, and only when it holds the session. */
  store?: string;
  /** The agent handing over; default: the session's current owner (else its agent). */
  fromAgent?: string;
}

/**
 * For writers (sp-materialize): records the handoff when the source session is in the store.
 * Returns undefined when it is not (nothing to record); a UserError when --store was given and
 * the session is not in it.
 */
export async function recordHandoffIfStored(options: StoredHandoffOptions): Promise<HandoffResult | undefined> {
  const { Store } = await import('./store.js');
  const { resolveStoreDir } = await import('./paths.js');
  const { existsSync } = await import('node:fs');
  const { MANIFEST_FILE } = await import('./log.js');
  const dir = resolveStoreDir(options.store);
  const stored = existsSync(join(dir, 'sessions', options.sourceSession, MANIFEST_FILE));
  if (!stored) {
    if (options.store !== undefined) throw new UserError(`session ${options.sourceSession} is not in the store; no handoff recorded`, dir);
    return undefined;
  }
  const store = Store.open(dir);
  try {
    const summary = store.session(options.sourceSession);
    const fromAgent = options.fromAgent ?? summary?.owner ?? summary?.agent ?? 'unknown';
    return recordHandoff(store, { ...options, fromAgent });
  } finally {
    store.close();
  }
}
