// The push step of `sp watch --push`: every configured remote gets what it has not got yet (the
// sync cursors in the store's index make a push after an outage send everything missing). What is
// stored unredacted (`--no-redact`, or from before redaction was the default) is never pushed by
// the watch: it is named once, and `sp-sync push --allow-unredacted` is the explicit way.
import { UserError } from '../cli/diagnostics.js';
import { Store, redactionState } from '../store/index.js';
import { listRemotes, push } from '../sync/remote.js';

export interface PushOutcome {
  remote: string;
  events: number;
  sessions: number;
}

/**
 * Pushes to every remote of the store; throws (a UserError naming the remote) on the first that
 * fails, after trying the others. `held` names the sessions kept back because they are unredacted.
 */
export async function pushAll(storeDir: string, options: { spHome?: string; lockTimeoutMs?: number; held?: (sessions: string[]) => void } = {}): Promise<PushOutcome[]> {
  const store = Store.open(storeDir, { lockTimeoutMs: options.lockTimeoutMs ?? 2000, home: options.spHome });
  try {
    const remotes = listRemotes(store);
    if (remotes.length === 0) return [];
    const unredacted = store.sessions({ all: true }).filter((s) => redactionState(store.manifest(s.id)) === 'unredacted').map((s) => s.id);
    if (unredacted.length > 0) options.held?.(unredacted);
    const skip = new Set(unredacted);
    const done: PushOutcome[] = [];
    const failed: string[] = [];
    for (const remote of remotes) {
      try {
        const r = await push(store, remote, { skip });
        done.push({ remote: remote.name, events: r.events, sessions: r.sessions });
      } catch (err) {
        failed.push(`${remote.name}: ${err instanceof UserError ? err.message : (err as Error).message}`.split('\n')[0]);
      }
    }
    if (failed.length > 0) throw new UserError(`push failed (${failed.join('; ')})`, 'push');
    return done;
  } finally {
    store.close();
  }
}
