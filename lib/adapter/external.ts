// Third-party adapters as programs (docs/external-adapters.md): when no built-in adapter has a name,
// `sp-capture foo` / `sp-materialize foo` run `sp-adapter-foo` from PATH and talk to it over NDJSON
// on stdin/stdout: one request line (and, for materialize, the events) in; item lines and one
// `result` line out. The program is code the user installed and trusts; its OUTPUT is data: every
// line is parsed and checked here, events are re-numbered and validated against the schema (the
// caller chains them), written paths must lie under the home sp named, and the resume command is
// built by sp from an argv, quoted, never taken as a shell line. Time and size are bounded.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, lstatSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { Adapter, DiscoverOptions, FidelityTable, MaterializeOptions, MaterializeResult, SessionRef } from './interface.js';
import { UserError } from '../cli/diagnostics.js';
import { canonicalSessionId, type SpEvent } from '../core/event.js';
import { isObject } from '../core/json.js';
import { envPath, expandTilde } from '../fs/paths.js';
import { createValidator, type EventValidator } from '../core/schema.js';
import { ensureUnder, resumeFields } from '../write/writer.js';

/** The protocol version this sp speaks (`sp_adapter` in a request, `protocol` in describe). */
export const PROTOCOL = 1;
export const PROGRAM_PREFIX = 'sp-adapter-';
/** An external adapter's name: also the agent name on the command line, so never a path. */
export const ADAPTER_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

export interface ExternalLimits {
  /** Milliseconds one request may take, start to exit. */
  timeoutMs: number;
  /** Bytes of output one request may produce. */
  maxBytes: number;
  /** Bytes one output line may hold. */
  maxLine: number;
}

/** The limits, from SP_ADAPTER_TIMEOUT_MS and SP_ADAPTER_MAX_BYTES when set (positive integers). */
export function externalLimits(env: NodeJS.ProcessEnv = process.env): ExternalLimits {
  const positive = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n <= 0) throw new UserError(`${name} must be a positive integer, not "${raw}"`, name);
    return n;
  };
  const maxBytes = positive('SP_ADAPTER_MAX_BYTES', 512 * 1024 * 1024);
  return { timeoutMs: positive('SP_ADAPTER_TIMEOUT_MS', 120_000), maxBytes, maxLine: Math.min(maxBytes, 32 * 1024 * 1024) };
}

/** The `sp-adapter-<name>` program on PATH (absolute PATH entries only), or undefined. */
export function findAdapterProgram(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!ADAPTER_NAME.test(name)) return undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    // A relative entry ("." or "") would make the current folder choose the program.
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, PROGRAM_PREFIX + name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      continue;
    }
  }
  return undefined;
}

/** One output line of an adapter, parsed: `type` is its kind. */
type Reply = Record<string, unknown> & { type: string };

/** Text from an adapter for a diagnostic: one line, printable, bounded. */
function printable(value: unknown, max = 300): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/**
 * Sends one request to `program` and yields its item lines; returns its result line. The request is
 * one JSON line, then `input` lines (materialize's events), then end of input. stderr passes through,
 * each line prefixed with the program's name. Refused (UserError, exit 2): no result line, a line
 * that is not a JSON object with a string `type`, anything after the result, an `error` line, a
 * non-zero exit, more than `limits` allow.
 */
export async function* converse(
  program: string,
  label: string,
  request: Record<string, unknown>,
  options: { input?: AsyncIterable<string>; limits?: ExternalLimits } = {},
): AsyncGenerator<Reply, Reply> {
  const limits = options.limits ?? externalLimits();
  const op = String(request.op);
  const where = `${label} ${op}`;
  const child = spawn(program, [], { stdio: ['pipe', 'pipe', 'pipe'], shell: false });
  let failure: UserError | undefined;
  const fail = (what: string): void => {
    failure ??= new UserError(what, where);
    child.kill('SIGKILL');
  };
  const timer = setTimeout(() => fail(`no complete answer within ${limits.timeoutMs / 1000} s (SP_ADAPTER_TIMEOUT_MS)`), limits.timeoutMs);
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.on('close', (code, signal) => done({ code, signal }));
    child.on('error', (err) => {
      fail(`cannot run ${program}: ${(err as NodeJS.ErrnoException).code ?? err.message}`);
      done({ code: null, signal: null });
    });
  });

  let errLine = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    errLine += text;
    const lines = errLine.split('\n');
    errLine = lines.pop()!.slice(-limits.maxLine);
    for (const line of lines) process.stderr.write(`${label}: ${printable(line, 2000)}\n`);
  });
  child.stderr.on('end', () => {
    if (errLine !== '') process.stderr.write(`${label}: ${printable(errLine, 2000)}\n`);
  });

  // The request, then the input, with backpressure; a program that stops reading early is fine.
  child.stdin.on('error', () => undefined);
  const feeding = (async () => {
    // Waits for room, or for the pipe to close (a program that exits early never drains it).
    const write = (line: string) =>
      new Promise<void>((done) => {
        if (child.stdin.write(line + '\n')) return done();
        child.stdin.once('drain', done);
        child.stdin.once('close', done);
      });
    await write(JSON.stringify({ sp_adapter: PROTOCOL, ...request }));
    if (options.input) for await (const line of options.input) {
      if (failure || child.stdin.destroyed) break;
      await write(line);
    }
    child.stdin.end();
  })().catch((err: unknown) => fail(`sending input: ${(err as Error).message}`));

  let result: Reply | undefined;
  let total = 0;
  let lineNo = 0;
  let pending: Buffer = Buffer.alloc(0);
  const parse = (raw: Buffer): Reply | undefined => {
    lineNo++;
    const text = raw.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      fail(`output line ${lineNo}: not JSON: ${printable(text, 120)}`);
      return undefined;
    }
    if (!isObject(value) || typeof value.type !== 'string') {
      fail(`output line ${lineNo}: not an object with a string "type"`);
      return undefined;
    }
    if (result) {
      fail(`output line ${lineNo}: a line after the result line`);
      return undefined;
    }
    if (value.type === 'error') {
      fail(`the adapter reports: ${printable(value.message)}`);
      return undefined;
    }
    if (value.type === 'result') {
      result = value as Reply;
      return undefined;
    }
    return value as Reply;
  };
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      if (failure) break;
      total += chunk.length;
      if (total > limits.maxBytes) {
        fail(`more than ${limits.maxBytes} bytes of output (SP_ADAPTER_MAX_BYTES)`);
        break;
      }
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let at: number;
      while (!failure && (at = pending.indexOf(0x0a)) !== -1) {
        const reply = parse(pending.subarray(0, at));
        pending = pending.subarray(at + 1);
        if (reply && !failure) yield reply;
      }
      if (pending.length > limits.maxLine) fail(`output line ${lineNo + 1}: longer than ${limits.maxLine} bytes`);
    }
    if (!failure && pending.length > 0) {
      const reply = parse(pending);
      if (reply && !failure) yield reply;
    }
    const { code, signal } = await closed;
    await feeding;
    if (failure) throw failure;
    if (code !== 0) throw new UserError(`exited with ${code === null ? `signal ${signal}` : `status ${code}`}`, where);
    if (!result) throw new UserError('no result line', where);
    return result;
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** Runs a request whose items are not wanted (or counted): its result line. */
async function resultOf(program: string, label: string, request: Record<string, unknown>, limits?: ExternalLimits): Promise<Reply> {
  const talk = converse(program, label, request, { limits });
  for (;;) {
    const next = await talk.next();
    if (next.done) return next.value;
    throw new UserError(`unexpected "${printable(next.value.type, 40)}" line`, `${label} ${String(request.op)}`);
  }
}

// ---- checking what an adapter says ------------------------------------------------------------

export interface Description {
  name: string;
  version: string;
  displayName: string;
  homeEnv: string;
  defaultHome: string;
  capture: boolean;
  materialize: boolean;
}

const HOME_VARIABLE = /^[A-Z][A-Z0-9_]{0,63}$/;
const NATIVE_ID = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,199}$/;
const PROGRAM_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/;

function text(value: unknown, what: string, where: string, max = 4096): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max || value.includes('\0')) {
    throw new UserError(`${what} must be a non-empty string of at most ${max} characters`, where);
  }
  return value;
}

/** A describe result checked; `expected` is the name sp looked up (the adapter must say the same). */
export function checkDescription(reply: Record<string, unknown>, expected: string | undefined, where: string): Description {
  if (reply.protocol !== PROTOCOL) throw new UserError(`speaks protocol ${printable(reply.protocol, 20)}; this sp speaks ${PROTOCOL}`, where);
  const name = text(reply.name, '"name"', where, 63);
  if (!ADAPTER_NAME.test(name)) throw new UserError(`"name" must match ${ADAPTER_NAME.source}`, where);
  if (expected !== undefined && name !== expected) throw new UserError(`calls itself "${name}", not "${expected}"`, where);
  const homeEnv = text(reply.home_env, '"home_env"', where, 64);
  if (!HOME_VARIABLE.test(homeEnv)) throw new UserError(`"home_env" must be an environment variable name (${HOME_VARIABLE.source})`, where);
  const defaultHome = text(reply.default_home, '"default_home"', where);
  if (!isAbsolute(defaultHome) && !defaultHome.startsWith('~/')) throw new UserError('"default_home" must be absolute or start with ~/', where);
  const caps = isObject(reply.capabilities) ? reply.capabilities : {};
  return {
    name,
    version: text(reply.version, '"version"', where, 64),
    displayName: reply.display_name === undefined ? name : printable(text(reply.display_name, '"display_name"', where, 100)),
    homeEnv,
    defaultHome,
    capture: caps.capture === true,
    materialize: caps.materialize === true,
  };
}

/** A `session` line of `list`, checked, as a SessionRef. */
export function checkSessionLine(reply: Record<string, unknown>, agent: string, where: string): SessionRef {
  const id = text(reply.id, 'a session "id"', where, 200);
  if (!NATIVE_ID.test(id)) throw new UserError(`session id "${printable(id, 80)}" must match ${NATIVE_ID.source}`, where);
  const ref: SessionRef = { agent, native_id: id, path: resolve(text(reply.path, `session ${id}: "path"`, where)) };
  if (reply.title !== undefined) ref.title = printable(text(reply.title, `session ${id}: "title"`, where, 1000), 200);
  if (reply.cwd !== undefined) ref.cwd = text(reply.cwd, `session ${id}: "cwd"`, where);
  if (reply.updated !== undefined) {
    if (typeof reply.updated !== 'number' || !Number.isFinite(reply.updated) || reply.updated < 0) throw new UserError(`session ${id}: "updated" must be epoch seconds`, where);
    ref.last_ts = reply.updated;
    ref.mtime = reply.updated;
  }
  return ref;
}

/**
 * An `event` line of `capture`, checked: the event gets sp's session id, agent and the next seq
 * (what the adapter said for them is replaced), loses any checksum (the caller chains), and must
 * then validate against the event schema.
 */
export function checkEventLine(reply: Record<string, unknown>, agent: string, nativeId: string, seq: number, validator: EventValidator, where: string): SpEvent {
  if (!isObject(reply.event)) throw new UserError('an "event" line without an "event" object', where);
  const { checksum: _ignored, ...rest } = reply.event;
  const origin = isObject(rest.origin) ? { ...rest.origin, agent, native_id: nativeId } : { agent, native_id: nativeId };
  const event = { ...rest, session: canonicalSessionId(agent, nativeId), seq, agent, origin } as unknown as SpEvent;
  if (typeof event.parent_seq === 'number' && !(event.parent_seq < seq)) throw new UserError(`event ${seq}: parent_seq ${event.parent_seq} is not an earlier event`, where);
  const issues = validator.validate(event);
  if (issues.length > 0) throw new UserError(`event ${seq} is not a valid canonical event: ${issues[0].path || '/'} ${issues[0].message}`, where);
  return event;
}

export interface CheckedWrite {
  nativeId: string;
  files: string[];
  records: number;
  argv: string[];
  cwd?: string;
}

/** A materialize result checked: every file under `home` (no symlink on the way), an argv to quote. */
export function checkWriteResult(reply: Record<string, unknown>, home: string, where: string, dryRun = false): CheckedWrite {
  const nativeId = text(reply.native_id, '"native_id"', where, 200);
  if (!NATIVE_ID.test(nativeId)) throw new UserError(`"native_id" must match ${NATIVE_ID.source}`, where);
  if (!Array.isArray(reply.files) || reply.files.length === 0 || reply.files.length > 10_000) throw new UserError('"files" must list the files written (1 to 10000)', where);
  const files = reply.files.map((f, i) => {
    const path = ensureUnder(home, text(f, `"files"[${i}]`, where), `the home sp named for the adapter`);
    if (!dryRun) {
      if (!existsSync(path)) throw new UserError(`"files"[${i}] does not exist`, path);
      if (lstatSync(path).isSymbolicLink()) throw new UserError(`"files"[${i}] is a symlink`, path);
    }
    return path;
  });
  const resume = isObject(reply.resume) ? reply.resume : undefined;
  if (!resume || !Array.isArray(resume.argv) || resume.argv.length === 0 || resume.argv.length > 64) throw new UserError('"resume" must be {"argv": [program, arguments…]} (1 to 64 words)', where);
  const argv = resume.argv.map((word, i) => {
    // Any word is quoted when printed; control characters would still garble the line a user reads.
    const value = text(word, `"resume.argv"[${i}]`, where);
    if (/[\u0000-\u001f\u007f]/.test(value)) throw new UserError(`"resume.argv"[${i}] holds a control character`, where);
    return value;
  });
  if (!PROGRAM_NAME.test(argv[0])) throw new UserError(`"resume.argv"[0] must be a program name (${PROGRAM_NAME.source}), not a path or a shell line`, where);
  let cwd: string | undefined;
  if (resume.cwd !== undefined) {
    cwd = text(resume.cwd, '"resume.cwd"', where);
    if (!isAbsolute(cwd) || /[\u0000-\u001f\u007f]/.test(cwd)) throw new UserError('"resume.cwd" must be an absolute path', where);
  }
  const records = typeof reply.records === 'number' && Number.isSafeInteger(reply.records) && reply.records >= 0 ? reply.records : 0;
  return { nativeId, files, records, argv, cwd };
}

// ---- the Adapter an external program becomes ----------------------------------------------------

/** The same table for every external adapter: it states no more than the protocol guarantees. */
const FIDELITY: FidelityTable = Object.fromEntries(
  ['session.start', 'message.user', 'message.assistant', 'message.thinking', 'tool.call', 'tool.result', 'meta'].map((type) => [
    type,
    { level: 0, capture: 'as the external adapter reports it (validated, re-numbered)', materialize: 'as the external adapter writes it (files checked to lie under the home)' },
  ]),
);

let validating: Promise<EventValidator> | undefined;

/** Asks `program` to describe itself and wraps it as an Adapter. */
export async function loadExternalAdapter(program: string, expectedName?: string, limits?: ExternalLimits): Promise<{ adapter: Adapter; description: Description }> {
  const label = expectedName ? PROGRAM_PREFIX + expectedName : program;
  const description = checkDescription(await resultOf(program, label, { op: 'describe' }, limits), expectedName, `${label} describe`);
  const name = description.name;
  const tag = PROGRAM_PREFIX + name;
  const defaultHome = (): string => envPath(description.homeEnv) ?? resolve(expandTilde(description.defaultHome));

  async function* listing(request: Record<string, unknown>, options: DiscoverOptions): AsyncGenerator<SessionRef> {
    const talk = converse(program, tag, request, { limits });
    for (let next = await talk.next(); !next.done; next = await talk.next()) {
      if (next.value.type !== 'session') throw new UserError(`unexpected "${printable(next.value.type, 40)}" line`, `${tag} list`);
      const ref = checkSessionLine(next.value, name, `${tag} list`);
      if (options.cwd === undefined || ref.cwd === undefined || resolve(ref.cwd) === resolve(options.cwd)) yield ref;
    }
  }

  const adapter: Adapter = {
    id: name,
    displayName: description.displayName,
    homeEnv: description.homeEnv,
    defaultHome,
    discover: (options) => listing({ op: 'list', home: resolve(options.home ?? defaultHome()) }, options),
    open: async (path) => {
      for await (const ref of listing({ op: 'list', path: resolve(path) }, {})) return ref;
      throw new UserError(`${tag} found no session in this file`, path);
    },
    capture: (ref, options) =>
      (async function* () {
        if (!description.capture) throw new UserError(`${tag} cannot capture`);
        // Protocol 1 has no cursor: re-capturing from one would emit the whole session again.
        if (options?.cursor !== undefined) throw new UserError(`incremental capture (--cursor, --follow) is not part of the external adapter protocol ${PROTOCOL}: capture whole sessions`, tag);
        const validator = await (validating ??= createValidator());
        const talk = converse(program, tag, { op: 'capture', session: ref.native_id, path: ref.path }, { limits });
        let seq = 0;
        for (let next = await talk.next(); !next.done; next = await talk.next()) {
          const where = `${tag} capture`;
          if (next.value.type !== 'event') throw new UserError(`unexpected "${printable(next.value.type, 40)}" line`, where);
          yield checkEventLine(next.value, name, ref.native_id, seq++, validator, where);
        }
        if (seq === 0) throw new UserError('no events for the session', `${tag} capture`);
      })(),
    fidelity: FIDELITY,
    // What sp can assume of a program it knows only through the protocol: one linear history, no
    // images or other agents' reasoning taken natively (they are carried as marked text), no cursor.
    capabilities: {
      tree: false,
      images: { userMessage: false, toolResult: false },
      thinking: 'own',
      incremental: { whyNot: `the external adapter protocol ${PROTOCOL} has no cursor: sessions are captured whole` },
      sameId: { whyNot: `the external adapter protocol ${PROTOCOL} lets the program choose the new session's id` },
    },
  };
  if (description.materialize) {
    adapter.materialize = async (events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<MaterializeResult> => {
      const home = resolve(options.home ?? defaultHome());
      const cwd = resolve(options.cwd ?? process.cwd());
      const where = `${tag} materialize`;
      const lines = (async function* () {
        for await (const event of events) yield JSON.stringify(event);
      })();
      const result = await (async () => {
        const talk = converse(program, tag, { op: 'materialize', home, cwd, dry_run: options.dryRun === true }, { input: lines, limits });
        for (;;) {
          const next = await talk.next();
          if (next.done) return next.value;
          throw new UserError(`unexpected "${printable(next.value.type, 40)}" line`, where);
        }
      })();
      const written = checkWriteResult(result, home, where, options.dryRun === true);
      const resumeCwd = written.cwd ?? cwd;
      return {
        agent: name,
        session_id: written.nativeId,
        path: written.files[0],
        files: written.files,
        cwd: resumeCwd,
        records: written.records,
        ...resumeFields(resumeCwd, written.argv, { variable: description.homeEnv, value: home, builtIn: resolve(expandTilde(description.defaultHome)) }),
        ...(options.dryRun ? { dry_run: true } : {}),
      };
    };
  }
  return { adapter, description };
}

/**
 * The adapter for `name`: the built-in one `builtIn` returns, else `sp-adapter-<name>` from PATH,
 * else builtIn's own error (which names the known agents).
 */
export async function adapterOrExternal(name: string, builtIn: (name: string) => Adapter): Promise<Adapter> {
  try {
    return builtIn(name);
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    const program = findAdapterProgram(name);
    if (!program) {
      // Say where a third-party adapter of that name would have been looked for.
      throw ADAPTER_NAME.test(name) ? new UserError(`${err.message}; nor is ${PROGRAM_PREFIX}${name} on PATH (docs/external-adapters.md)`, err.where, err.exitCode) : err;
    }
    return (await loadExternalAdapter(program, name)).adapter;
  }
}
