// Diagnostics on stderr as `sp-<name>: <where>: <what>` (docs/design.md §6), and the exit codes:
// 0 ok, 1 a check failed, 2 usage error or unreadable input.

export const EXIT_OK = 0;
export const EXIT_CHECK_FAILED = 1;
export const EXIT_USAGE = 2;

let programName = 'sp';

export function setProgramName(name: string): void {
  programName = name;
}

export function getProgramName(): string {
  return programName;
}

/** An error caused by the user's input or arguments: printed as one line, never as a stack trace. */
export class UserError extends Error {
  constructor(
    message: string,
    readonly where?: string,
    readonly exitCode: number = EXIT_USAGE,
  ) {
    super(message);
  }
}

/** What a diagnostic says about a failed system call: its code (`ENOENT` …), else its message. */
export function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
}

/** An error met while reading `path`, as the one-line UserError (exit 2) it is reported as; a UserError passes unchanged. */
export function readError(err: unknown, path: string): UserError {
  return err instanceof UserError ? err : new UserError(`cannot read: ${errorCode(err)}`, path);
}

/** Writes one diagnostic line to stderr. `where` is a file:line, a seq, or a subject. */
export function warn(where: string | undefined, what: string): void {
  // One line whatever the message holds (a JSON.parse message quotes the input, newlines included).
  const line = `${where ? `${where}: ` : ''}${what}`.replace(/[\r\n]+/g, ' ');
  process.stderr.write(`${programName}: ${line}\n`);
}

let quiet = false;

/** `-q/--quiet` of this run: notes are left out, warnings and errors are not. */
export function setQuiet(on: boolean): void {
  quiet = on;
}

/** A diagnostic line that only informs (what was written, a total): left out under -q. */
export function note(where: string | undefined, what: string): void {
  if (!quiet) warn(where, what);
}

/** Cuts a line for a diagnostic so one huge line cannot flood the terminal. */
export function excerpt(text: string, max = 200): string {
  const flat = text.replace(/[\r\n]+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
