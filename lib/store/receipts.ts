// Handoff receipts that travel (docs/design.md "Receipts and acknowledgements"): a machine
// publishes the receipts it issued for a session inside its signed folder manifest; a puller keeps
// each one whose signature verifies with a trusted key, the publisher's own, and that names the
// publisher and the session it came with. Receipt files are named by their id, so the id is checked
// against a strict pattern before it becomes a file name.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileAtomic } from '../fs/atomic.js';
import { isObject, parseJsonObject } from '../core/json.js';
import { makePrivateDir, PRIVATE_FILE } from '../fs/private.js';
import { checkSignature } from './identity.js';
import { RECEIPT_TYPE } from './verify.js';

export const RECEIPT_ID_PATTERN = /^rcpt_[0-9a-f]{24}$/;
/** More receipts than this in one published manifest are not read (a manifest is capped at 1 MB anyway). */
const MAX_RECEIPTS = 1000;

export function receiptsDir(storeDir: string): string {
  return join(storeDir, 'receipts');
}

/** Every receipt file of a store as JSON (unreadable or foreign files skipped), by receipt id. */
export function storedReceipts(storeDir: string): Array<Record<string, unknown>> {
  const dir = receiptsDir(storeDir);
  if (!existsSync(dir)) return [];
  const out: Array<Record<string, unknown>> = [];
  for (const name of readdirSync(dir).sort()) {
    if (!/^rcpt_[0-9a-f]{24}\.json$/.test(name)) continue;
    const value = parseJsonObject(readFileSync(join(dir, name), 'utf8')).value;
    if (isObject(value) && value.type === RECEIPT_TYPE) out.push(value);
  }
  return out;
}

/** The receipts `machine` issued for session `id`, sorted by id (what that machine publishes with the session). */
export function receiptsIssuedBy(storeDir: string, machine: string, id: string): Array<Record<string, unknown>> {
  return storedReceipts(storeDir).filter((r) => r.session_id === id && r.machine === machine);
}

/** One receipt's id, or undefined when it is not one a store may name a file after. */
export function receiptIdOf(receipt: Record<string, unknown>): string | undefined {
  return typeof receipt.receipt_id === 'string' && RECEIPT_ID_PATTERN.test(receipt.receipt_id) ? receipt.receipt_id : undefined;
}

/**
 * Keeps the receipts a pulled manifest carries: each must be a receipt, signed by `keyId` (the key
 * that signed the folder) and trusted, and name `machine` and session `id`. Returns how many were new
 * and why the others were not taken.
 */
export function importReceipts(storeDir: string, value: unknown, machine: string, id: string, keyId: string, trusted: Map<string, Buffer>): { added: number; refused: string[] } {
  const refused: string[] = [];
  let added = 0;
  if (value === undefined) return { added, refused };
  if (!Array.isArray(value)) return { added, refused: ['"receipts" is not a list'] };
  for (const receipt of value.slice(0, MAX_RECEIPTS)) {
    if (!isObject(receipt) || receipt.type !== RECEIPT_TYPE) {
      refused.push('an entry of "receipts" is not a handoff receipt');
      continue;
    }
    const rid = receiptIdOf(receipt);
    if (!rid) {
      refused.push(`receipt id ${JSON.stringify(receipt.receipt_id)} is not one (rcpt_ and 24 hex digits)`);
      continue;
    }
    const check = checkSignature(receipt, trusted);
    if (check.status !== 'trusted' || check.key_id !== keyId) {
      refused.push(`${rid}: ${check.status === 'trusted' ? `signed by ${String(check.key_id)}, not by the key of machine ${machine}` : check.message}`);
      continue;
    }
    if (receipt.machine !== machine || receipt.session_id !== id) {
      refused.push(`${rid}: names machine ${JSON.stringify(receipt.machine)} and session ${JSON.stringify(receipt.session_id)}, not the folder's`);
      continue;
    }
    const path = join(receiptsDir(storeDir), `${rid}.json`);
    if (existsSync(path)) continue;
    makePrivateDir(receiptsDir(storeDir));
    try {
      createFileAtomic(path, [JSON.stringify(receipt, null, 2) + '\n'], PRIVATE_FILE);
      added += 1;
    } catch (err) {
      if (!existsSync(path)) throw err; // else another pull took it first
    }
  }
  return { added, refused };
}

/** Whether a published "receipts" list holds exactly these receipts (compared by id and signature). */
export function sameReceipts(published: unknown, own: Array<Record<string, unknown>>): boolean {
  const ids = (list: Array<Record<string, unknown>>) => list.map((r) => `${String(r.receipt_id)}:${JSON.stringify(r.signature)}`).join('\n');
  return ids(Array.isArray(published) ? published.filter(isObject) : []) === ids(own);
}
