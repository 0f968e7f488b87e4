// MCP tools for an agent in the loop: current_session (the calling agent's own session, from its
// folder and its environment), handoff (a handoff record with a note and an expectation, in the
// store) and resume_elsewhere (what `sp resume` does, write-confined as `relay` is: the target home,
// the mapped project folder and every file the writer plans must lie under --allow-write folders).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { McpServer, CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { Adapter, SessionRef } from '../adapter/interface.js';
import { canonicalSessionId, type SpEvent } from '../core/event.js';
import type { Budget, Confinement, AccessOptions } from './confine.js';
import type { AgentExamples } from './examples.js';
import { ToolInputError, adapterOf, homeOf, listSessions, type HomeArgs, type Registry } from './pipeline.js';

export interface LoopContext {
  tool: <A>(name: string, run: (args: A, budget: Budget) => Promise<{ text?: string; json?: unknown }>) => (args: A) => Promise<CallToolResult>;
  confined: () => Promise<Confinement>;
  adapters: () => Promise<Registry>;
  access: AccessOptions;
  confineHomes: <A extends HomeArgs>(args: A) => Promise<A>;
  takeNotes: () => string[];
  adapterNote: (where: string, what: string) => void;
  /** Agent ids for the descriptions (the registry's). */
  examples: AgentExamples;
}

/** The agents the environment points at (a client's marker variable, or its home variable), and why; none found: every agent. */
export function callingAgents(registry: Registry, env: NodeJS.ProcessEnv): { agents: string[]; because: string[] } {
  const because: string[] = [];
  const agents: string[] = [];
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  for (const id of Object.keys(registry).sort()) {
    const marker = (registry[id].clientEnv ?? []).find(set);
    const home = set(registry[id].homeEnv) ? registry[id].homeEnv : undefined;
    if (marker ?? home) {
      agents.push(id);
      because.push(`${id}: ${marker ?? home} is set`);
    }
  }
  return { agents, because };
}

const when = (ref: SessionRef): number => ref.last_ts ?? ref.mtime ?? ref.first_ts ?? 0;

const MAX_TEXT = 4000;

export function registerLoopTools(server: McpServer, ctx: LoopContext): void {
  registerCurrentSession(server, ctx);
  registerHandoff(server, ctx);
  registerResumeElsewhere(server, ctx);
}

/** current_session: the newest session the calling agent recorded in a folder. */
function registerCurrentSession(server: McpServer, ctx: LoopContext): void {
  const { tool, confined, adapters, confineHomes, takeNotes, adapterNote } = ctx;
  server.registerTool(
    'current_session',
    {
      title: "The calling agent's own session",
      description:
        "Finds the session of the agent calling this tool: the newest session recorded in the given folder (default: this " +
        "server's working directory, which the agent starts it in) by the agent the environment names (a variable its client " +
        'sets, or its home variable; else every agent, or "agent"). Read-only. Returns its agent, native and canonical ' +
        'id, file, folder and times, and the other recent sessions of that folder.',
      inputSchema: z.object({
        cwd: z.string().optional().describe("the agent's project folder (default: this server's working directory)"),
        agent: z.string().optional().describe(`the calling agent, when the environment does not say (${ctx.examples.some} …)`),
        home: z.string().optional().describe("that agent's home, when not its default"),
        homes: z.record(z.string(), z.string()).optional().describe('homes per agent'),
      }),
      annotations: { readOnlyHint: true },
    },
    tool('current_session', async (args: { cwd?: string; agent?: string; home?: string; homes?: Record<string, string> }, budget) => {
      const registry = await adapters();
      const c = await confined();
      if (args.agent !== undefined) adapterOf(registry, args.agent);
      const found = args.agent !== undefined ? { agents: [args.agent], because: ['agent given'] } : callingAgents(registry, process.env);
      const agents = found.agents.length > 0 ? found.agents : Object.keys(registry).sort();
      // The folder is only compared with each session's recorded one: nothing is read from it.
      const cwd = resolve(args.cwd ?? process.cwd());
      const refs: SessionRef[] = [];
      for (const agent of agents) {
        const homes = await confineHomes({ agent, home: args.agent === agent ? args.home : undefined, homes: args.homes });
        for (const ref of await listSessions(registry, { ...homes, agent, cwd, details: true }, adapterNote, () => budget.check())) {
          try {
            c.sessionFile(ref.path);
            refs.push(ref);
          } catch (err) {
            adapterNote(ref.agent, (err as Error).message);
          }
        }
      }
      refs.sort((a, b) => when(b) - when(a));
      if (refs.length === 0) {
        throw new ToolInputError(`no session of ${agents.join(', ')} recorded in ${cwd}${found.agents.length === 0 ? ' (the environment names no agent: pass "agent")' : ''}`);
      }
      const [newest, ...others] = refs;
      const view = (ref: SessionRef) => ({ agent: ref.agent, native_id: ref.native_id, session: canonicalSessionId(ref.agent, ref.native_id), path: ref.path, cwd: ref.cwd, title: ref.title, first_prompt: ref.first_prompt, first_ts: ref.first_ts, last_ts: ref.last_ts });
      return { json: { ...view(newest), found_by: [...found.because, `newest session in ${cwd}`], others: others.slice(0, 5).map(view), diagnostics: takeNotes() } };
    }),
  );
}

/** handoff: a handoff event and receipt in the store, the session's owner moved to the receiving agent. */
function registerHandoff(server: McpServer, ctx: LoopContext): void {
  const { tool, confined, adapters } = ctx;
  server.registerTool(
    'handoff',
    {
      title: 'Record a handoff',
      description:
        'Records in the sp store that a stored session is handed to another agent: a handoff event with the note and what ' +
        'the receiving agent is expected to do, a signed receipt, and the session\'s owner moved to that agent. The session ' +
        'must be in the store (sp-sync ingest, sp watch or the archive flow put it there).',
      inputSchema: z.object({
        session: z.string().describe('the stored session: canonical sess_… id, native id, session:// URI or a unique prefix'),
        to_agent: z.string().describe(`the agent that takes over (${ctx.examples.some} …)`),
        note: z.string().max(MAX_TEXT).optional().describe('what the receiving agent should know'),
        expect: z.string().max(MAX_TEXT).optional().describe('what it is expected to do (e.g. "make the failing test pass and report back")'),
        target_session: z.string().max(200).optional().describe("the receiving agent's session id, when one was written already"),
        store: z.string().optional().describe('the store directory (default: the server\'s store; another one must be under an --allow-write folder)'),
      }),
      annotations: { destructiveHint: false, idempotentHint: false },
    },
    tool('handoff', async (args: { session: string; to_agent: string; note?: string; expect?: string; target_session?: string; store?: string }) => {
      const registry = await adapters();
      const toAgent = adapterOf(registry, args.to_agent).id;
      const c = await confined();
      const dir = args.store !== undefined ? c.writable(args.store, 'store') : c.store;
      const { Store, recordHandoff } = await import('../store/index.js');
      const { matchStoredSessions, pickStoredSession } = await import('../ops/resume.js');
      if (!existsSync(dir)) throw new ToolInputError(`no store at ${dir}`);
      const store = Store.open(dir);
      try {
        const summary = pickStoredSession(matchStoredSessions(store, args.session), args.session, dir);
        const fromAgent = summary.owner ?? summary.agent ?? 'unknown';
        const result = recordHandoff(store, { sourceSession: summary.id, fromAgent, toAgent, note: args.note, expect: args.expect, targetSessionId: args.target_session });
        return { json: { session: summary.id, from_agent: fromAgent, to_agent: toAgent, seq: result.seq, receipt_id: result.receipt.receipt_id, receipt: result.receiptPath } };
      } finally {
        store.close();
      }
    }),
  );
}

/** resume_elsewhere: `sp resume` for a stored session, confined to the --allow-write folders. */
function registerResumeElsewhere(server: McpServer, ctx: LoopContext): void {
  const { tool, confined, adapters, access, takeNotes } = ctx;
  server.registerTool(
    'resume_elsewhere',
    {
      title: 'Resume a stored session in another agent or checkout',
      description:
        'What `sp resume` does: the stored session (redacted) written as a NEW native session of the target agent, every path ' +
        'under its recorded project root moved to this machine\'s checkout (map_cwd "OLD=NEW", else the checkout at or ' +
        'under search_root whose git origin is the one the session recorded). Writes only under --allow-write folders: the ' +
        'target home and the mapped project folder must lie there. Returns the resume command (with the home variable when ' +
        'the home is not the default), what was mapped, and the ledger. dry_run writes nothing.',
      inputSchema: z.object({
        session: z.string().describe('the stored session: canonical sess_… id, native id, session:// URI or a unique prefix'),
        target: z.string().describe(`the agent that continues (${ctx.examples.some} …)`),
        target_home: z.string().optional().describe("the target agent's home (default: its start-up home, else its default)"),
        map_cwd: z.array(z.string()).max(16).optional().describe('OLD=NEW path mappings (absolute folders)'),
        search_root: z.string().optional().describe("where to look for the repository's checkout when map_cwd is not given (default: this server's working directory)"),
        model: z.string().optional().describe('the model the target continues with'),
        mkcwd: z.boolean().optional().describe('create the mapped project folder when it does not exist'),
        experimental: z.boolean().optional().describe('allow a writer no real client has checked'),
        dry_run: z.boolean().optional().describe('compute everything, write nothing'),
        store: z.string().optional().describe('the store to read (default: the server\'s)'),
      }),
      annotations: { destructiveHint: false, idempotentHint: false },
    },
    tool(
      'resume_elsewhere',
      async (
        args: { session: string; target: string; target_home?: string; map_cwd?: string[]; search_root?: string; model?: string; mkcwd?: boolean; experimental?: boolean; dry_run?: boolean; store?: string },
        budget,
      ) => {
        const registry = await adapters();
        const target: Adapter = adapterOf(registry, args.target);
        if (!target.materialize) throw new ToolInputError(`${target.displayName} sessions cannot be written`);
        if (target.capabilities.experimental && !args.experimental) throw new ToolInputError(`writing ${target.displayName} sessions is experimental and unverified; pass experimental: true to write one anyway`);
        const c = await confined();
        const dryRun = args.dry_run === true;
        // As relay: a real write only under --allow-write folders; a dry run only needs them readable.
        const place = (path: string, what: string) => (dryRun ? c.readable(path, what) : c.writable(path, what));
        const { parseMapping, PathMapper } = await import('../relay/map-paths.js');
        const given = (args.map_cwd ?? []).map(parseMapping);
        for (const m of given) place(m.to, 'map_cwd');
        const defaultHome = homeOf(target, { defaultHomes: access.homes });
        const home = args.target_home !== undefined ? place(args.target_home, 'target_home') : dryRun ? defaultHome : place(defaultHome, 'target_home');

        const { Store } = await import('../store/index.js');
        const resume = await import('../ops/resume.js');
        const dir = args.store !== undefined ? c.readable(args.store, 'store') : c.store;
        if (!existsSync(dir)) throw new ToolInputError(`no store at ${dir}`);
        const store = Store.open(dir, { readonly: true });
        let events: SpEvent[];
        let source;
        try {
          source = resume.pickStoredSession(resume.matchStoredSessions(store, args.session), args.session, dir);
          events = [];
          for await (const event of store.events(source.id)) {
            budget.event();
            events.push(event);
          }
        } finally {
          store.close();
        }
        const mappings = given.length > 0 ? given : resume.defaultMappings(events, c.readable(args.search_root ?? process.cwd(), 'search_root'));
        for (const m of mappings) place(m.to, 'the checkout found');
        // The folder the session will run in, after mapping: held to the same rule as relay's cwd.
        const recorded = resume.recordedPlace(events).cwd;
        const cwd = recorded === undefined ? undefined : place(mappings.length ? new PathMapper(mappings).mapText(recorded).text : recorded, "cwd (the session's folder, mapped)");
        if (cwd !== undefined && !existsSync(cwd) && !args.mkcwd) throw new ToolInputError(`the project folder ${cwd} does not exist (give map_cwd, or mkcwd: true to create it)`);
        const options = { mappings, redact: true, home, cwd, model: args.model, mkcwd: args.mkcwd, experimental: args.experimental, backup: true };
        if (!dryRun) {
          // A symlink inside an allowed home would carry the write out: the planned files must resolve under it too.
          for (const planned of (await resume.resumeInto(target, events, { ...options, dryRun: true })).results) c.writableSessionFile(planned.path);
          budget.check();
        }
        const outcome = await resume.resumeInto(target, events, { ...options, dryRun });
        const main = outcome.results[0];
        const changed = [...outcome.ledger.rows()].filter((row) => row.action !== 'carried');
        return {
          json: {
            from: { session: source.id, agent: source.agent, native_id: source.native_id, events: events.length },
            to: main,
            resume: main.resume,
            resume_exec: main.resume_exec,
            mappings,
            path_mapped: outcome.mapped,
            ledger: { totals: outcome.ledger.totals(), changed: changed.slice(0, 100), truncated: changed.length > 100 },
            diagnostics: takeNotes(),
          },
        };
      },
    ),
  );
}
