// `sp-sync redact`: a session stored unredacted gets a redacted successor, and the original a
// tombstone. The append-only log is never edited in place: the successor is a fork (a new session
// whose last event is a session.fork naming the original, signed in its manifest like any fork),
// and the original stays on this machine, hidden from ls and search and never pushed.
import { createHash } from 'node:crypto';
import { UserError } from '../cli/diagnostics.js';
import type { SpEvent } from '../core/event.js';
import type { Redactor } from '../redact/ensure.js';
import type { Store } from '../store/index.js';

const BATCH = 1000;

export interface Successor {
  original: string;
  session: string;
  events: number;
  secrets: number;
}

export async function redactedSuccessor(store: Store, id: string, redactor: Redactor): Promise<Successor> {
  const summary = store.session(id);
  if (!summary || summary.events === 0) throw new UserError(`no stored session ${id}`, store.dir);
  if (summary.deleted) throw new UserError(`${id} is deleted (tombstoned); there is nothing to redact it for`, store.dir);
  // The same original at the same head gives the same successor id: a run killed half-way is
  // finished by the next one (events already appended are skipped by their keys).
  const child = 'sess_' + createHash('sha256').update(`sp-sync redact\0${id}\0${summary.head}\0${store.machine}`).digest('hex').slice(0, 32);
  // The URI names the task after the title: the redacted title, or the secret would live on in it.
  const uri = store.deriveUri({ ...summary, id: child, title: redactor.redactText(summary.title) ?? null });
  const redaction = { state: 'redacted' as const, ruleset: redactor.ruleset, key_id: redactor.keyId, profile: redactor.profile };
  let batch: SpEvent[] = [];
  let last: SpEvent | undefined;
  let secrets = 0;
  for await (const event of store.events(id)) {
    const { checksum: _c, ...rest } = event;
    const copy = { ...rest, session: child } as SpEvent;
    secrets += redactor.redactEvent(copy);
    batch.push(copy);
    last = copy;
    if (batch.length >= BATCH) {
      store.append(child, batch, { uri, redaction });
      batch = [];
    }
  }
  const atSeq = last!.seq;
  batch.push({
    session: child,
    seq: atSeq + 1,
    ts: last!.ts,
    agent: last!.agent,
    actor: 'system',
    type: 'session.fork',
    parent_seq: atSeq,
    payload: { from_session: id, from_seq: atSeq, to_session: child, reason: 'redacted successor (sp-sync redact)', machine: store.machine },
  });
  store.append(child, batch, { uri, redaction });
  store.remove(id, `redacted: successor ${child}`);
  return { original: id, session: child, events: store.session(child)?.events ?? 0, secrets };
}
