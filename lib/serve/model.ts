// What `sp serve` and `sp export html` show: the sessions of every agent home and of the store,
// one session with its chain status, branches, signatures and receipts, a relay preview (and its
// write), and a compiled handoff. Everything a browser may name is data: sessions are named by
// agent + native id or by stored id, never by path, and each lookup goes through the same
// confinement as sp-mcp (lib/mcp/confine.ts): reads only under the agent homes, --root folders
// and the store; writes only under --allow-write folders. Everything shown is redacted first.
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Adapter, SessionRef } from '../adapter/interface.js';
import { agentLabel } from '../adapter/registry.js';
import { UserError } from '../cli/diagnostics.js';
import type { SpEvent } from '../core/event.js';
import type { Line } from '../core/lines.js';
import { Budget, Confinement, type AccessOptions, type Limits } from '../mcp/confine.js';
import { ToolInputError, adapterOf, captureEvents, compiledEvent, compileHandoff, homeOf, listSessions, relayEvents, type Registry } from '../mcp/pipeline.js';
import { OpsError, resolveSession, type OpsErrorKind } from '../ops/index.js';

/** The HTTP status of each kind of failure to find a session. */
const OPS_STATUS: Record<OpsErrorKind, number> = { 'not-found': 404, ambiguous: 409, unreadable: 404, refused: 403 };
import type { Redactor } from '../redact/ensure.js';
import type { GroupBy } from '../usage/usage.js';

type Json = Record<string, unknown>;

/** A problem with what the browser asked for: an HTTP 400 (or 403/404) with this message. */
export class RequestError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** A session as the browser names it: an agent's native session, or one in the store. */
export type SessionKey = { agent: string; id: string } | { stored: string };

export interface ListRow {
  key: SessionKey;
  source: 'agent' | 'store';
  agent: string;
  agent_label: string;
  id: string;
  title?: string;
  first_prompt?: string;
  cwd?: string;
  project?: string;
  first_ts?: number;
  last_ts?: number;
  messages?: number;
  tool_calls?: number;
  events?: number;
}

export interface ListFilters {
  agent?: string;
  project?: string;
  /** Epoch seconds: sessions active on or after / before. */
  since?: number;
  until?: number;
  /** Words in the title, the first prompt, the project or the id (and the store's full-text index). */
  q?: string;
}

export interface ModelOptions {
  registry: Registry;
  access: AccessOptions;
  confinement: Confinement;
  redactor: Redactor;
  limits: Limits;
  /** How long a listing of the agent homes is reused (ms): the list page filters without re-reading every home. */
  listTtlMs?: number;
  onDiagnostic?: (where: string, what: string) => void;
}

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:@+=-]{0,255}$/;
const ARTIFACT_PATTERN = /^sha256:([0-9a-f]{64})$/;
const RECEIPT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** A key from query parameters, checked as data. */
export function keyFrom(params: URLSearchParams | Json): SessionKey {
  const get = (name: string): string | undefined => {
    const v = params instanceof URLSearchParams ? params.get(name) : params[name];
    return typeof v === 'string' ? v : undefined;
  };
  const stored = get('stored');
  if (stored !== undefined) {
    if (!ID_PATTERN.test(stored)) throw new RequestError('"stored" is not a stored session id');
    return { stored };
  }
  const agent = get('agent');
  const id = get('id');
  if (agent === undefined || id === undefined) throw new RequestError('name a session: agent and id, or stored');
  if (!/^[a-z][a-z0-9-]{0,31}$/.test(agent)) throw new RequestError('"agent" is not an agent name');
  if (!ID_PATTERN.test(id)) throw new RequestError('"id" is not a session id (letters, digits and _.:@+=- only)');
  return { agent, id };
}

const lineOf = (number: number, event: unknown): Line => {
  const text = JSON.stringify(event);
  return { text, number, start: 0, end: text.length, terminated: true };
};

/** An event as the browser gets it: without the verbatim native lines, redacted. */
function shown(redactor: Redactor, event: SpEvent): SpEvent {
  const copy = JSON.parse(JSON.stringify(event)) as SpEvent;
  if (copy.origin && typeof copy.origin === 'object') delete (copy.origin as Json).raw;
  redactor.redactEvent(copy as unknown as Json);
  return copy;
}

// The store is optional at run time (as for sp-mcp): loaded when first needed.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyStore = any;

export class SessionModel {
  private listed?: { at: number; rows: ListRow[] };
  private readonly usageCache = new Map<string, { at: number; report: Json }>();
  private readonly registry: Registry;
  private readonly access: AccessOptions;
  private readonly confinement: Confinement;
  private readonly redactor: Redactor;
  private readonly limits: Limits;
  private readonly note: (where: string, what: string) => void;

  constructor(private readonly options: ModelOptions) {
    this.registry = options.registry;
    this.access = options.access;
    this.confinement = options.confinement;
    this.redactor = options.redactor;
    this.limits = options.limits;
    this.note = options.onDiagnostic ?? (() => {});
  }

  get writable(): boolean {
    return this.confinement.writeRoots.length > 0;
  }

  /** The targets a relay can write, for the relay page's menu. */
  targets(): Array<{ id: string; label: string; experimental: boolean }> {
    return Object.keys(this.registry)
      .sort()
      .filter((id) => this.registry[id].materialize)
      .map((id) => ({ id, label: this.registry[id].displayName, experimental: Boolean(this.registry[id].capabilities.experimental) }));
  }

  private async withStore<T>(use: (store: AnyStore) => T | Promise<T>): Promise<T | undefined> {
    const dir = this.confinement.store;
    if (!existsSync(join(dir, 'index.sqlite'))) return undefined;
    let mod: AnyStore;
    try {
      const spec = '../store/index.js';
      mod = await import(spec);
    } catch {
      return undefined;
    }
    const store = mod.Store.open(dir, { readonly: true });
    try {
      return await use(store);
    } finally {
      store.close();
    }
  }

  /** Every session of every agent home and of the store, newest first, before filters. */
  private async allRows(): Promise<ListRow[]> {
    const ttl = this.options.listTtlMs ?? 5000;
    if (this.listed && Date.now() - this.listed.at < ttl) return this.listed.rows;
    const rows: ListRow[] = [];
    const budget = new Budget('list', this.limits);
    const found = await listSessions(this.registry, { defaultHomes: this.access.homes, details: true }, this.note, () => budget.check());
    for (const ref of found) {
      try {
        this.confinement.sessionFile(ref.path);
      } catch (err) {
        this.note(ref.agent, (err as Error).message);
        continue;
      }
      rows.push(this.agentRow(ref));
    }
    const stored = await this.withStore((store) => store.sessions() as Array<Json>);
    for (const s of stored ?? []) {
      const cwd = typeof s.cwd === 'string' ? s.cwd : undefined;
      const agent = typeof s.agent === 'string' ? s.agent : 'unknown';
      rows.push({
        key: { stored: String(s.id) },
        source: 'store',
        agent,
        agent_label: agentLabel(agent),
        id: String(s.id),
        title: typeof s.title === 'string' ? s.title : undefined,
        cwd,
        project: cwd ? basename(cwd) : undefined,
        first_ts: typeof s.first_ts === 'number' ? s.first_ts : undefined,
        last_ts: typeof s.last_ts === 'number' ? s.last_ts : undefined,
        events: typeof s.events === 'number' ? s.events : undefined,
      });
    }
    rows.sort((a, b) => (b.last_ts ?? 0) - (a.last_ts ?? 0));
    const redacted = this.redactor.redactValue(rows);
    this.listed = { at: Date.now(), rows: redacted };
    return redacted;
  }

  private agentRow(ref: SessionRef): ListRow {
    const last = ref.last_ts ?? ref.mtime;
    return {
      key: { agent: ref.agent, id: ref.native_id },
      source: 'agent',
      agent: ref.agent,
      agent_label: agentLabel(ref.agent),
      id: ref.native_id,
      title: ref.title,
      first_prompt: ref.first_prompt,
      cwd: ref.cwd,
      project: ref.cwd ? basename(ref.cwd) : undefined,
      first_ts: ref.first_ts,
      last_ts: last,
      messages: ref.messages,
      tool_calls: ref.tool_calls,
    };
  }

  /**
   * The usage page: tokens and cost of every session listed (agent homes, then the store), grouped
   * as `sp usage --by` groups them, priced with the shipped table. Reused for a few seconds like the
   * list, so switching the grouping does not read every session again.
   */
  async usage(by: string, source = 'agents'): Promise<Json> {
    const { GROUPS, UsageReader, reportOf, storeEvents } = await import('../usage/usage.js');
    if (!(GROUPS as readonly string[]).includes(by)) throw new RequestError(`group by one of ${GROUPS.join(', ')}`);
    // One source at a time, as sp usage reads one: a stored session is often an agent's session too.
    if (source !== 'agents' && source !== 'store') throw new RequestError('source is agents or store');
    const ttl = this.options.listTtlMs ?? 5000;
    const cached = this.usageCache.get(`${source}:${by}`);
    if (cached && Date.now() - cached.at < ttl) return cached.report;
    const budget = new Budget('usage', this.limits);
    const found = source === 'agents' ? await listSessions(this.registry, { defaultHomes: this.access.homes, details: false }, this.note, () => budget.check()) : [];
    const reader = new UsageReader();
    for (const ref of found) {
      try {
        this.confinement.sessionFile(ref.path);
        for await (const event of this.registry[ref.agent].capture(ref, { onDiagnostic: () => undefined })) reader.add(event);
      } catch (err) {
        // One unreadable session must not hide the others' usage.
        this.note(ref.agent, (err as Error).message);
      }
    }
    if (source === 'store') {
      await this.withStore(async (store) => {
        for await (const event of storeEvents(store)) reader.add(event);
      });
    }
    const report = this.redactor.redactValue(reportOf(reader, { by: by as GroupBy }) as unknown as Json);
    this.usageCache.set(`${source}:${by}`, { at: Date.now(), report });
    return report;
  }

  /** The list page: rows that pass the filters, the agents and projects to filter by, and store hits for the words. */
  async list(filters: ListFilters): Promise<Json> {
    const all = await this.allRows();
    const words = (filters.q ?? '').trim().toLowerCase();
    const rows = all.filter((r) => {
      if (filters.agent && r.agent !== filters.agent) return false;
      if (filters.project && r.project !== filters.project) return false;
      if (filters.since !== undefined && (r.last_ts ?? 0) < filters.since) return false;
      if (filters.until !== undefined && (r.first_ts ?? r.last_ts ?? 0) > filters.until) return false;
      if (words) {
        const hay = [r.title, r.first_prompt, r.project, r.id, r.cwd].filter(Boolean).join('\n').toLowerCase();
        if (!words.split(/\s+/).every((w) => hay.includes(w))) return false;
      }
      return true;
    });
    let hits: unknown[] = [];
    if (words) {
      hits = ((await this.withStore((store) => store.search(filters.q!.trim(), { limit: 50 }))) ?? []) as unknown[];
      hits = this.redactor.redactValue(hits);
    }
    return {
      total: all.length,
      sessions: rows,
      agents: [...new Set(all.map((r) => r.agent))].sort(),
      projects: [...new Set(all.map((r) => r.project).filter((p): p is string => typeof p === 'string'))].sort(),
      hits,
      writable: this.writable,
    };
  }

  /** The agent session a key names, looked up in the confined homes; its file must resolve under a read root. */
  private async agentSession(key: { agent: string; id: string }): Promise<{ adapter: Adapter; ref: SessionRef }> {
    if (!Object.prototype.hasOwnProperty.call(this.registry, key.agent)) throw new RequestError(`unknown agent "${key.agent}"`, 404);
    let found;
    try {
      // An id in a URL names a session, never a file: a path is confined before it is opened.
      const checkPath = (path: string) => {
        this.confinement.sessionFile(path, true);
        return path;
      };
      found = await resolveSession(key.id, { registry: this.registry, agent: key.agent, defaultHomes: this.access.homes, checkPath });
    } catch (err) {
      if (err instanceof OpsError) throw new RequestError(err.where && err.kind === 'unreadable' ? `${err.where}: ${err.message}` : err.message, OPS_STATUS[err.kind]);
      throw err;
    }
    this.confinement.sessionFile(found.ref.path, true);
    return found;
  }

  /** The events of a session, as captured (or stored), not redacted yet; with where they came from. */
  private async rawEvents(key: SessionKey): Promise<{ events: SpEvent[]; ref?: SessionRef; adapter?: Adapter; stored?: Json }> {
    const budget = new Budget('session', this.limits);
    if ('stored' in key) {
      const result = await this.withStore(async (store) => {
        if (!store.session(key.stored)) return undefined;
        const events: SpEvent[] = [];
        for await (const event of store.events(key.stored)) {
          budget.event();
          events.push(event);
        }
        return { events, stored: { dir: store.dir, summary: store.session(key.stored), manifest: store.manifest(key.stored) } };
      });
      if (!result) throw new RequestError(`no session "${key.stored}" in the store`, 404);
      return result;
    }
    const { adapter, ref } = await this.agentSession(key);
    const events = await captureEvents(adapter, ref, this.note, () => budget.event());
    return { events, ref, adapter };
  }

  /** The session page: events (redacted), chain status, branches, and for a stored session its signature and receipts. */
  async session(key: SessionKey): Promise<Json> {
    const { events, ref, stored } = await this.rawEvents(key);
    const view = await sessionView(events, this.redactor, { key, ref, storedAgent: (stored?.summary as Json | undefined)?.agent as string | undefined }, this.note);
    return {
      ...view,
      store: stored ? await this.storeChecks(key as { stored: string }, stored) : undefined,
      writable: this.writable,
      targets: this.targets(),
    };
  }

  /** The events of a session named by a key, as sp export html takes them (with the ref it was found by). */
  async eventsOf(key: SessionKey): Promise<{ events: SpEvent[]; ref?: SessionRef; stored?: Json }> {
    return this.rawEvents(key);
  }

  /** A stored session's signature and receipts, for the export of a stored session. */
  async storeChecksOf(key: { stored: string }, stored: Json): Promise<Json> {
    return this.storeChecks(key, stored);
  }

  /** A stored session's signature (sp-verify's check of its folder) and its handoff receipts. */
  private async storeChecks(key: { stored: string }, stored: Json): Promise<Json> {
    const { verifySessionDir, trustedKeys, verifyReceipt } = await import('../store/index.js');
    const dir = String(stored.dir);
    const trusted = trustedKeys();
    const report = await verifySessionDir(join(dir, 'sessions', key.stored), trusted);
    const manifest = (stored.manifest ?? {}) as Json;
    const ids = new Set<string>();
    const owner = manifest.current_owner as Json | undefined;
    if (typeof owner?.receipt === 'string') ids.add(owner.receipt);
    for (const h of Array.isArray(manifest.owner_history) ? (manifest.owner_history as Json[]) : []) if (typeof h?.receipt === 'string') ids.add(h.receipt);
    const receipts: Json[] = [];
    for (const id of ids) {
      if (!RECEIPT_PATTERN.test(id)) continue;
      const path = join(dir, 'receipts', `${id}.json`);
      try {
        const st = lstatSync(path);
        if (!st.isFile() || st.size > 1 << 20) continue;
        const receipt = JSON.parse(readFileSync(path, 'utf8')) as Json;
        const check = await verifyReceipt(receipt, trusted, dir);
        receipts.push({ id, from: receipt.from_agent, to: receipt.to_agent, seq: receipt.event_seq, issued_at: receipt.issued_at, ok: check.ok, signature: check.signature, problems: check.problems });
      } catch (err) {
        receipts.push({ id, ok: false, problems: [(err as NodeJS.ErrnoException).code ?? (err as Error).message] });
      }
    }
    return this.redactor.redactValue({
      ok: report.ok,
      signature: report.signature,
      problems: report.problems,
      notes: report.notes,
      origins: report.origins,
      owner: owner?.agent,
      redaction: manifest.redaction,
      receipts,
    });
  }

  /** An image the store keeps as an artifact: its bytes, when the ref is `sha256:<64 hex>` and the blob matches. */
  async artifact(ref: string): Promise<Buffer> {
    const m = ARTIFACT_PATTERN.exec(ref);
    if (!m) throw new RequestError('not an artifact reference (sha256:<64 hex>)');
    const { readArtifactForWriter } = await import('../core/artifacts.js');
    const read = readArtifactForWriter(join(this.confinement.store, 'artifacts'), ref);
    if (!read.ok) throw new RequestError(`artifact ${ref}: ${read.reason}`, 404);
    return read.bytes;
  }

  /** Redacted events for a relay or a compile: the same input sp-materialize and sp-compile take. */
  private async redactedEvents(key: SessionKey): Promise<{ events: SpEvent[]; ref?: SessionRef }> {
    const { events, ref } = await this.rawEvents(key);
    const { redactEvents } = await import('../mcp/pipeline.js');
    return { events: await redactEvents(events), ref };
  }

  /** The compile page: sp-compile --render's handoff, whose [seq] marks link back to the events. */
  async compile(key: SessionKey, target: string, budget?: number): Promise<Json> {
    const { events } = await this.redactedEvents(key);
    let compiled;
    try {
      compiled = await compileHandoff(events, { target, budget });
    } catch (err) {
      if (err instanceof ToolInputError) throw new RequestError(err.message);
      throw err;
    }
    return this.redactor.redactValue({ target, session: events[0]?.session, text: compiled.text, tokens: compiled.tokens, budget: compiled.budget, dropped: compiled.dropped });
  }

  /**
   * The relay page: sp-materialize's relay as a dry run (the writer's lines and the ledger row of
   * every source event), or, with `write` and --allow-write, the new session written.
   */
  async relay(key: SessionKey, args: { target: string; cwd?: string; mkcwd?: boolean; mode?: string; write?: boolean }): Promise<Json> {
    let target: Adapter;
    try {
      target = adapterOf(this.registry, args.target);
    } catch (err) {
      throw new RequestError((err as Error).message);
    }
    if (!target.materialize) throw new RequestError(`${target.displayName} sessions cannot be written`);
    if (target.capabilities.experimental) throw new RequestError(`writing ${target.displayName} sessions is experimental (${target.capabilities.experimental}): use sp-materialize --experimental`);
    if (args.mode !== undefined && args.mode !== 'history' && args.mode !== 'context') throw new RequestError('"mode" is history or context');
    const write = args.write === true;
    const c = this.confinement;
    const place = (path: string, what: string) => (write ? c.writable(path, what) : c.readable(path, what));
    const home = write ? place(homeOf(target, { defaultHomes: this.access.homes }), 'the target home') : homeOf(target, { defaultHomes: this.access.homes });
    const { events, ref } = await this.redactedEvents(key);
    let cwd: string;
    if (args.cwd !== undefined && args.cwd !== '') {
      cwd = place(args.cwd, 'cwd');
      if (!existsSync(cwd) && !args.mkcwd) throw new RequestError(`the project folder ${args.cwd} does not exist (tick "create it")`);
    } else {
      const start = events.find((e) => e.type === 'session.start')?.payload as Json | undefined;
      const recorded = typeof start?.cwd === 'string' && start.cwd !== '' ? start.cwd : typeof ref?.cwd === 'string' ? ref.cwd : process.cwd();
      cwd = write ? place(recorded, "cwd (the session's own folder)") : resolve(recorded);
    }
    const input = args.mode === 'context' ? [...events, await compiledEvent(events, { target: target.id })] : events;
    const lines: string[] = [];
    let lineBytes = 0;
    const options = { home, cwd, mkcwd: args.mkcwd, backup: true };
    const run = async (dryRun: boolean) => {
      try {
        return await relayEvents(target, input, {
          ...options,
          dryRun,
          onLine: (line: string) => {
            // The preview keeps the first 2 MB of native lines: enough to read, bounded for a browser.
            if (lineBytes < 2 << 20) lines.push(line);
            lineBytes += line.length;
          },
        });
      } catch (err) {
        if (err instanceof ToolInputError || err instanceof UserError) throw new RequestError(err.message);
        throw err;
      }
    };
    if (write) {
      // As sp-mcp: the writer's own paths, from a dry run, must resolve under an --allow-write folder too.
      const planned = await run(true);
      planned.ledger.remove();
      for (const { path } of planned.results) c.writableSessionFile(path);
      lines.length = 0;
      lineBytes = 0;
    }
    const outcome = await run(!write);
    try {
      return this.redactor.redactValue({
        written: write,
        mode: outcome.mode,
        results: outcome.results,
        totals: outcome.ledger.totals(),
        rows: [...outcome.ledger.rows()],
        session_changes: outcome.ledger.unattached,
        lines,
        lines_truncated: lineBytes > 2 << 20,
        source: { agent: ref?.agent ?? events[0]?.agent, session: events[0]?.session, events: events.length },
      });
    } finally {
      outcome.ledger.remove();
    }
  }
}

/** A new model over the registry with sp-mcp's confinement. */
export async function createModel(registry: Registry, access: AccessOptions, options: { redactor: Redactor; onDiagnostic?: ModelOptions['onDiagnostic']; listTtlMs?: number }): Promise<SessionModel> {
  const { confinementFor } = await import('../mcp/server.js');
  const confinement = await confinementFor(registry, access);
  return new SessionModel({ registry, access, confinement, redactor: options.redactor, limits: confinement.limits, onDiagnostic: options.onDiagnostic, listTtlMs: options.listTtlMs });
}

/**
 * What the session page shows of a list of events: the events (without native lines, redacted),
 * the chain as sp-verify checks it (on the events as they are: redaction changes their bytes, not
 * their history), the branch tree and what the session is.
 */
export async function sessionView(
  events: SpEvent[],
  redactor: Redactor,
  context: { key?: SessionKey; ref?: SessionRef; storedAgent?: string },
  note: (where: string, what: string) => void = () => {},
): Promise<Json> {
  const { Verifier } = await import('../core/verify.js');
  const verifier = new Verifier();
  events.forEach((event, i) => verifier.push('session', lineOf(i + 1, event), event as never));
  const report = verifier.finish();
  const { splitBranches } = await import('../write/branches.js');
  let branches: Json | undefined;
  try {
    const split = splitBranches(events);
    branches = {
      active: { leaf_seq: split.active.leafSeq, events: split.active.events.length },
      others: split.others.map((b) => ({ leaf_seq: b.leafSeq, fork_seq: b.forkSeq, own: [...b.own].sort((x, y) => x - y) })),
    };
  } catch (err) {
    note('branches', (err as Error).message);
  }
  const { ref, key } = context;
  const start = events.find((e) => e.type === 'session.start');
  const startPayload = (start?.payload ?? {}) as Json;
  const agent = String(ref?.agent ?? context.storedAgent ?? events[0]?.agent ?? '');
  const meta = redactor.redactValue({
    key,
    source: key === undefined ? 'file' : 'stored' in key ? 'store' : 'agent',
    agent,
    agent_label: agentLabel(agent),
    native_id: ref?.native_id ?? startPayload.native_id,
    session: events[0]?.session,
    title: ref?.title ?? startPayload.title,
    cwd: ref?.cwd ?? startPayload.cwd,
    model: startPayload.model,
    path: ref?.path,
  });
  return {
    meta,
    events: events.map((e) => shown(redactor, e)),
    chain: { ok: report.ok, sessions: report.sessions, stream_damage: report.stream_damage },
    branches,
  };
}
