// The sp MCP server: the tools an agent calls to find, read, hand over and check sessions of other
// agents. Every answer passes through redaction (events by sp-redact's stream before any tool uses
// them, then the whole answer once more: redact.ts). Every path a caller names is confined to the
// roots fixed at start-up, and every call to its byte, event and time limits (confine.ts). A bad
// argument, an unknown session or a missing store is a tool error (isError) with a message that
// says what to do; nothing a caller sends can crash the server. The heavy parts (adapters,
// tokenizer, redaction rules, the store, SQLite) are loaded at the first call that needs them, so
// the server answers `initialize` fast.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { McpServer, type CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { Adapter, SessionRef } from '../adapter/interface.js';
import { UserError } from '../cli/diagnostics.js';
import type { SpEvent } from '../core/event.js';
import { setMember, type Json } from '../core/json.js';
import type { Line } from '../core/lines.js';
import type { LedgerRow, LedgerTotals } from '../relay/ledger.js';
import {
  ToolInputError,
  adapterOf,
  captureEvents,
  compileHandoff,
  compiledEvent,
  findSession,
  homeOf,
  listSessions,
  redactEvents,
  relayEvents,
  type HomeArgs,
  type Registry,
} from './pipeline.js';
import { redactValue } from './redact.js';
import { Budget, Confinement, DEFAULT_LIMITS, LimitError, type AccessOptions, type Limits, type Root } from './confine.js';
import { pathlessValidator, verifyFile } from './verify.js';
import { registerLoopTools } from './loop.js';
import { agentExamples, type AgentExamples } from './examples.js';

export interface ServerOptions {
  version: string;
  /** The adapter registry (adapters/index.ts), loaded on first use. */
  loadRegistry: () => Promise<Registry>;
  /** The registry's agent ids (adapters/registry.ts, loaded without the adapters): the examples in tool descriptions. */
  agentIds: readonly string[];
  /** Diagnostics (stderr: stdout is the protocol). */
  log?: (line: string) => void;
  /** What callers may read and write, fixed at start-up (sp-mcp --home, --root, --allow-write, --store, limits). */
  access?: AccessOptions;
}

/** $SP_HOME/store, as the store code resolves it (the store is optional in a build: see withStore). */
async function defaultStoreDir(): Promise<string> {
  try {
    const spec = '../store/paths.js';
    return ((await import(spec)) as { resolveStoreDir: (dir?: string) => string }).resolveStoreDir();
  } catch {
    return resolve(process.env.SP_HOME || join(homedir(), '.sp'), 'store');
  }
}

/**
 * The read roots: each agent's home (started with --home, else its environment variable or default
 * folder), the --root folders and the store. A default that is only the server's working directory
 * (Aider's, when AIDER_HISTORY_ROOT is unset) is not a root: whatever folder the client started the
 * server in would become readable.
 */
export async function confinementFor(registry: Registry, access: AccessOptions): Promise<Confinement> {
  const readRoots: Root[] = [];
  for (const id of Object.keys(registry).sort()) {
    const adapter = registry[id];
    if (access.homes?.[id] !== undefined) readRoots.push({ dir: access.homes[id], why: `--home ${id}` });
    const fallback = adapter.defaultHome();
    const fromEnv = (process.env[adapter.homeEnv] ?? '').trim() !== '';
    if (fromEnv || resolve(fallback) !== resolve(process.cwd())) readRoots.push({ dir: fallback, why: `${adapter.displayName} home` });
  }
  for (const dir of access.roots ?? []) readRoots.push({ dir, why: '--root' });
  const store = access.store ?? (await defaultStoreDir());
  readRoots.push({ dir: store, why: 'the store' });
  return new Confinement({ readRoots, writeRoots: access.allowWrite ?? [], store, limits: { ...DEFAULT_LIMITS, ...access.limits } });
}

const DEPTHS = ['brief', 'events', 'full'] as const;
const PAGE = { events: 100, full: 25 } as const;
const MAX_PAGE = 500;
/** In depth `events`, strings longer than this are cut (depth `full` keeps them). */
const EVENT_TEXT_LIMIT = 2000;

/** The arguments that name agents and their homes, with examples from the registry's ids. */
function homeArgsOf(examples: AgentExamples) {
  const [a, b] = examples.pair;
  return {
    agent: z.string().optional().describe(`the agent id (e.g. ${examples.some}); omitted: every registered agent`),
    home: z.string().optional().describe("the agent's home directory (with agent); default: its environment variable, else the agent's default home"),
    homes: z.record(z.string(), z.string()).optional().describe(`homes per agent, e.g. {"${a}": "/tmp/x/${a}-home", "${b}": "/tmp/x/${b}-home"}`),
  };
}

const sessionArg = z.string().describe('a native session id, a unique prefix of one, a canonical sess_… id (list_sessions shows them), or with "agent" a session file (or <db>#<id>) under a readable root');


/** A Line for the verifier, for events that come from memory rather than a file. */
function lineOf(number: number, event: unknown): Line {
  const text = JSON.stringify(event);
  return { text, number, start: 0, end: text.length, terminated: true };
}

/** One page of a list: an opaque cursor encodes where the next page starts. */
function encodeCursor(value: Json): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
function decodeCursor(cursor: string | undefined): Json {
  if (cursor === undefined) return {};
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Json;
  } catch {
    // reported below
  }
  throw new ToolInputError('"cursor" is not a cursor this server gave out: pass next_cursor from the previous page as it is');
}

function cut(value: unknown, limit: number): unknown {
  if (typeof value === 'string') return value.length > limit ? `${value.slice(0, limit)}… [${value.length - limit} more characters: depth "full" has them]` : value;
  if (Array.isArray(value)) return value.map((v) => cut(v, limit));
  if (typeof value === 'object' && value !== null) {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) setMember(out, k, k === 'data' && typeof v === 'string' && v.length > 256 ? `[${v.length} characters of base64: depth "full" has them]` : cut(v, limit));
    return out;
  }
  return value;
}

/** Depth `events`: each event without its verbatim native lines, long strings cut. */
function eventView(event: SpEvent): Json {
  const { origin, ...rest } = event as SpEvent & { origin?: Json };
  const view = cut(rest, EVENT_TEXT_LIMIT) as Json;
  if (origin) {
    const { raw: _raw, ...keep } = origin;
    view.origin = keep;
  }
  return view;
}

const textOf = (payload: Json): string => {
  const content = payload.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (b && typeof b === 'object' && typeof (b as Json).text === 'string' ? (b as Json).text : '')).join('\n');
  return typeof payload.text === 'string' ? payload.text : '';
};

/** Depth `brief`: what the session is and where it stands, in a few hundred tokens. */
function brief(ref: SessionRef, events: SpEvent[]): Json {
  const counts: Record<string, number> = {};
  for (const e of events) counts[e.type] = (counts[e.type] ?? 0) + 1;
  const prompts = events.filter((e) => e.type === 'message.user').map((e) => ({ seq: e.seq, text: cut(textOf(e.payload as Json), 400) }));
  const replies = events.filter((e) => e.type === 'message.assistant').map((e) => ({ seq: e.seq, text: cut(textOf(e.payload as Json), 400) }));
  const edited = [...new Set(events.filter((e) => e.type === 'file.edit').map((e) => String((e.payload as Json).path)))];
  const failed = events
    .filter((e) => e.type === 'command.run' && typeof (e.payload as Json).exit_code === 'number' && (e.payload as Json).exit_code !== 0)
    .slice(-3)
    .map((e) => ({ seq: e.seq, cmd: cut((e.payload as Json).cmd, 200), exit_code: (e.payload as Json).exit_code }));
  const start = events.find((e) => e.type === 'session.start');
  return {
    session: start?.session ?? events[0]?.session,
    agent: ref.agent,
    native_id: ref.native_id,
    path: ref.path,
    cwd: ref.cwd ?? (start?.payload as Json | undefined)?.cwd,
    model: (start?.payload as Json | undefined)?.model,
    events: events.length,
    types: counts,
    first_prompt: prompts[0],
    last_prompt: prompts.length > 1 ? prompts[prompts.length - 1] : undefined,
    last_reply: replies[replies.length - 1],
    files_edited: edited,
    failed_commands: failed,
    more: 'get_session with depth "events" pages through the events; compile_context gives a token-budgeted handoff',
  };
}

/** What every tool registration shares: the lazily loaded registry and confinement, the limits, the tool runner and the notes. */
interface ToolContext {
  log: (line: string) => void;
  /** Agent ids for the descriptions, and the `agent`/`home`/`homes` arguments built with them. */
  examples: AgentExamples;
  homeArgs: ReturnType<typeof homeArgsOf>;
  adapters: () => Promise<Registry>;
  access: AccessOptions;
  confined: () => Promise<Confinement>;
  limits: Limits;
  confineHomes: <A extends HomeArgs>(args: A) => Promise<A>;
  tool: <A>(name: string, run: (args: A, budget: Budget) => Promise<{ text?: string; json?: unknown }>) => (args: A) => Promise<CallToolResult>;
  note: (where: string, what: string) => void;
  takeNotes: () => string[];
  adapterNote: (where: string, what: string) => void;
  /** The session's events, captured now and redacted. */
  sessionEvents: (args: SessionArgs, budget: Budget) => Promise<{ adapter: Adapter; ref: SessionRef; events: SpEvent[] }>;
  /** The session the caller names, looked up in confined homes; its file must resolve under a read root. */
  confinedSession: (args: SessionArgs) => Promise<{ adapter: Adapter; ref: SessionRef }>;
}

type SessionArgs = { session: string; agent?: string; home?: string; homes?: Record<string, string> };

export function createSpServer(options: ServerOptions): McpServer {
  const ctx = toolContext(options);
  const server = new McpServer(
    { name: 'sp', version: options.version },
    {
      capabilities: { tools: {} },
      instructions:
        `sp reads the sessions of coding agents (agent ids: ${ctx.examples.all}) as canonical events. Use list_sessions to ` +
        'find a session, get_session to read it, compile_context for a token-budgeted handoff to continue it, relay to write it ' +
        'as a new session of another agent (returns the resume command), search for the local store, verify to check a hash ' +
        'chain. Secrets are redacted in everything this server returns.',
    },
  );
  registerSessionTools(server, ctx);
  registerHandoffTools(server, ctx);
  registerStoreTools(server, ctx);
  // current_session, handoff, resume_elsewhere (loop.ts): for agents that hand over or move their own work.
  registerLoopTools(server, ctx);

  return server;
}

/** The state and helpers the tools share, set up once per server. */
function toolContext(options: ServerOptions): ToolContext {
  const log = options.log ?? ((line: string) => process.stderr.write(`sp-mcp: ${line}\n`));
  let registry: Promise<Registry> | undefined;
  const adapters = () => (registry ??= options.loadRegistry());
  const access = options.access ?? {};
  let confinement: Promise<Confinement> | undefined;
  const confined = () => (confinement ??= adapters().then((r) => confinementFor(r, access)));
  const limits: Limits = { ...DEFAULT_LIMITS, ...access.limits };

  /** The caller's home arguments, each checked against the read roots and resolved; the start-up homes as defaults. */
  const confineHomes = async <A extends HomeArgs>(args: A): Promise<A> => {
    const c = await confined();
    const out: A = { ...args, defaultHomes: access.homes };
    if (args.home !== undefined) out.home = c.readable(args.home, 'home');
    if (args.homes !== undefined) {
      out.homes = {};
      for (const [agent, dir] of Object.entries(args.homes)) out.homes[agent] = c.readable(dir, `homes.${agent}`);
    }
    return out;
  };

  /**
   * Runs a tool: its answer redacted, any error a tool error with a clear message. A call over its
   * time limit is answered with a tool error at once; its work stops at its next budget check.
   */
  const tool = <A>(name: string, run: (args: A, budget: Budget) => Promise<{ text?: string; json?: unknown }>) => async (args: A): Promise<CallToolResult> => {
    const budget = new Budget(name, limits);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        budget.expire();
        reject(new LimitError(budget.timeoutMessage()));
      }, limits.timeoutMs);
    });
    try {
      const work = run(args, budget);
      work.catch(() => {}); // after a timeout its own failure has no one to tell
      const { text, json } = await Promise.race([work, expired]);
      const content: CallToolResult['content'] = [];
      if (text !== undefined) content.push({ type: 'text', text: await redactValue(text) });
      if (json !== undefined) content.push({ type: 'text', text: JSON.stringify(await redactValue(json), null, 1) });
      return { content };
    } catch (err) {
      let message: string;
      if (err instanceof ToolInputError) message = err.message;
      else if (err instanceof UserError) message = err.where ? `${err.where}: ${err.message}` : err.message;
      else {
        message = `internal error: ${(err as Error)?.message ?? String(err)}`;
        log(`${name}: ${(err as Error)?.stack ?? String(err)}`);
      }
      return { isError: true, content: [{ type: 'text', text: `${name}: ${await redactValue(message)}` }] };
    } finally {
      clearTimeout(timer);
    }
  };

  const diagnostics: string[] = [];
  const note = (where: string, what: string) => {
    if (diagnostics.length < 20) diagnostics.push(`${where}: ${what}`);
  };
  const takeNotes = () => diagnostics.splice(0);
  // An adapter's diagnostic may quote the line it stumbled on (and a JSON parser's message quotes
  // its input): over MCP only what went wrong and where is passed on — the message up to its first
  // ": " or " (", which is where the quoted text or detail starts.
  const adapterNote = (where: string, what: string) => note(where, what.split(/: | \(/, 1)[0]);

  /** The session's events, captured now and redacted. */
  const sessionEvents = async (args: { session: string; agent?: string; home?: string; homes?: Record<string, string> }, budget: Budget) => {
    const { adapter, ref } = await confinedSession(args);
    const events = await redactEvents(await captureEvents(adapter, ref, adapterNote, () => budget.event()));
    budget.check();
    return { adapter, ref, events };
  };

  /** The session the caller names, looked up in confined homes; its file must resolve under a read root. */
  const confinedSession = async (args: { session: string; agent?: string; home?: string; homes?: Record<string, string> }) => {
    const c = await confined();
    // A session named by its file is confined before the adapter opens it.
    const checkPath = (path: string) => {
      c.sessionFile(path, true);
      return path;
    };
    const found = await findSession(await adapters(), args.session, { ...(await confineHomes(args)), checkPath });
    c.sessionFile(found.ref.path, true);
    return found;
  };

  const examples = agentExamples(options.agentIds);
  return { log, examples, homeArgs: homeArgsOf(examples), adapters, access, confined, limits, confineHomes, tool, note, takeNotes, adapterNote, sessionEvents, confinedSession };
}

/** list_sessions and get_session: find a session and read it. */
function registerSessionTools(server: McpServer, ctx: ToolContext): void {
  const { adapters, confined, confineHomes, tool, note, takeNotes, adapterNote, sessionEvents } = ctx;
  server.registerTool(
    'list_sessions',
    {
      title: 'List agent sessions',
      description:
        "Sessions found in the coding agents' own stores (read-only), newest first per agent: agent, native_id, path, cwd, " +
        'first prompt, title, first/last time, message and tool-call counts. Every registered agent unless "agent" is given.',
      inputSchema: z.object({
        ...ctx.homeArgs,
        cwd: z.string().optional().describe("only this project directory's sessions"),
        limit: z.number().int().min(1).max(MAX_PAGE).optional().describe('sessions per page (default 50)'),
        cursor: z.string().optional().describe('next_cursor from the previous page'),
      }),
      annotations: { readOnlyHint: true },
    },
    tool('list_sessions', async (args: { agent?: string; home?: string; homes?: Record<string, string>; cwd?: string; limit?: number; cursor?: string }, budget) => {
      const from = Number(decodeCursor(args.cursor).o ?? 0);
      const limit = args.limit ?? 50;
      const c = await confined();
      // "cwd" here is only compared with each session's recorded folder: nothing is read from it.
      const found = await listSessions(await adapters(), { ...(await confineHomes(args)), details: true }, adapterNote, () => budget.check());
      // A session file that resolves outside the roots (a symlink in a home) is left out, and said so.
      const all = found.filter((ref) => {
        try {
          c.sessionFile(ref.path);
          return true;
        } catch (err) {
          note(ref.agent, (err as Error).message);
          return false;
        }
      });
      const page = all.slice(from, from + limit);
      return {
        json: {
          sessions: page,
          total: all.length,
          next_cursor: from + limit < all.length ? encodeCursor({ o: from + limit }) : undefined,
          diagnostics: takeNotes(),
        },
      };
    }),
  );

  server.registerTool(
    'get_session',
    {
      title: 'Read a session',
      description:
        'One session as canonical events, redacted. depth "brief" (default): what it is and where it stands (prompts, last ' +
        'reply, files edited, failed commands, counts per event type); "events": the events without verbatim native lines and ' +
        'with long strings cut; "full": every event whole. Pages of "limit" events; pass next_cursor for the next page.',
      inputSchema: z.object({
        session: sessionArg,
        ...ctx.homeArgs,
        depth: z.enum(DEPTHS).optional().describe('brief | events | full (default brief)'),
        limit: z.number().int().min(1).max(MAX_PAGE).optional().describe(`events per page (default ${PAGE.events} for events, ${PAGE.full} for full)`),
        cursor: z.string().optional().describe('next_cursor from the previous page'),
        types: z.array(z.string()).optional().describe('only these event types, e.g. ["tool.call", "file.edit"]'),
      }),
      annotations: { readOnlyHint: true },
    },
    tool(
      'get_session',
      async (args: { session: string; agent?: string; home?: string; homes?: Record<string, string>; depth?: (typeof DEPTHS)[number]; limit?: number; cursor?: string; types?: string[] }, budget) => {
        const depth = args.depth ?? 'brief';
        const position = decodeCursor(args.cursor);
        const { ref, events } = await sessionEvents(args, budget);
        if (depth === 'brief') return { json: { ...brief(ref, events), diagnostics: takeNotes() } };
        if (position.s !== undefined && position.s !== events[0]?.session) throw new ToolInputError('"cursor" belongs to another session');
        const selected = args.types ? events.filter((e) => args.types!.includes(e.type)) : events;
        const from = Number(position.o ?? 0);
        const limit = args.limit ?? PAGE[depth];
        const page = selected.slice(from, from + limit);
        return {
          json: {
            session: events[0]?.session,
            agent: ref.agent,
            native_id: ref.native_id,
            depth,
            total: selected.length,
            from,
            events: depth === 'full' ? page : page.map(eventView),
            next_cursor: from + limit < selected.length ? encodeCursor({ s: events[0]?.session, o: from + limit }) : undefined,
            diagnostics: takeNotes(),
          },
        };
      },
    ),
  );
}

/** compile_context and relay: continue a session elsewhere. */
function registerHandoffTools(server: McpServer, ctx: ToolContext): void {
  registerCompileContextTool(server, ctx);
  registerRelayTool(server, ctx);
}

function registerCompileContextTool(server: McpServer, ctx: ToolContext): void {
  const { adapters, tool, takeNotes, sessionEvents } = ctx;
  server.registerTool(
    'compile_context',
    {
      title: 'Compile a handoff',
      description:
        'A token-budgeted handoff of a session for the agent that continues it (sp-compile --render): the goal, open steps, ' +
        'decisions with reasons, the last failing command and its error, edited files, recent commands, constraints, each ' +
        'line with the [seq] it comes from. Never over the budget (counted with the target\'s tokenizer). Redacted.',
      inputSchema: z.object({
        session: sessionArg,
        ...ctx.homeArgs,
        target: z.string().describe('who continues: an agent id with a compile profile (sp-compile --help lists them) or markdown'),
        budget: z.number().int().min(1).optional().describe('token budget (default per target: 24,000; markdown 16,000)'),
        format: z.enum(['message', 'agents-md']).optional().describe('message (a first user message with a relay header, default) or agents-md (an instructions-file section)'),
      }),
      annotations: { readOnlyHint: true },
    },
    tool('compile_context', async (args: { session: string; agent?: string; home?: string; homes?: Record<string, string>; target: string; budget?: number; format?: string }, budget) => {
      const { ref, events } = await sessionEvents(args, budget);
      await adapters(); // compile profiles and labels are the registry's (lib/adapter/registry.ts)
      const compiled = await compileHandoff(events, { target: args.target, budget: args.budget, format: args.format });
      return {
        text: compiled.text,
        json: { session: events[0]?.session, agent: ref.agent, native_id: ref.native_id, target: args.target, tokens: compiled.tokens, budget: compiled.budget, dropped: compiled.dropped, diagnostics: takeNotes() },
      };
    }),
  );
}

type RelayArgs = SessionArgs & {
  target: string;
  target_home?: string;
  cwd?: string;
  model?: string;
  mode?: 'history' | 'context';
  budget?: number;
  branches?: 'active' | 'all';
  thinking?: 'keep-text' | 'drop';
  mkcwd?: boolean;
  experimental?: boolean;
  dry_run?: boolean;
};

function registerRelayTool(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'relay',
    {
      title: 'Relay a session to another agent',
      description:
        "Writes a session (redacted) as a NEW native session of the target agent, in the target's home, so its real client " +
        'resumes it; never overwrites anything. The same relay as sp-materialize: history mode carries the conversation with ' +
        "tool calls translated into the target's own tools; context mode starts the target on a compiled handoff plus the " +
        'newest turns. Returns the resume command, where it was written and the ledger: totals by action and every source ' +
        'event that was not carried as it was (translated, rendered, stubbed, dropped …). dry_run writes nothing.',
      inputSchema: z.object({
        session: sessionArg,
        ...ctx.homeArgs,
        target: z.string().describe(`the agent that continues (one that can be written, e.g. ${ctx.examples.some})`),
        target_home: z.string().optional().describe("the target agent's home; default: homes[target], else its environment variable, else its default home"),
        cwd: z.string().optional().describe("the project directory the new session belongs to (default: the source session's)"),
        model: z.string().optional().describe('the model the target continues with'),
        mode: z.enum(['history', 'context']).optional().describe('history (the whole conversation, default) or context (a compiled handoff and the newest turns)'),
        budget: z.number().int().min(1).optional().describe("context mode: the handoff's token budget (default per target)"),
        branches: z.enum(['active', 'all']).optional().describe('a tree relayed to a linear agent: the active branch (default), or every other branch as its own session too'),
        thinking: z.enum(['keep-text', 'drop']).optional().describe('reasoning the target cannot take natively: as marked text (default) or dropped'),
        mkcwd: z.boolean().optional().describe('create the project directory when it does not exist'),
        experimental: z.boolean().optional().describe('allow a writer no real client has checked (cursor); the result says "unverified"'),
        dry_run: z.boolean().optional().describe('compute everything, write nothing'),
      }),
      annotations: { destructiveHint: false, idempotentHint: false },
    },
    ctx.tool('relay', (args: RelayArgs, budget) => relayTool(ctx, args, budget)),
  );
}

/** The relay tool's steps: the target checked, where it writes confined, the relay, the ledger summarised. */
async function relayTool(ctx: ToolContext, args: RelayArgs, budget: Budget): Promise<{ json: unknown }> {
  const target = await writableTarget(ctx, args);
  const c = await ctx.confined();
  const dryRun = args.dry_run === true;
  const { home, cwd, ref, events } = await relayPlaces(ctx, c, target, args, budget);
  const input = args.mode === 'context' ? [...events, await compiledEvent(events, { target: target.id, budget: args.budget })] : events;
  const relayOptions = {
    home,
    cwd,
    model: args.model,
    branches: args.branches,
    thinking: args.thinking,
    mkcwd: args.mkcwd,
    experimental: args.experimental,
    backup: true,
  };
  if (!dryRun) {
    // A symlink inside an allowed home (sessions/ → elsewhere) would carry the write out: the
    // writer's own paths, from a dry run, must resolve under an allowed folder too.
    const planned = await relayEvents(target, input, { ...relayOptions, dryRun: true });
    planned.ledger.remove();
    for (const { path } of planned.results) c.writableSessionFile(path);
    budget.check();
  }
  const outcome = await relayEvents(target, input, { ...relayOptions, dryRun });
  const [main, ...others] = outcome.results;
  // What an agent needs to judge the relay: the totals, and each event that did not go over as it was.
  let changed: LedgerRow[];
  let totals: LedgerTotals;
  try {
    changed = [...outcome.ledger.rows()].filter((row) => row.action !== 'carried');
    totals = outcome.ledger.totals();
  } finally {
    outcome.ledger.remove();
  }
  return {
    json: {
      from: { agent: ref.agent, native_id: ref.native_id, session: events[0]?.session, events: events.length },
      mode: outcome.mode,
      to: main,
      resume: main.resume,
      ...(others.length ? { branches: others.map((r) => ({ session_id: r.session_id, path: r.path, resume: r.resume, branch: r.branch })) } : {}),
      ledger: {
        totals,
        changed: changed.slice(0, 100),
        truncated: changed.length > 100,
        session_changes: outcome.ledger.unattached,
      },
      diagnostics: ctx.takeNotes(),
    },
  };
}

/** The relay's target adapter, refused when it cannot be written (or is experimental and not allowed). */
async function writableTarget(ctx: ToolContext, args: RelayArgs): Promise<Adapter> {
  const registry = await ctx.adapters();
  const target = adapterOf(registry, args.target);
  const experimental = target.capabilities.experimental;
  if (experimental && !args.experimental) {
    throw new ToolInputError(`writing ${target.displayName} sessions is experimental and unverified (${experimental}); pass experimental: true to write one anyway`);
  }
  if (!target.materialize) {
    const writers = Object.keys(registry).filter((id) => registry[id].materialize).sort();
    throw new ToolInputError(`${target.displayName} sessions cannot be written; targets: ${writers.join(', ')}`);
  }
  if (args.budget !== undefined && args.mode !== 'context') throw new ToolInputError('"budget" is for mode "context"');
  return target;
}

/** The target home and project folder (confined: writable for a relay, readable for a dry run) and the source session. */
async function relayPlaces(ctx: ToolContext, c: Confinement, target: Adapter, args: RelayArgs, budget: Budget) {
  const dryRun = args.dry_run === true;
  // Where it would write, checked before anything is read: a real relay only under --allow-write
  // folders; a dry run writes nothing, so the paths it is given only need to be readable.
  const place = (path: string, what: string) => (dryRun ? c.readable(path, what) : c.writable(path, what));
  // The target's home by default: homes[target], else its start-up home, else its own default.
  const defaultHome = homeOf(target, { homes: (await ctx.confineHomes(args)).homes, defaultHomes: ctx.access.homes });
  const home = args.target_home !== undefined ? place(args.target_home, 'target_home') : dryRun ? defaultHome : place(defaultHome, 'target_home');
  let cwd = args.cwd !== undefined ? place(args.cwd, 'cwd') : undefined;
  const { ref, events } = await ctx.sessionEvents(args, budget);
  if (cwd === undefined) {
    // The session's own folder (as the writers default to it), held to the same rule when writing.
    const start = events.find((e) => e.type === 'session.start')?.payload as Json | undefined;
    const recorded = typeof start?.cwd === 'string' && start.cwd !== '' ? start.cwd : typeof ref.cwd === 'string' ? ref.cwd : process.cwd();
    cwd = dryRun ? resolve(recorded) : place(recorded, "cwd (the session's own folder)");
  }
  if (args.cwd !== undefined && !existsSync(cwd) && !args.mkcwd) {
    throw new ToolInputError(`the project directory ${args.cwd} does not exist (pass mkcwd: true to create it)`);
  }
  return { home, cwd, ref, events };
}

/** search, verify and expand_context: the local store and what a handoff left out. */
function registerStoreTools(server: McpServer, ctx: ToolContext): void {
  const { log, confined, tool, takeNotes, adapterNote, confinedSession } = ctx;
  server.registerTool(
    'search',
    {
      title: 'Search the session store',
      description:
        'Full-text search over the sessions kept in the local sp store (sp-sync ingest, or the archive flow, puts them ' +
        'there): session, seq, event type, time, title and a snippet per hit. Before it answers, it adds the text of ' +
        'events stored since the last search to the store\'s search index (nothing else is changed).',
      inputSchema: z.object({
        query: z.string().describe('words to find'),
        limit: z.number().int().min(1).max(MAX_PAGE).optional().describe('hits (default 20)'),
        store: z.string().optional().describe('the store directory (default $SP_HOME/store, SP_HOME defaults to ~/.sp)'),
      }),
      // Not read-only: a search catches the index up (lib/store/search-index.ts), which writes
      // index.sqlite. It only adds rows, and a second call adds none.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    tool('search', async (args: { query: string; limit?: number; store?: string }) => {
      if (args.query.trim() === '') throw new ToolInputError('"query" is empty');
      const c = await confined();
      return withStore(args.store !== undefined ? c.readable(args.store, 'store') : c.store, (store) => ({ json: { query: args.query, hits: store.search(args.query, { limit: args.limit ?? 20 }) } }));
    }),
  );

  server.registerTool(
    'verify',
    {
      title: 'Verify a hash chain',
      description:
        'Checks canonical events: JSON, the schema, seq per session and the hash chain; names the first damaged place and the ' +
        'kind of damage. One of: "path" (an NDJSON file of events), "session" (captured now from its agent), "stored" (a ' +
        'session id in the sp store).',
      inputSchema: z.object({
        path: z.string().optional().describe('an NDJSON file of canonical events'),
        session: z.string().optional().describe("a session in an agent's store (with agent/home/homes as in get_session)"),
        stored: z.string().optional().describe('a canonical session id in the sp store'),
        store: z.string().optional().describe('the store directory, with "stored"'),
        allow_fragment: z.boolean().optional().describe('accept a stream that starts after seq 0 (an incremental capture)'),
        ...ctx.homeArgs,
      }),
      annotations: { readOnlyHint: true },
    },
    tool(
      'verify',
      async (args: { path?: string; session?: string; stored?: string; store?: string; allow_fragment?: boolean; agent?: string; home?: string; homes?: Record<string, string> }, budget) => {
        const given = (['path', 'session', 'stored'] as const).filter((k) => args[k] !== undefined);
        if (given.length !== 1) throw new ToolInputError(`give exactly one of "path", "session", "stored"${given.length ? ` (got ${given.join(', ')})` : ''}`);
        const { Verifier } = await import('../core/verify.js');
        const { createValidator } = await import('../core/schema.js');
        const validator = await createValidator();
        const c = await confined();
        if (args.path !== undefined) {
          // Any file under a root can be named here: the answer tells where it is damaged, never what it holds (verify.ts).
          const verifier = new Verifier({ validator: pathlessValidator(validator), allowFragment: args.allow_fragment });
          const { report, malformed, unlisted } = await verifyFile(c, args.path, verifier, budget);
          return { json: { ...report, malformed, ...(unlisted ? { stream_damage_unlisted: unlisted } : {}), diagnostics: takeNotes() } };
        }
        const verifier = new Verifier({ validator, allowFragment: args.allow_fragment });
        if (args.session !== undefined) {
          const { adapter, ref } = await confinedSession({ ...args, session: args.session });
          let n = 0;
          for (const event of await captureEvents(adapter, ref, adapterNote, () => budget.event())) verifier.push(ref.path, lineOf(++n, event), event as never);
        } else {
          await withStore(args.store !== undefined ? c.readable(args.store, 'store') : c.store, async (store) => {
            let n = 0;
            if (!store.sessions({ all: true }).some((s: { id: string }) => s.id === args.stored)) throw new ToolInputError(`no session "${args.stored}" in the store ${store.dir}`);
            for await (const event of store.events(args.stored)) {
              budget.event();
              verifier.push(`store:${args.stored}`, lineOf(++n, event), event);
            }
            return {};
          });
        }
        return { json: { ...verifier.finish(), diagnostics: takeNotes() } };
      },
    ),
  );

  server.registerTool(
    'expand_context',
    {
      title: 'Expand a handoff item',
      description:
        'The original events (redacted) behind one item of a compiled handoff — kept, cut or summarized — so detail left out ' +
        'can be pulled back. "session": a stored session id (sess_…, or a unique prefix) whose log holds a context.compiled ' +
        'event, or an NDJSON file of sp-compile output; "item": an item id of the handoff (goal:12, digest:commands …), a cut ' +
        "group's kind@first-seq, or a seq range a-b.",
      inputSchema: z.object({
        session: z.string().describe('a stored session id (sess_…) or the path of an NDJSON file holding a handoff'),
        item: z.string().describe('an item id, kind@first-seq, or a seq range a-b'),
        store: z.string().optional().describe('the store directory, with a stored session id (default $SP_HOME/store)'),
      }),
      annotations: { readOnlyHint: true },
    },
    tool('expand_context', async (args: { session: string; item: string; store?: string }, budget) =>
      (await import('./expand.js')).expandContext(args, budget, await confined(), withStore),
    ),
  );
}

// The store (sp-sync's) is optional at run time: loaded only by the tools that need it, and a
// missing or empty store is a tool error that says how to fill it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyStore = any;

async function withStore<T>(dir: string | undefined, use: (store: AnyStore) => T | Promise<T>): Promise<T> {
  let mod: AnyStore;
  try {
    const spec = '../store/index.js';
    mod = await import(spec);
  } catch {
    throw new ToolInputError('the session store is not available in this build of sp (sp-sync is missing)');
  }
  const resolved: string = mod.resolveStoreDir(dir);
  const empty = `no sessions in the store ${resolved}: run \`sp-capture <agent> --all | sp-redact | sp-sync ingest\` or \`sp archive\` first`;
  if (!existsSync(resolved) || !existsSync(join(resolved, 'index.sqlite'))) throw new ToolInputError(empty);
  const store = mod.Store.open(resolved, { readonly: true });
  try {
    if (store.sessions({ all: true }).length === 0) throw new ToolInputError(empty);
    return await use(store);
  } finally {
    store.close();
  }
}
