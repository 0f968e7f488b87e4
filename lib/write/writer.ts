// What every writer (`sp-materialize <agent>`) needs, whatever the target agent: the session to
// write from a stream that may hold several, the native lines of a `--raw` capture for a
// byte-identical `--same-id` write, the file in chunks, and small helpers over canonical events.
// One definition, so every writer picks sessions and decides "byte-identical or rebuilt" the same way.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { relative, resolve, sep, isAbsolute } from 'node:path';
import type { LossEntry, MaterializeOptions, MaterializeResult } from '../adapter/interface.js';
import { createFileAtomic } from '../fs/atomic.js';
import { UserError } from '../cli/diagnostics.js';
import type { SpEvent } from '../core/event.js';
import { isObject, str, type Json } from '../core/json.js';
import { expandTilde, realpathOfNearest, UnresolvablePath } from '../fs/paths.js';

/** An event's payload as an object (`{}` when it is not one). */
export function payloadOf(event: SpEvent): Json {
  return isObject(event.payload) ? event.payload : {};
}

/** A derived event (file.edit, command.run, todo.* from a tool call): writers skip it, its call carries it. */
export function isDerived(event: SpEvent): boolean {
  return event.derived_from !== undefined && event.derived_from !== null;
}


/**
 * Quotes a word for a POSIX shell (the resume command a writer prints): as is when every character
 * is one no shell treats specially (so ordinary ids and paths stay readable), else in single quotes
 * with each `'` written `'\''`. `~` (tilde expansion) and a leading `=` (zsh's `=cmd`) are quoted too.
 */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_\/.,:@%+-][A-Za-z0-9_\/.,:@%+=-]*$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Where a client looks for its sessions, at the level of its environment variable: `value` is what
 * the variable must say for the client to use the home written to (CODEX_HOME=<home>; for Gemini
 * the folder holding `.gemini`), `builtIn` what the client uses when the variable is unset.
 */
export interface ClientHome {
  variable: string;
  value: string;
  builtIn: string;
}

/**
 * The variable a resume command must set so the client finds the home written to: none when the
 * home is the client's built-in one and the environment does not point elsewhere; else
 * `{VARIABLE: home}` (a non-default home: the command alone would look in the wrong place).
 */
export function homeAssignment(home: ClientHome | undefined, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  if (home === undefined) return {};
  const value = resolve(home.value);
  const inherited = env[home.variable];
  const inheritedHome = inherited && inherited.trim() !== '' ? resolve(expandTilde(inherited)) : undefined;
  if (value === resolve(home.builtIn) && (inheritedHome === undefined || inheritedHome === value)) return {};
  return { [home.variable]: value };
}

/** A resume command as data: run it with spawn(argv[0], argv.slice(1), { cwd, env }), never through a shell. */
export interface ResumeInvocation {
  cwd?: string;
  argv: string[];
  /** Variables to set for the client (its home when not the default). */
  env: Record<string, string>;
}

/** The resume command a writer prints: `cd <cwd> && [VAR=value] <argv…>`, every word quoted for a POSIX shell. */
export function resumeCommand(cwd: string | undefined, argv: readonly string[], home?: ClientHome): string {
  return formatResume({ cwd, argv: [...argv], env: homeAssignment(home) });
}

/** An invocation as one POSIX shell line (each word and value quoted; variable names are the adapters' own). */
export function formatResume(invocation: ResumeInvocation): string {
  const assignments = Object.entries(invocation.env).map(([name, value]) => `${name}=${shellQuote(value)} `).join('');
  const command = assignments + invocation.argv.map(shellQuote).join(' ');
  return invocation.cwd === undefined ? command : `cd ${shellQuote(invocation.cwd)} && ${command}`;
}

/** A writer result's `resume` (the line to print) and `resume_exec` (the same as data, for `sp resume --exec`). */
export function resumeFields(cwd: string | undefined, argv: readonly string[], home?: ClientHome): { resume: string; resume_exec: ResumeInvocation } {
  const invocation: ResumeInvocation = { ...(cwd === undefined ? {} : { cwd }), argv: [...argv], env: homeAssignment(home) };
  return { resume: formatResume(invocation), resume_exec: invocation };
}

// ---- native ids and target paths: data from the input, never a path or code --------------------

// The id shapes live in native-id.ts (the adapters' paths.ts import them without the writer).
export { UUID, type NativeIdFormat } from './native-id.js';
import type { NativeIdFormat } from './native-id.js';

/** Whether `id` has the agent's native id format. */
export function isNativeId(format: NativeIdFormat, id: unknown): id is string {
  return typeof id === 'string' && id.length <= 200 && format.pattern.test(id);
}

/**
 * The id a `--same-id` write keeps: the session's own native id, refused (exit 2, one line) unless it
 * has the agent's format, since it becomes a file or folder name and a word of the resume command.
 */
export function sameNativeId(format: NativeIdFormat, id: unknown): string {
  if (isNativeId(format, id)) return id;
  const shown = typeof id === 'string' ? JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id) : 'none';
  throw new UserError(`--same-id: the session's native id ${shown} does not have the ${format.agent} session id format (${format.described}); nothing was written (drop --same-id to write it under a new id)`);
}

/** Whether `path` is `root` or lies inside it (both absolute and normalized). */
function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** realpathOfNearest, its failures as a writer reports them (exit 2: nothing may be written there). */
function resolvedForWrite(path: string): string {
  try {
    return realpathOfNearest(path);
  } catch (err) {
    if (!(err instanceof UnresolvablePath)) throw err;
    throw new UserError(err.dangling ? 'a symlink that points nowhere: refusing to write through it' : `cannot resolve: ${err.code}`, err.at);
  }
}

/**
 * Checks that `path` lies under `root` both as written and after resolving symlinks (a project
 * folder inside the home that links elsewhere is refused); returns `path` absolute. A UserError
 * (exit 2) names the path otherwise: nothing may be written there.
 */
export function ensureUnder(root: string, path: string, what = 'the target home'): string {
  const absoluteRoot = resolve(root);
  const absolute = resolve(absoluteRoot, path);
  if (!inside(absoluteRoot, absolute)) throw new UserError(`refusing to write outside ${what} (${absoluteRoot})`, absolute);
  if (!inside(resolvedForWrite(absoluteRoot), resolvedForWrite(absolute))) {
    throw new UserError(`refusing to write outside ${what} (${absoluteRoot}): a symlink on the way leads elsewhere`, absolute);
  }
  return absolute;
}

/** A folder name derived from input (a slug of a cwd, a project name): one path component, never `.`/`..`. */
export function ensureComponent(name: string, what: string): string {
  if (name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) throw new UserError(`${what} ${JSON.stringify(name)} is not a plain folder name`);
  return name;
}

/** A UUIDv7: time-ordered, as the clients make new session ids (Codex threads, Pi sessions). */
export function uuidv7(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  const ms = BigInt(Math.max(0, Math.floor(now)));
  for (let i = 0; i < 6; i += 1) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// ---- the result and its loss ledger --------------------------------------------------------------

/** How many changes of each kind a writer made (the relay's actions only once one occurred). */
export type LossCounts = Record<'dropped' | 'stubbed' | 'transformed', number> & Partial<Record<LossEntry['action'], number>>;

/** What a writer of native files reports besides the generic result. */
export interface WriterResult extends MaterializeResult {
  /** `raw`: the captured native lines verbatim (byte-identical); `rebuilt`: written from the events. */
  written_as: 'raw' | 'rebuilt';
  /** The canonical session that was written. */
  source_session: string;
  /** The loss ledger's counts. */
  changes: LossCounts;
}

/**
 * The loss ledger of one write (docs/design.md §3: nothing is lost silently): every change the writer makes
 * goes to `onLoss` and is counted by action, for the result's `changes`.
 */
export class LossLedger {
  readonly counts: LossCounts = { dropped: 0, stubbed: 0, transformed: 0 };

  constructor(private readonly onLoss?: (entry: LossEntry) => void) {}

  add(entry: LossEntry): void {
    // `carried` says why an event needs no record of its own (e.g. its call carries it): not a change.
    if (entry.action !== 'carried') this.counts[entry.action] = (this.counts[entry.action] ?? 0) + 1;
    this.onLoss?.(entry);
  }

  /** A change; `event` is the canonical event it concerns (its seq and type go into the entry). */
  report(action: LossEntry['action'], code: string, reason: string, event?: SpEvent): void {
    const entry: LossEntry = { action, code, reason };
    if (event) {
      entry.seq = event.seq;
      entry.type = event.type;
    }
    this.add(entry);
  }
}

// ---- the session to write: lib/write/select.ts (re-exported for the writers that import it here) --

export { SessionPicker, nativeIdOf, selectSession, type SelectedSession } from './select.js';

// ---- the native lines of a --raw capture ---------------------------------------------------------

/**
 * Whether the `--raw` lines of a capture give its native file back whole: every event that carries
 * raw lines names its line (`origin.native_seq`), those lines follow each other from line 1 with no
 * gap and none twice, and every line an event names is among them. Otherwise a line is missing and
 * the file could not be byte-identical, so the writer rebuilds it from the events instead. Fed
 * event by event in file order, keeping no lines, so a streaming writer can use it too.
 */
export class RawLineCheck {
  private next = 1;
  private lastNamed = 0;
  private broken = false;

  add(event: SpEvent): void {
    const at = event.origin?.native_seq;
    const line = typeof at === 'number' && Number.isInteger(at) && at >= 1 ? at : undefined;
    const raw = event.origin?.raw;
    if (raw && raw.length > 0) {
      if (line !== this.next) this.broken = true;
      else this.next += raw.length;
    } else if (typeof at === 'number') {
      if (line === undefined) this.broken = true;
      else this.lastNamed = Math.max(this.lastNamed, line);
    }
  }

  /** The raw lines counted so far. */
  get lines(): number {
    return this.next - 1;
  }

  /** Whether the raw lines so far are the whole file (and there is at least one). */
  get complete(): boolean {
    return !this.broken && this.next > 1 && this.lastNamed < this.next;
  }
}

/**
 * The native lines of a `--raw` capture in file order, or undefined when they are not the whole file
 * (see RawLineCheck). Events without a line (session.start of a file that has no header line, side
 * files such as Claude's tasks/) are not lines of the file.
 */
export function capturedRawLines(events: SpEvent[]): string[] | undefined {
  const lineOf = (e: SpEvent): number => (typeof e.origin?.native_seq === 'number' ? e.origin.native_seq : 0);
  // A stable sort: the events of one line keep their order (the first carries the line).
  const inFileOrder = [...events].sort((a, b) => lineOf(a) - lineOf(b));
  const check = new RawLineCheck();
  const lines: string[] = [];
  for (const event of inFileOrder) {
    check.add(event);
    if (event.origin?.raw) lines.push(...event.origin.raw);
  }
  return check.complete ? lines : undefined;
}

/**
 * Writes a new native file: every line goes to `onLine` (dry runs too: the preview) and, unless it
 * is a dry run, into the temp file that becomes `path` (atomically, never over an existing file).
 * `lines` may be a generator: each line is written as it is made, none kept, so a writer that plans
 * as it goes holds one record at a time. An error from it leaves no file. Returns the line count.
 */
export function writeLines(path: string, lines: Iterable<string>, options: { finalNewline?: boolean; dryRun?: boolean; onLine?: (line: string) => void }): number {
  let count = 0;
  function* counted(): Generator<string> {
    for (const line of lines) {
      count += 1;
      options.onLine?.(line);
      yield line;
    }
  }
  if (options.dryRun) for (const _ of counted());
  else createFileAtomic(path, lineChunks(counted(), options.finalNewline), 0o600);
  return count;
}

/**
 * `lines` joined with "\n" (and one more at the end when `finalNewline`), in ~64 KiB chunks for
 * createFileAtomic: few writes, and no second copy of a whole large file. `lines` may be a
 * generator (a streaming writer's lines as they are made): each is read once, in order.
 */
export function* lineChunks(lines: Iterable<string>, finalNewline = true): Generator<string> {
  let buffer = '';
  let any = false;
  for (const line of lines) {
    if (any) buffer += '\n';
    any = true;
    buffer += line;
    if (buffer.length >= 1 << 16) {
      yield buffer;
      buffer = '';
    }
  }
  if (any && finalNewline) buffer += '\n';
  if (buffer) yield buffer;
}

// ---- writers of text-only histories (Aider, Cursor) ---------------------------------------------

/**
 * The project folder a session is written for: --cwd, else the session's own, else the current
 * directory. It must exist (--mkcwd creates it, except in a dry run): the client finds the session
 * by its folder.
 */
export function projectFolder(options: MaterializeOptions, start: Json): string {
  const cwd = resolve(expandTilde(options.cwd ?? str(start.cwd) ?? process.cwd()));
  if (!existsSync(cwd)) {
    if (!options.mkcwd) throw new UserError('the project folder does not exist (give --cwd, or --mkcwd to create it)', cwd);
    if (!options.dryRun) mkdirSync(cwd, { recursive: true });
  } else if (!statSync(cwd).isDirectory()) throw new UserError('not a directory', cwd);
  return cwd;
}

/** A turn of an alternating history: its role and its texts (joined by the writer). */
export interface AlternatingTurn {
  role: 'user' | 'assistant';
  parts: string[];
}

/**
 * Turns of alternating roles, made one at a time: a text of the same role as the open turn joins
 * it (blank texts are skipped), a text of the other role closes it. `add` and `end` return the turn
 * they closed, so a streaming writer holds only the open one.
 */
export class AlternatingTurns {
  /** Turns begun so far. */
  count = 0;
  private open: AlternatingTurn | undefined;

  add(role: 'user' | 'assistant', text: string): AlternatingTurn | undefined {
    if (text.trim() === '') return undefined;
    if (this.open?.role === role) {
      this.open.parts.push(text);
      return undefined;
    }
    const closed = this.open;
    this.open = { role, parts: [text] };
    this.count += 1;
    return closed;
  }

  /** Closes the open turn (the end of the history). */
  end(): AlternatingTurn | undefined {
    const closed = this.open;
    this.open = undefined;
    return closed;
  }
}

/** `body` in a Markdown fence labelled `label`, the fence one backtick longer than any run in the body. */
export function fenced(label: string, body: string): string {
  const longest = Math.max(2, ...(body.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${label}\n${body}\n${fence}`;
}
