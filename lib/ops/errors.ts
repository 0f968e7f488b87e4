// The errors of the operations layer, typed by kind so that each front door (a binary, an MCP
// tool, the web view, the library) decides what a failure means for it without reading the
// message. An OpsError is a UserError: a binary prints it as its one diagnostic line (exit 2).
import { EXIT_USAGE, UserError, errorCode } from '../cli/diagnostics.js';

/**
 * not-found: nothing matches the selector; ambiguous: several do (the message names some);
 * unreadable: where it looked cannot be read (a missing home, a damaged database); refused: the
 * selector or a path it names is not allowed (empty, outside the confined roots, needs an agent).
 */
export type OpsErrorKind = 'not-found' | 'ambiguous' | 'unreadable' | 'refused';

export const OPS_ERROR_KINDS: readonly OpsErrorKind[] = ['not-found', 'ambiguous', 'unreadable', 'refused'];

export class OpsError extends UserError {
  constructor(
    readonly kind: OpsErrorKind,
    message: string,
    where?: string,
    /** For ambiguous: the ids that matched (all of them, even when the message names a few). */
    readonly candidates: readonly string[] = [],
    exitCode: number = EXIT_USAGE,
  ) {
    super(message, where, exitCode);
  }
}

export const isOpsError = (err: unknown, kind?: OpsErrorKind): err is OpsError => err instanceof OpsError && (kind === undefined || err.kind === kind);

/**
 * A failure met while looking for sessions as an OpsError: an OpsError passes unchanged, another
 * UserError (an adapter's "cannot read") becomes unreadable with its message and place, a failed
 * system call becomes not-found (ENOENT) or unreadable, worded as the binaries always printed it.
 * Anything else (a bug) is returned as it is.
 */
export function asOpsError(err: unknown): unknown {
  if (err instanceof OpsError) return err;
  if (err instanceof UserError) return new OpsError('unreadable', err.message, err.where, [], err.exitCode);
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e.code === 'string' && typeof e.syscall === 'string') {
    return new OpsError(e.code === 'ENOENT' ? 'not-found' : 'unreadable', `cannot ${e.syscall}: ${errorCode(e)}`, e.path);
  }
  return err;
}
