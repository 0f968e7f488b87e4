// Handoff (seed §9.3): a `handoff` event in the stored session, a signed receipt (JSON) for audit
// and for the receiving side, and the manifest's current_owner moved to the receiving agent.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createFileAtomic } from '../atomic.js';
import { makePrivateDir, PRIVATE_FILE } from '../private.js';
import { UserError } from '../diagnostics.js';
import { signDocument } from './identity.js';
import type { Store } from './store.js';
import { RECEIPT_TYPE } from './verify.js';

export interface HandoffOptions {
  sourceSession: string;
  fromAgent: string;
  toAgent: string;
  /** The session id the receiving agent resumes (e.g. the materialized native session). */
  targetSessionId?: string;
  note?: string;
  /** What the receiving agent is expected to do (optional; kept in the event and the receipt). */
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
      ...(options.expect ? { expect: options.expect } : {}),
      event_seq: seq,
      event_checksum: after.head,
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
  return { receiptPath, receipt, seq };
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
