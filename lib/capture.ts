// Which sessions a capture names: one selector of sp-capture (--session, --path, --latest, --all),
// shared by the binary and the library API (index.ts) so both pick the same sessions.
import type { Adapter, Diagnose, SessionRef } from './adapter.js';
import { UserError } from './diagnostics.js';

export interface SessionSelector {
  /** A native id, or a unique prefix of one. */
  session?: string;
  /** A native file (or `<db>#<id>`), wherever it lies. */
  path?: string;
  /** The newest session (with `cwd`: of that project). */
  latest?: boolean;
  /** Every session, oldest first. */
  all?: boolean;
  /** With latest/all: only this project directory's sessions. */
  cwd?: string;
}

/** The session refs a selector names, oldest first for `all`. */
export async function selectSessions(adapter: Adapter, selector: SessionSelector, home: string, onDiagnostic: Diagnose): Promise<SessionRef[]> {
  if (selector.path !== undefined) return [await adapter.open(selector.path, { home })];
  if (selector.session !== undefined) {
    if (adapter.find) return [await adapter.find(selector.session, { home, onDiagnostic })];
    for await (const ref of adapter.discover({ home, onDiagnostic })) if (ref.native_id === selector.session) return [ref];
    throw new UserError(`no ${adapter.displayName} session "${selector.session}" under ${home} (sp-capture ${adapter.id} --list shows the sessions)`);
  }
  const refs: SessionRef[] = [];
  for await (const ref of adapter.discover({ home, cwd: selector.cwd, onDiagnostic })) {
    refs.push(ref);
    if (selector.latest) break;
  }
  if (selector.latest && refs.length === 0) {
    throw new UserError(`no ${adapter.displayName} sessions under ${home}${selector.cwd !== undefined ? ` for the project ${selector.cwd}` : ''}`);
  }
  if (refs.length === 0) onDiagnostic(home, `no ${adapter.displayName} sessions${selector.cwd !== undefined ? ` for the project ${selector.cwd}` : ''}`);
  // All: oldest first, so a store that ingests the stream sees sessions in the order they happened.
  return refs.reverse();
}
