// `sp-materialize atif`: canonical events → a NEW ATIF trajectory `<home>/<session_id>.json`, in the
// latest version (v1.7) or the one `--atif-version` names. One agent step per API message (its
// text, reasoning, calls, the results of those calls, token metrics); user messages are user steps.
// What ATIF cannot hold goes to the loss ledger: other branches (the relay writes each as its own
// trajectory with --branches all), thinking signatures and encrypted reasoning, images, derived and
// agent-specific events, and every field the chosen version does not define yet (written down from
// the latest version, then fitted). Every file is validated against the schema of its version
// before it is written; a trajectory sp cannot make valid is not written at all.
import { mkdirSync, rmdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { createFileAtomic } from '../../lib/fs/atomic.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { toIso, type SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { expandTilde } from '../../lib/fs/paths.js';
import { LossLedger, isDerived, payloadOf, shellQuote, type WriterResult } from '../../lib/write/writer.js';
import { activeBranchView } from '../../lib/write/branches.js';
import { CallPairing, ToolIds, reportOrphan, reportStub, type Pairing, type PlanReport, type ToolIdSpelling } from '../../lib/write/plan.js';
import { SpooledSession } from '../../lib/write/spool.js';
import { boundHeapGrowth } from '../../lib/write/heap-growth.js';
import { AGENT, defaultHome, safeFileStem } from './paths.js';
import { ATIF_VERSIONS, LATEST_ATIF_VERSION, atLeast, type AtifVersion } from './schemas.js';
import { trajectoryChecker, type AtifIssue } from './validate.js';

/** The ATIF version a `--atif-version` value names (`1.4`, `v1.4`, `ATIF-v1.4`). */
export function parseAtifVersion(value: string | undefined): AtifVersion {
  if (value === undefined) return LATEST_ATIF_VERSION;
  const v = value.replace(/^ATIF-/i, '').replace(/^v/i, '');
  if (!(ATIF_VERSIONS as readonly string[]).includes(v)) throw new UserError(`unknown ATIF version "${value}"; known: ${ATIF_VERSIONS.join(', ')}`, '--atif-version');
  return v as AtifVersion;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string').map((b) => (b as { text: string }).text).join('\n');
}

function imagesIn(content: unknown): number {
  return Array.isArray(content) ? content.filter((b) => isObject(b) && b.type === 'image').length : 0;
}

/** ATIF metrics from canonical usage (Claude, Codex, Gemini … shapes). */
function metricsOf(usage: unknown): Json | undefined {
  if (!isObject(usage)) return undefined;
  const n = (k: string): number | undefined => (typeof usage[k] === 'number' && Number.isInteger(usage[k]) && (usage[k] as number) >= 0 ? (usage[k] as number) : undefined);
  const input = n('input_tokens') ?? n('prompt_tokens');
  const cacheRead = n('cache_read_input_tokens') ?? n('cached_input_tokens') ?? n('cached_tokens');
  const cacheWrite = n('cache_creation_input_tokens');
  const output = n('output_tokens') ?? n('completion_tokens');
  const out: Json = {};
  // Anthropic counts input without the cache; ATIF's prompt_tokens counts all input (RFC §II MetricsSchema).
  if (input !== undefined) out.prompt_tokens = input + (usage.cache_read_input_tokens !== undefined ? (cacheRead ?? 0) + (cacheWrite ?? 0) : 0);
  if (cacheRead !== undefined) out.cached_tokens = cacheRead;
  if (output !== undefined) out.completion_tokens = output;
  if (typeof usage.cost_usd === 'number') out.cost_usd = usage.cost_usd;
  const extra: Json = {};
  if (cacheWrite !== undefined) extra.cache_creation_input_tokens = cacheWrite;
  const reasoning = n('reasoning_output_tokens') ?? n('reasoning_tokens');
  if (reasoning !== undefined) extra.reasoning_tokens = reasoning;
  if (Object.keys(extra).length > 0) out.extra = extra;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** What a stub result says: the call was made, its result never recorded. */
export const STUB_RESULT = 'interrupted: no result was recorded';

/** ATIF's call ids: any non-empty string (§II ToolCallSchema), unique in the trajectory; a new one is `call_<n>`. */
function atifToolIds(): ToolIdSpelling {
  let minted = 0;
  return { valid: /^[^]+$/, mint: () => `call_${++minted}`, accepts: 'only non-empty ids, unique in the trajectory' };
}

interface Step extends Json {
  step_id: number;
  source: 'system' | 'user' | 'agent';
  message: string;
}

interface OpenStep {
  step: Step;
  messageId?: string;
  hasText: boolean;
}

/** A field dropped or rewritten to fit the chosen version, reported once the trajectory is written. */
type FitReport = (action: 'dropped' | 'transformed', reason: string) => void;

/** Deletes what `version` does not define from `holder` (written as the latest version), reporting it. */
function dropper(version: AtifVersion, report: FitReport) {
  return (holder: Json, key: string, where: string, since: AtifVersion): void => {
    if (holder[key] === undefined || atLeast(version, since)) return;
    delete holder[key];
    report('dropped', `${where}/${key}: ATIF v${version} has no such field (added in v${since})`);
  };
}

/** The root's fields `version` does not define, deleted (steps: fitStep). */
function fitRoot(doc: Json, version: AtifVersion, report: FitReport): void {
  const drop = dropper(version, report);
  drop(doc, 'extra', '', '1.1');
  drop(doc, 'continued_trajectory_ref', '', '1.5');
  drop(doc, 'trajectory_id', '', '1.7');
  drop(doc, 'subagent_trajectories', '', '1.7');
  if (isObject(doc.agent)) drop(doc.agent, 'tool_definitions', '/agent', '1.5');
}

/** The fields of step `i` that `version` does not define, deleted; content parts before v1.6 as text. */
function fitStep(step: Json, i: number, version: AtifVersion, report: FitReport): void {
  const drop = dropper(version, report);
  const at = `/steps/${i}`;
  drop(step, 'is_copied_context', at, '1.5');
  drop(step, 'llm_call_count', at, '1.7');
  if (step.source === 'system') drop(step, 'observation', at, '1.2');
  if (isObject(step.metrics)) {
    drop(step.metrics, 'completion_token_ids', `${at}/metrics`, '1.3');
    drop(step.metrics, 'prompt_token_ids', `${at}/metrics`, '1.4');
  }
  if (Array.isArray(step.tool_calls)) step.tool_calls.forEach((c, j) => isObject(c) && drop(c, 'extra', `${at}/tool_calls/${j}`, '1.7'));
  const results = isObject(step.observation) && Array.isArray(step.observation.results) ? step.observation.results : [];
  results.forEach((r, j) => {
    if (!isObject(r)) return;
    drop(r, 'extra', `${at}/observation/results/${j}`, '1.7');
    if (Array.isArray(r.subagent_trajectory_ref)) for (const ref of r.subagent_trajectory_ref) if (isObject(ref)) drop(ref, 'trajectory_id', `${at}/observation/results/${j}/subagent_trajectory_ref`, '1.7');
    if (!atLeast(version, '1.6') && Array.isArray(r.content)) r.content = textOf(r.content);
  });
  if (!atLeast(version, '1.6') && Array.isArray(step.message)) {
    step.message = textOf(step.message);
    report('transformed', `${at}/message: content parts written as text (ATIF v${version} has no content parts; added in v1.6)`);
  }
}

/** ATIF's fields in the RFC's order; other keys (inside extra, arguments …) sorted after them. */
const FIELD_ORDER = [
  'schema_version', 'session_id', 'trajectory_id', 'agent', 'name', 'version', 'model_name', 'notes', 'step_id', 'timestamp', 'source',
  'reasoning_effort', 'message', 'reasoning_content', 'tool_calls', 'tool_call_id', 'function_name', 'arguments', 'observation', 'results',
  'source_call_id', 'content', 'subagent_trajectory_ref', 'metrics', 'is_copied_context', 'llm_call_count', 'steps', 'final_metrics',
  'continued_trajectory_ref', 'subagent_trajectories', 'extra',
];

/**
 * The document with its keys in one fixed order, whatever order they arrived in (a canonical
 * stream sorts keys): the same trajectory is then the same bytes.
 */
function ordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ordered);
  if (!isObject(value)) return value;
  const rank = (k: string): number => {
    const i = FIELD_ORDER.indexOf(k);
    return i === -1 ? FIELD_ORDER.length : i;
  };
  const keys = Object.keys(value).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((k) => [k, ordered(value[k])]));
}


/** A call written into a step not yet given: its id, and whether its result came. */
interface WrittenCall {
  step: Step;
  id: string;
  event: SpEvent;
  answered: boolean;
}

/** What the steps are built from: the session chosen (read by position) and its call pairing. */
interface BuildContext {
  events: readonly SpEvent[];
  ledger: LossLedger;
  report: PlanReport;
  safety: boolean;
  fromAtif: boolean;
  agentModel: string | undefined;
  ids: ToolIds;
  pairing: Pairing;
  /** Positions, ascending, of events that go to the last agent step (orphan results, kept observations). */
  toLastAgent: number[];
}

/** A tool result as ATIF writes it (`id`: the call it answers, none for an orphan). */
function resultEntry(p: Json, id: string | undefined): Json {
  const result: Json = {};
  if (id !== undefined) result.source_call_id = id;
  const atif = isObject(p.atif) ? p.atif : {};
  if (atif.content_absent !== true) result.content = textOf(p.content);
  if (isObject(atif.extra)) result.extra = atif.extra;
  else if (p.is_error === true) result.extra = { is_error: true };
  if (Array.isArray(atif.subagent_trajectory_ref)) result.subagent_trajectory_ref = atif.subagent_trajectory_ref;
  return result;
}

function observationOf(step: Step): { results: Json[] } {
  return (isObject(step.observation) ? step.observation : (step.observation = { results: [] })) as { results: Json[] };
}

/**
 * The steps of a trajectory, built event by event and given in order as soon as no later event can
 * change them: a step is held while it is open (its API message may go on), and the last agent step
 * while an orphan result or a kept observation is still to come (those join it). Results of a given
 * step's calls that come later are read ahead by position; its unanswered calls get their stub then
 * (reported at the end, in call order, as when the trajectory was built whole).
 */
class StepBuilder {
  private readonly pending: Step[] = [];
  private created = 0;
  private open: OpenStep | undefined;
  private lastAgent: Step | undefined;
  private readonly written = new Map<number, WrittenCall>();
  private nextToLastAgent = 0;
  /** Calls that no result answers, with the id written (rare): their stubs are reported last. */
  readonly unanswered: Array<{ at: number; id: string }> = [];

  constructor(private readonly cx: BuildContext) {}

  /** The steps final once the event at `index` is taken in (all of them when `index` is undefined: the end). */
  *ready(index?: number): Generator<Step> {
    if (index === undefined) this.open = undefined;
    else while (this.nextToLastAgent < this.cx.toLastAgent.length && this.cx.toLastAgent[this.nextToLastAgent] <= index) this.nextToLastAgent += 1;
    const moreForLastAgent = index !== undefined && this.nextToLastAgent < this.cx.toLastAgent.length;
    while (this.pending.length > 0) {
      const step = this.pending[0];
      if (step === this.open?.step || (step === this.lastAgent && moreForLastAgent)) return;
      this.pending.shift();
      yield this.finish(step);
    }
  }

  /** `step` with the results of its calls that come later (read ahead) and its stubs. */
  private finish(step: Step): Step {
    const { events, pairing, safety } = this.cx;
    const later: Array<{ call: WrittenCall; at: number }> = [];
    const stubs: WrittenCall[] = [];
    for (const [at, call] of this.written) {
      if (call.step !== step) continue;
      this.written.delete(at);
      if (call.answered) continue;
      const r = pairing.resultOf.get(at);
      if (r !== undefined) later.push({ call, at: r });
      else if (safety) {
        stubs.push(call);
        this.unanswered.push({ at, id: call.id });
      }
    }
    // In the order the results come, as they would have joined the step.
    later.sort((a, b) => a.at - b.at);
    for (const { call, at } of later) observationOf(step).results.push(resultEntry(payloadOf(events[at]), call.id));
    for (const call of stubs) observationOf(step).results.push({ source_call_id: call.id, content: STUB_RESULT, extra: { is_error: true } });
    return step;
  }

  private newStep(source: Step['source'], event: SpEvent, messageId?: string): OpenStep {
    const step: Step = { step_id: (this.created += 1), source, message: '' };
    if (typeof event.ts === 'number' && Number.isFinite(event.ts) && event.ts > 0) step.timestamp = toIso(event.ts);
    this.pending.push(step);
    if (source === 'agent') this.lastAgent = step;
    this.open = { step, messageId, hasText: false };
    return this.open;
  }

  /** The agent step an assistant-side event belongs to: the open one for the same API message, else a new one. */
  private agentStep(event: SpEvent, messageId: string | undefined, forText: boolean): OpenStep {
    const open = this.open;
    if (open && open.step.source === 'agent' && (messageId === undefined ? !forText || !open.hasText : open.messageId === messageId || (open.messageId === undefined && !open.hasText && !open.step.tool_calls))) {
      open.messageId ??= messageId;
      return open;
    }
    return this.newStep('agent', event, messageId);
  }

  /** A step read from ATIF keeps its own timestamp, or none when it had none. */
  private keepTimestamp(step: Step, atif: Json): void {
    if (typeof atif.timestamp === 'string') step.timestamp = atif.timestamp;
    else if (this.cx.fromAtif) delete step.timestamp;
  }

  private lastAgentStep(event: SpEvent): Step {
    return this.lastAgent ?? this.newStep('agent', event).step;
  }

  /** Takes in the event at `index` of the session. */
  add(event: SpEvent, index: number): void {
    const p = payloadOf(event);
    if (isDerived(event)) return; // its tool.call carries it
    switch (event.type) {
      case 'session.start':
        return;
      case 'message.user':
        return this.user(event, p);
      case 'message.thinking': {
        const text = str(p.text) ?? '';
        if (p.signature !== undefined || p.opaque !== undefined) this.cx.ledger.report('dropped', 'thinking-signature', 'the thinking signature / encrypted reasoning: ATIF keeps reasoning as text only', event);
        if (text === '') return;
        const { step } = this.agentStep(event, str(p.message_id), false);
        step.reasoning_content = typeof step.reasoning_content === 'string' ? `${step.reasoning_content}\n\n${text}` : text;
        return;
      }
      case 'message.assistant':
        return this.assistant(event, p);
      case 'tool.call':
        return this.call(event, p, index);
      case 'tool.result':
        return this.result(event, p, index);
      case 'meta':
        return this.meta(event, p);
      default:
        this.cx.ledger.report('dropped', 'event-type', `${event.type}: ATIF has no place for it`, event);
    }
  }

  private user(event: SpEvent, p: Json): void {
    const text = textOf(p.content);
    const images = imagesIn(p.content);
    if (images > 0) this.cx.ledger.report('dropped', 'image', `${images} image(s) not written: ATIF image parts name files, and sp writes none beside the trajectory`, event);
    if (text === '' && images === 0) return; // a carrier of tool results only: those are written with their calls
    const { step } = this.newStep('user', event);
    step.message = text;
    const atif = isObject(p.atif) ? p.atif : {};
    this.keepTimestamp(step, atif);
    if (isObject(atif.extra)) step.extra = atif.extra;
    if (typeof atif.is_copied_context === 'boolean') step.is_copied_context = atif.is_copied_context;
    this.open = undefined;
  }

  private assistant(event: SpEvent, p: Json): void {
    const text = textOf(p.content);
    const images = imagesIn(p.content);
    if (images > 0) this.cx.ledger.report('dropped', 'image', `${images} image(s) in an assistant message not written`, event);
    const o = this.agentStep(event, str(p.message_id), text !== '');
    const { step } = o;
    if (text !== '') {
      step.message = o.hasText ? `${step.message}\n\n${text}` : text;
      o.hasText = true;
    }
    const atif = isObject(p.atif) ? p.atif : undefined;
    this.keepTimestamp(step, atif ?? {});
    if (this.cx.fromAtif) {
      for (const key of ['model_name', 'reasoning_effort', 'metrics', 'extra', 'is_copied_context', 'llm_call_count']) if (atif?.[key] !== undefined) step[key] = atif[key];
    } else {
      const model = str(p.model);
      if (model !== undefined && model !== this.cx.agentModel) step.model_name = model;
      // One API message may come as several events with the same usage: the last one counts once.
      const metrics = metricsOf(p.usage);
      if (metrics) step.metrics = metrics;
    }
  }

  private call(event: SpEvent, p: Json, index: number): void {
    const { step } = this.agentStep(event, str(p.message_id), false);
    const callId = this.cx.ids.id(str(p.call_id) ?? '', event);
    let args: unknown = p.input;
    if (!isObject(args)) {
      args = args === undefined ? {} : { input: args };
      this.cx.ledger.report('transformed', 'tool-input', 'tool input is not a JSON object: written as {"input": …} (ATIF arguments are an object)', event);
    }
    const call: Json = { tool_call_id: callId, function_name: str(p.name) ?? 'unknown', arguments: args };
    if (isObject(p.atif) && isObject(p.atif.extra)) call.extra = p.atif.extra;
    ((step.tool_calls as Json[] | undefined) ?? (step.tool_calls = [])).push(call);
    this.written.set(index, { step, id: callId, event, answered: false });
  }

  private result(event: SpEvent, p: Json, index: number): void {
    const at = this.cx.pairing.callOf.get(index);
    const { ledger, report } = this.cx;
    if (at === undefined) {
      const step = this.lastAgentStep(event);
      reportOrphan((_action, code, reason, e) => report('transformed', code, reason, e), event, this.cx.pairing.skipped.get(index) ?? 'orphan', 'written without source_call_id');
      observationOf(step).results.push(resultEntry(p, undefined));
    } else {
      // A call of a step given already: its result was read ahead.
      const call = this.written.get(at);
      if (call) {
        call.answered = true;
        observationOf(call.step).results.push(resultEntry(p, call.id));
      }
    }
    if (imagesIn(p.content) > 0) ledger.report('dropped', 'image', 'image(s) in a tool result not written', event);
    if (p.structured !== undefined) ledger.report('dropped', 'structured-result', "the agent's structured result (UI data): ATIF keeps the result text", event);
  }

  private meta(event: SpEvent, p: Json): void {
    const key = str(p.key);
    if (key === 'atif.step' && isObject(p.raw)) {
      const raw = { ...p.raw, step_id: (this.created += 1) } as Step;
      this.pending.push(raw);
      if (raw.source === 'agent') this.lastAgent = raw;
      this.open = undefined;
    } else if (key === 'atif.observation' && isObject(p.raw)) {
      observationOf(this.lastAgentStep(event)).results.push(p.raw);
    } else {
      this.cx.ledger.report('dropped', 'meta', `meta ${key ?? '(no key)'}: ATIF has no place for it`, event);
    }
  }
}

/** Removes an empty folder; one that is not empty (or gone) stays as it is. */
function rmdirQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or gone: left alone
  }
}

/** Lines of a text given in pieces, each to `onLine` once whole (the dry run's preview). */
function lineSplitter(onLine: ((line: string) => void) | undefined): (piece: string) => void {
  let partial = '';
  return (piece) => {
    if (!onLine) return;
    const lines = (partial + piece).split('\n');
    partial = lines.pop()!;
    for (const line of lines) onLine(line);
  };
}

export async function materializeAtif(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<WriterResult> {
  boundHeapGrowth();
  const version = parseAtifVersion(options.formatVersion);
  const ledger = new LossLedger(options.onLoss);
  // The session is held on disk and read by position: the writer keeps the steps not given yet.
  const selected = await SpooledSession.create(events, options.session);
  try {
    return await writeAtif(selected, version, ledger, options);
  } finally {
    selected.remove();
  }
}

/** The new session id: the native one under --same-id (when it can name a file), else a new UUID. */
function atifSessionId(nativeId: string | undefined, sameId: boolean | undefined): string {
  if (!sameId) return randomUUID();
  if (!nativeId) throw new UserError('--same-id: the session names no native id');
  const stem = safeFileStem(nativeId);
  if (!stem) throw new UserError(`--same-id: the native id ${JSON.stringify(nativeId.slice(0, 80))} cannot name a file (letters, digits, . _ - only; no "..")`);
  return stem;
}

/** The trajectory's root, all but its steps and final metrics, in the latest version. */
function trajectoryRoot(selected: SpooledSession, sessionId: string, agent: Json, fromAtif: boolean): Json {
  const sp = selected.start ? payloadOf(selected.start) : {};
  const kept = isObject(sp.atif) ? sp.atif : {};
  const doc: Json = { schema_version: `ATIF-v${LATEST_ATIF_VERSION}`, session_id: sessionId, agent };
  if (typeof kept.notes === 'string' && fromAtif) doc.notes = kept.notes;
  if (fromAtif) {
    for (const key of ['extra', 'final_metrics', 'trajectory_id', 'continued_trajectory_ref']) if (kept[key] !== undefined) doc[key] = kept[key];
  } else {
    const origin: Json = { source_agent: selected.start?.agent ?? 'unknown', source_session: selected.session };
    const nativeId = str(sp.native_id);
    if (nativeId) origin.source_native_id = nativeId;
    for (const key of ['cwd', 'git_branch', 'title']) if (typeof sp[key] === 'string') origin[key] = sp[key];
    doc.extra = { sp: origin };
  }
  return doc;
}

/** The `agent` object: kept from an ATIF source, else named after the source agent. */
function trajectoryAgent(sp: Json, fromAtif: boolean, agentName: string | undefined, model: string | undefined): { agent: Json; agentModel: string | undefined } {
  const kept = isObject(sp.atif) ? sp.atif : {};
  const keptAgent = fromAtif && isObject(kept.agent) ? kept.agent : {};
  const agentModel = model ?? str(keptAgent.model_name) ?? (fromAtif ? undefined : str(sp.model));
  const agent: Json = {
    name: str(keptAgent.name) ?? agentName ?? 'unknown',
    version: str(keptAgent.version) ?? str(sp.version) ?? 'unknown',
  };
  if (agentModel !== undefined) agent.model_name = agentModel;
  if (isObject(keptAgent.extra)) agent.extra = keptAgent.extra;
  if (Array.isArray(keptAgent.tool_definitions)) agent.tool_definitions = keptAgent.tool_definitions;
  return { agent, agentModel };
}

async function writeAtif(selected: SpooledSession, version: AtifVersion, ledger: LossLedger, options: MaterializeOptions): Promise<WriterResult> {
  const start = selected.start;
  const sp = start ? payloadOf(start) : {};
  const fromAtif = start?.agent === AGENT;
  const sessionId = atifSessionId(str(sp.native_id), options.sameId);
  const { agent, agentModel } = trajectoryAgent(sp, fromAtif, start?.agent, options.model);

  const report: PlanReport = ledger.report.bind(ledger);
  const safety = options.safety !== false;
  const chosen = options.branch === 'active' ? activeBranchView(selected.events, report) : selected.events;
  // The writer core's pass (lib/write/plan.ts): results pair with the calls before them; ids are
  // made non-empty and unique; an unanswered call gets a stub result, an orphan keeps no call id.
  const pairingPass = new CallPairing('stream');
  const observations: number[] = [];
  for (let i = 0; i < chosen.length; i += 1) {
    const event = chosen[i];
    pairingPass.add(event);
    if (event.type === 'meta' && !isDerived(event) && isObject(event.payload) && event.payload.key === 'atif.observation' && isObject(event.payload.raw)) observations.push(i);
  }
  const pairing = pairingPass.done();
  const toLastAgent = [...pairing.skipped.keys(), ...observations].sort((a, b) => a - b);
  const builder = new StepBuilder({ events: chosen, ledger, report, safety, fromAtif, agentModel, ids: new ToolIds(atifToolIds(), report, safety), pairing, toLastAgent });

  const doc = trajectoryRoot(selected, sessionId, agent, fromAtif);
  // Fitting to an older version is reported after everything else, root first, as when the trajectory was whole.
  const fitted: Array<[action: 'dropped' | 'transformed', reason: string]> = [];
  const fit: FitReport = (action, reason) => fitted.push([action, reason]);
  fitRoot(doc, version, fit);
  doc.schema_version = `ATIF-v${version}`;
  const checker = await trajectoryChecker(version);
  const issues: AtifIssue[] = [];
  const totals = { steps: 0, prompt: 0, completion: 0, cached: 0, any: false };

  /** One step given: fitted, checked, and as JSON.stringify(…, null, 2) writes an element of the root's steps. */
  const stepText = (step: Step): string => {
    const i = totals.steps;
    totals.steps += 1;
    if (isObject(step.metrics)) {
      totals.any = true;
      totals.prompt += Number(step.metrics.prompt_tokens ?? 0);
      totals.completion += Number(step.metrics.completion_tokens ?? 0);
      totals.cached += Number(step.metrics.cached_tokens ?? 0);
    }
    fitStep(step, i, version, fit);
    issues.push(...checker.step(step, i));
    // A string holds no raw newline: every line break is the layout's, indented one level deeper.
    return `${i === 0 ? '[\n    ' : ',\n    '}${JSON.stringify(ordered(step), null, 2).replace(/\n/g, '\n    ')}`;
  };
  /** The document with its steps at `0`, as JSON.stringify writes it: the text before and after them. */
  const around = (): [string, string] => {
    const text = JSON.stringify(ordered({ ...doc, steps: 0 }), null, 2);
    const at = text.indexOf('\n  "steps": 0') + '\n  "steps": '.length;
    return [text.slice(0, at), text.slice(at + 1)];
  };
  const toLine = lineSplitter(options.onLine);
  function* pieces(): Generator<string> {
    yield around()[0];
    for (let index = 0; index < chosen.length; index += 1) {
      builder.add(chosen[index], index);
      for (const step of builder.ready(index)) yield stepText(step);
    }
    for (const step of builder.ready()) yield stepText(step);
    for (const { at, id } of builder.unanswered) reportStub(report, chosen[at], `a stub result "${STUB_RESULT}" is written in its step's observation`, { id });
    if (selected.others.size > 0) {
      for (const [id, other] of selected.others) ledger.report('dropped', 'other-session', `session ${other.nativeId ?? id} (${other.count} events, e.g. a subagent) is not part of this trajectory: write it on its own with --session`);
    }
    for (const [action, reason] of fitted) ledger.report(action, 'atif-version', reason);
    if (!fromAtif) doc.final_metrics = { total_steps: totals.steps, ...(totals.any ? { total_prompt_tokens: totals.prompt, total_completion_tokens: totals.completion, total_cached_tokens: totals.cached } : {}) };
    issues.unshift(...checker.root(doc));
    if (issues.length > 0) {
      const first = issues[0];
      throw new UserError(`the trajectory sp built is not valid ATIF v${version} (nothing was written): ${first.pointer || '/'}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`);
    }
    yield `${totals.steps === 0 ? '[]' : '\n  ]'}${around()[1]}\n`;
  }
  /** The pieces in ~64 KiB chunks, each previewed line by line. */
  function* chunks(): Generator<string> {
    let buffer = '';
    for (const piece of pieces()) {
      toLine(piece);
      buffer += piece;
      if (buffer.length >= 1 << 16) {
        yield buffer;
        buffer = '';
      }
    }
    if (buffer) yield buffer;
  }

  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const path = join(home, `${sessionId}.json`);
  if (options.dryRun) for (const _ of chunks());
  else {
    const made = mkdirSync(home, { recursive: true, mode: 0o700 });
    try {
      createFileAtomic(path, chunks(), 0o600);
    } catch (err) {
      // Nothing was written: a home made for it goes again (when still empty).
      if (made !== undefined) rmdirQuietly(home);
      throw err;
    }
  }
  const result: WriterResult = {
    agent: AGENT,
    session_id: sessionId,
    path,
    cwd: str(sp.cwd) ?? options.cwd ?? process.cwd(),
    resume: `sp-capture atif --path ${shellQuote(path)}`,
    records: totals.steps,
    atif_version: `ATIF-v${version}`,
    written_as: 'rebuilt',
    source_session: selected.session,
    changes: ledger.counts,
  };
  if (options.dryRun) result.dry_run = true;
  return result;
}
