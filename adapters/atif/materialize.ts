// `sp-materialize atif`: canonical events → a NEW ATIF trajectory `<home>/<session_id>.json`, in the
// latest version (v1.7) or the one `--atif-version` names. One agent step per API message (its
// text, reasoning, calls, the results of those calls, token metrics); user messages are user steps.
// What ATIF cannot hold goes to the loss ledger: other branches (the relay writes each as its own
// trajectory with --branches all), thinking signatures and encrypted reasoning, images, derived and
// agent-specific events, and every field the chosen version does not define yet (written down from
// the latest version, then fitted). Every file is validated against the schema of its version
// before it is written; a trajectory sp cannot make valid is not written at all.
import { mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { createFileAtomic } from '../../lib/fs/atomic.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { toIso, type SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { expandTilde } from '../../lib/fs/paths.js';
import { LossLedger, isDerived, payloadOf, selectSession, shellQuote, type WriterResult } from '../../lib/write/writer.js';
import { activeBranch } from '../../lib/write/branches.js';
import { ToolIds, pairCalls, reportOrphan, reportStub, type PlanReport, type ToolIdSpelling } from '../../lib/write/plan.js';
import { AGENT, defaultHome, safeFileStem } from './paths.js';
import { ATIF_VERSIONS, LATEST_ATIF_VERSION, atLeast, type AtifVersion } from './schemas.js';
import { checkTrajectory } from './validate.js';

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

/** Deletes what `version` does not define from a trajectory written as the latest version, reporting each field. */
function fitVersion(doc: Json, version: AtifVersion, ledger: LossLedger): void {
  const drop = (holder: Json, key: string, where: string, since: AtifVersion): void => {
    if (holder[key] === undefined || atLeast(version, since)) return;
    delete holder[key];
    ledger.report('dropped', 'atif-version', `${where}/${key}: ATIF v${version} has no such field (added in v${since})`);
  };
  drop(doc, 'extra', '', '1.1');
  drop(doc, 'continued_trajectory_ref', '', '1.5');
  drop(doc, 'trajectory_id', '', '1.7');
  drop(doc, 'subagent_trajectories', '', '1.7');
  if (isObject(doc.agent)) drop(doc.agent, 'tool_definitions', '/agent', '1.5');
  const steps = doc.steps as Json[];
  steps.forEach((step, i) => {
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
      ledger.report('transformed', 'atif-version', `${at}/message: content parts written as text (ATIF v${version} has no content parts; added in v1.6)`);
    }
  });
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

export async function materializeAtif(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<WriterResult> {
  const version = parseAtifVersion(options.formatVersion);
  const ledger = new LossLedger(options.onLoss);
  const selected = await selectSession(events, options.session);
  const start = selected.start;
  const sp = start ? payloadOf(start) : {};
  const fromAtif = start?.agent === AGENT;
  const kept = isObject(sp.atif) ? sp.atif : {};

  const nativeId = str(sp.native_id);
  let sessionId: string;
  if (options.sameId) {
    if (!nativeId) throw new UserError('--same-id: the session names no native id');
    const stem = safeFileStem(nativeId);
    if (!stem) throw new UserError(`--same-id: the native id ${JSON.stringify(nativeId.slice(0, 80))} cannot name a file (letters, digits, . _ - only; no "..")`);
    sessionId = stem;
  } else {
    sessionId = randomUUID();
  }

  const keptAgent = fromAtif && isObject(kept.agent) ? kept.agent : {};
  const agentModel = options.model ?? str(keptAgent.model_name) ?? (fromAtif ? undefined : str(sp.model));
  const agent: Json = {
    name: str(keptAgent.name) ?? start?.agent ?? 'unknown',
    version: str(keptAgent.version) ?? str(sp.version) ?? 'unknown',
  };
  if (agentModel !== undefined) agent.model_name = agentModel;
  if (isObject(keptAgent.extra)) agent.extra = keptAgent.extra;
  if (Array.isArray(keptAgent.tool_definitions)) agent.tool_definitions = keptAgent.tool_definitions;

  const report: PlanReport = ledger.report.bind(ledger);
  const safety = options.safety !== false;
  const chosen = options.branch === 'active' ? activeBranch(selected.events, report) : selected.events;
  // The writer core's pass (lib/write/plan.ts): results pair with the calls before them; ids are
  // made non-empty and unique; an unanswered call gets a stub result, an orphan keeps no call id.
  const { callOf, skipped: skippedResults } = pairCalls(chosen);
  const ids = new ToolIds(atifToolIds(), report, safety);
  const steps: Step[] = [];
  let open: OpenStep | undefined;
  /** Each written call by its position in `chosen`: its step and the id written. */
  const written = new Map<number, { step: Step; id: string; event: SpEvent; answered: boolean }>();
  const newStep = (source: Step['source'], event: SpEvent, messageId?: string): OpenStep => {
    const step: Step = { step_id: steps.length + 1, source, message: '' };
    if (typeof event.ts === 'number' && Number.isFinite(event.ts) && event.ts > 0) step.timestamp = toIso(event.ts);
    steps.push(step);
    open = { step, messageId, hasText: false };
    return open;
  };
  /** The agent step an assistant-side event belongs to: the open one for the same API message, else a new one. */
  const agentStep = (event: SpEvent, messageId: string | undefined, forText: boolean): OpenStep => {
    if (open && open.step.source === 'agent' && (messageId === undefined ? !forText || !open.hasText : open.messageId === messageId || (open.messageId === undefined && !open.hasText && !open.step.tool_calls))) {
      open.messageId ??= messageId;
      return open;
    }
    return newStep('agent', event, messageId);
  };
  /** A step read from ATIF keeps its own timestamp, or none when it had none. */
  const keepTimestamp = (step: Step, atif: Json): void => {
    if (typeof atif.timestamp === 'string') step.timestamp = atif.timestamp;
    else if (fromAtif) delete step.timestamp;
  };
  const lastAgentStep = (): Step | undefined => [...steps].reverse().find((s) => s.source === 'agent');

  for (const [index, event] of chosen.entries()) {
    const p = payloadOf(event);
    if (isDerived(event)) continue; // its tool.call carries it
    switch (event.type) {
      case 'session.start':
        break;
      case 'message.user': {
        const text = textOf(p.content);
        const images = imagesIn(p.content);
        if (images > 0) ledger.report('dropped', 'image', `${images} image(s) not written: ATIF image parts name files, and sp writes none beside the trajectory`, event);
        if (text === '' && images === 0) break; // a carrier of tool results only: those are written with their calls
        const { step } = newStep('user', event);
        step.message = text;
        const atif = isObject(p.atif) ? p.atif : {};
        keepTimestamp(step, atif);
        if (isObject(atif.extra)) step.extra = atif.extra;
        if (typeof atif.is_copied_context === 'boolean') step.is_copied_context = atif.is_copied_context;
        open = undefined;
        break;
      }
      case 'message.thinking': {
        const text = str(p.text) ?? '';
        if (p.signature !== undefined || p.opaque !== undefined) ledger.report('dropped', 'thinking-signature', 'the thinking signature / encrypted reasoning: ATIF keeps reasoning as text only', event);
        if (text === '') break;
        const { step } = agentStep(event, str(p.message_id), false);
        step.reasoning_content = typeof step.reasoning_content === 'string' ? `${step.reasoning_content}\n\n${text}` : text;
        break;
      }
      case 'message.assistant': {
        const text = textOf(p.content);
        const images = imagesIn(p.content);
        if (images > 0) ledger.report('dropped', 'image', `${images} image(s) in an assistant message not written`, event);
        const o = agentStep(event, str(p.message_id), text !== '');
        const { step } = o;
        if (text !== '') {
          step.message = o.hasText ? `${step.message}\n\n${text}` : text;
          o.hasText = true;
        }
        const atif = isObject(p.atif) ? p.atif : undefined;
        keepTimestamp(step, atif ?? {});
        if (fromAtif) {
          for (const key of ['model_name', 'reasoning_effort', 'metrics', 'extra', 'is_copied_context', 'llm_call_count']) if (atif?.[key] !== undefined) step[key] = atif[key];
        } else {
          const model = str(p.model);
          if (model !== undefined && model !== agentModel) step.model_name = model;
          // One API message may come as several events with the same usage: the last one counts once.
          const metrics = metricsOf(p.usage);
          if (metrics) step.metrics = metrics;
        }
        break;
      }
      case 'tool.call': {
        const { step } = agentStep(event, str(p.message_id), false);
        const callId = ids.id(str(p.call_id) ?? '', event);
        let args: unknown = p.input;
        if (!isObject(args)) {
          args = args === undefined ? {} : { input: args };
          ledger.report('transformed', 'tool-input', 'tool input is not a JSON object: written as {"input": …} (ATIF arguments are an object)', event);
        }
        const call: Json = { tool_call_id: callId, function_name: str(p.name) ?? 'unknown', arguments: args };
        if (isObject(p.atif) && isObject(p.atif.extra)) call.extra = p.atif.extra;
        ((step.tool_calls as Json[] | undefined) ?? (step.tool_calls = [])).push(call);
        written.set(index, { step, id: callId, event, answered: false });
        break;
      }
      case 'tool.result': {
        const at = callOf.get(index);
        const call = at === undefined ? undefined : written.get(at);
        let step: Step;
        const result: Json = {};
        if (call) {
          step = call.step;
          result.source_call_id = call.id;
          call.answered = true;
        } else {
          step = lastAgentStep() ?? newStep('agent', event).step;
          reportOrphan((_action, code, reason, e) => report('transformed', code, reason, e), event, skippedResults.get(index) ?? 'orphan', 'written without source_call_id');
        }
        const atif = isObject(p.atif) ? p.atif : {};
        if (atif.content_absent !== true) result.content = textOf(p.content);
        if (imagesIn(p.content) > 0) ledger.report('dropped', 'image', 'image(s) in a tool result not written', event);
        if (isObject(atif.extra)) result.extra = atif.extra;
        else if (p.is_error === true) result.extra = { is_error: true };
        if (Array.isArray(atif.subagent_trajectory_ref)) result.subagent_trajectory_ref = atif.subagent_trajectory_ref;
        if (p.structured !== undefined) ledger.report('dropped', 'structured-result', "the agent's structured result (UI data): ATIF keeps the result text", event);
        const observation = (isObject(step.observation) ? step.observation : (step.observation = { results: [] })) as { results: Json[] };
        observation.results.push(result);
        break;
      }
      case 'meta': {
        const key = str(p.key);
        if (key === 'atif.step' && isObject(p.raw)) {
          const raw = { ...p.raw, step_id: steps.length + 1 } as Step;
          steps.push(raw);
          open = undefined;
        } else if (key === 'atif.observation' && isObject(p.raw)) {
          const step = lastAgentStep() ?? newStep('agent', event).step;
          const observation = (isObject(step.observation) ? step.observation : (step.observation = { results: [] })) as { results: Json[] };
          observation.results.push(p.raw);
        } else {
          ledger.report('dropped', 'meta', `meta ${key ?? '(no key)'}: ATIF has no place for it`, event);
        }
        break;
      }
      default:
        ledger.report('dropped', 'event-type', `${event.type}: ATIF has no place for it`, event);
    }
  }
  if (safety) {
    for (const call of written.values()) {
      if (call.answered) continue;
      reportStub(report, call.event, `a stub result "${STUB_RESULT}" is written in its step's observation`, { id: call.id });
      const observation = (isObject(call.step.observation) ? call.step.observation : (call.step.observation = { results: [] })) as { results: Json[] };
      observation.results.push({ source_call_id: call.id, content: STUB_RESULT, extra: { is_error: true } });
    }
  }
  if (selected.others.size > 0) {
    for (const [id, other] of selected.others) ledger.report('dropped', 'other-session', `session ${other.nativeId ?? id} (${other.count} events, e.g. a subagent) is not part of this trajectory: write it on its own with --session`);
  }

  const doc: Json = { schema_version: `ATIF-v${LATEST_ATIF_VERSION}`, session_id: sessionId, agent, steps };
  if (typeof kept.notes === 'string' && fromAtif) doc.notes = kept.notes;
  if (fromAtif) {
    for (const key of ['extra', 'final_metrics', 'trajectory_id', 'continued_trajectory_ref']) if (kept[key] !== undefined) doc[key] = kept[key];
  } else {
    const origin: Json = { source_agent: start?.agent ?? 'unknown', source_session: selected.session };
    if (nativeId) origin.source_native_id = nativeId;
    for (const key of ['cwd', 'git_branch', 'title']) if (typeof sp[key] === 'string') origin[key] = sp[key];
    doc.extra = { sp: origin };
    const totals = { prompt: 0, completion: 0, cached: 0, any: false };
    for (const step of steps) {
      if (!isObject(step.metrics)) continue;
      totals.any = true;
      totals.prompt += Number(step.metrics.prompt_tokens ?? 0);
      totals.completion += Number(step.metrics.completion_tokens ?? 0);
      totals.cached += Number(step.metrics.cached_tokens ?? 0);
    }
    doc.final_metrics = { total_steps: steps.length, ...(totals.any ? { total_prompt_tokens: totals.prompt, total_completion_tokens: totals.completion, total_cached_tokens: totals.cached } : {}) };
  }
  fitVersion(doc, version, ledger);
  doc.schema_version = `ATIF-v${version}`;

  const issues = await checkTrajectory(doc, version);
  if (issues.length > 0) {
    const first = issues[0];
    throw new UserError(`the trajectory sp built is not valid ATIF v${version} (nothing was written): ${first.pointer || '/'}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`);
  }

  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const path = join(home, `${sessionId}.json`);
  const text = JSON.stringify(ordered(doc), null, 2) + '\n';
  if (options.onLine) for (const line of text.slice(0, -1).split('\n')) options.onLine(line);
  if (!options.dryRun) {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    createFileAtomic(path, [text], 0o600);
  }
  const result: WriterResult = {
    agent: AGENT,
    session_id: sessionId,
    path,
    cwd: str(sp.cwd) ?? options.cwd ?? process.cwd(),
    resume: `sp-capture atif --path ${shellQuote(path)}`,
    records: steps.length,
    atif_version: `ATIF-v${version}`,
    written_as: 'rebuilt',
    source_session: selected.session,
    changes: ledger.counts,
  };
  if (options.dryRun) result.dry_run = true;
  return result;
}
