// `capture` for ATIF trajectories (Harbor RFC 0001, every version v1.0–v1.7). The file is read whole
// and checked against the schema of the version it declares (schemas.ts); then each step becomes
// canonical events:
//   system step                 → meta `atif.step` with the step (canonical has no system prompt)
//   user step                   → message.user
//   agent step                  → message.thinking (reasoning_content), message.assistant (message,
//                                 model, usage from metrics), tool.call per tool_calls[],
//                                 tool.result per observation result that names its call
//   result with no call         → meta `atif.observation` (an action without a tool call)
//   embedded subagent (v1.7)    → a child session (session.start names the parent)
// What canonical events have no field for (metrics, step extras, reasoning effort, subagent refs,
// token ids) rides along in each payload's `atif` object, so a trajectory written back is the same.
// Fields the declared version does not define are unknown fields: each passes through as meta
// `atif.unknown` (its JSON pointer and value). A step that breaks the schema is reported as
// file:line with the JSON pointer of each problem and kept as meta `atif.invalid-step`; a broken
// root (no session_id, an unknown version …) is a user error. Image parts keep the path they name
// (as an image url); capture never opens a path a trajectory names.
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { SessionEmitter } from '../../lib/core/emitter.js';
import { canonicalSessionId, toEpochSeconds, type ContentBlock, type SpEvent } from '../../lib/core/event.js';
import { isObject, setMember, type Json } from '../../lib/core/json.js';
import { AGENT, readTrajectory } from './paths.js';
import { versionOf } from './schemas.js';
import { checkTrajectory, lineIndex, lineOf, type AtifIssue } from './validate.js';

/** ATIF content (a string, or v1.6 content parts) as canonical content blocks. */
export function blocksOf(content: unknown): ContentBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const out: ContentBlock[] = [];
  for (const part of content) {
    if (!isObject(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') out.push({ type: 'text', text: part.text });
    else if (part.type === 'image' && isObject(part.source)) out.push({ type: 'image', media_type: String(part.source.media_type), url: String(part.source.path) });
  }
  return out;
}

/** Removes the fields named by unknown-field pointers from a copy of `doc`; returns what was removed. */
function takeUnknown(doc: Json, issues: AtifIssue[]): { pointer: string; value: unknown }[] {
  const taken: { pointer: string; value: unknown }[] = [];
  for (const issue of issues) {
    if (!issue.unknown) continue;
    const keys = issue.pointer.split('/').slice(1).map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    let node: unknown = doc;
    for (const key of keys.slice(0, -1)) node = isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
    const last = keys[keys.length - 1];
    if (isObject(node) && Object.prototype.hasOwnProperty.call(node, last)) {
      taken.push({ pointer: issue.pointer, value: node[last] });
      delete node[last];
    }
  }
  return taken;
}

/** The step index a pointer points into (`/steps/3/…` → 3), undefined outside the steps. */
function stepIndexOf(pointer: string, base = ''): number | undefined {
  const m = new RegExp(`^${base.replace(/[/]/g, '\\/')}/steps/(\\d+)(/|$)`).exec(pointer);
  return m ? Number(m[1]) : undefined;
}

/** `{ key: value }` without the keys whose value is undefined. */
function defined(fields: Json): Json | undefined {
  const out: Json = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) setMember(out, k, v);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Canonical usage from ATIF metrics (prompt_tokens counts cached tokens too, RFC §II MetricsSchema). */
function usageOf(metrics: unknown): Json | undefined {
  if (!isObject(metrics)) return undefined;
  const prompt = typeof metrics.prompt_tokens === 'number' ? metrics.prompt_tokens : undefined;
  const cached = typeof metrics.cached_tokens === 'number' ? metrics.cached_tokens : undefined;
  return defined({
    input_tokens: prompt !== undefined ? prompt - (cached ?? 0) : undefined,
    cache_read_input_tokens: cached,
    output_tokens: typeof metrics.completion_tokens === 'number' ? metrics.completion_tokens : undefined,
    cost_usd: typeof metrics.cost_usd === 'number' ? metrics.cost_usd : undefined,
  });
}

interface Walk {
  emitter: SessionEmitter;
  path: string;
  lines: Map<string, number>;
  raw: boolean;
  /** Pointer prefix of this trajectory in the file (`` or `/subagent_trajectories/0`). */
  base: string;
  ts: number;
}

function* stepEvents(walk: Walk, step: Json, index: number, agentModel: string | undefined): Generator<SpEvent> {
  const { emitter } = walk;
  const line = lineOf(walk.lines, `${walk.base}/steps/${index}`);
  const origin = { native_seq: line, native_uuid: `step-${String(step.step_id)}`, path: walk.path, ...(walk.raw ? { raw: [JSON.stringify(step)] } : {}) };
  walk.ts = toEpochSeconds(step.timestamp) ?? walk.ts;
  const ts = walk.ts;
  const extras = (keys: string[]): Json | undefined => defined(Object.fromEntries(keys.map((k) => [k, step[k]])));
  if (step.source === 'system') {
    yield emitter.emit('meta', { key: 'atif.step', value: { source: 'system', step_id: step.step_id }, raw: step }, ts, { actor: 'system', origin });
    return;
  }
  if (step.source === 'user') {
    const payload: Json = { content: blocksOf(step.message) };
    const atif = extras(['timestamp', 'extra', 'is_copied_context']);
    if (atif) payload.atif = atif;
    yield emitter.emit('message.user', payload, ts, { actor: 'user', level: 0, origin });
    return;
  }
  const messageId = `step-${String(step.step_id)}`;
  const model = typeof step.model_name === 'string' ? step.model_name : agentModel;
  if (typeof step.reasoning_content === 'string' && step.reasoning_content !== '') {
    yield emitter.emit('message.thinking', { text: step.reasoning_content, visibility: 'visible', message_id: messageId }, ts, { actor: `agent:${AGENT}`, level: 1, origin });
  }
  const calls = Array.isArray(step.tool_calls) ? step.tool_calls.filter(isObject) : [];
  const content = blocksOf(step.message);
  for (const call of calls) content.push({ type: 'tool_use', call_id: String(call.tool_call_id), name: String(call.function_name) });
  const assistant: Json = { content, message_id: messageId };
  if (model !== undefined) assistant.model = model;
  const usage = usageOf(step.metrics);
  if (usage) assistant.usage = usage;
  const atif = extras(['timestamp', 'model_name', 'reasoning_effort', 'metrics', 'extra', 'is_copied_context', 'llm_call_count']);
  if (atif) assistant.atif = atif;
  yield emitter.emit('message.assistant', assistant, ts, { actor: `agent:${AGENT}`, level: 0, origin });
  for (const call of calls) {
    const payload: Json = { call_id: String(call.tool_call_id), name: String(call.function_name), input: call.arguments, message_id: messageId };
    if (isObject(call.extra)) payload.atif = { extra: call.extra };
    yield emitter.emit('tool.call', payload, ts, { actor: `agent:${AGENT}`, level: 0, origin });
  }
  const results = isObject(step.observation) && Array.isArray(step.observation.results) ? step.observation.results.filter(isObject) : [];
  for (const result of results) {
    if (typeof result.source_call_id !== 'string') {
      yield emitter.emit('meta', { key: 'atif.observation', value: { step_id: step.step_id }, raw: result }, ts, { actor: 'tool', origin });
      continue;
    }
    const payload: Json = { call_id: result.source_call_id, content: typeof result.content === 'string' ? result.content : blocksOf(result.content) };
    if (isObject(result.extra) && result.extra.is_error === true) payload.is_error = true;
    const atif = defined({ extra: result.extra, subagent_trajectory_ref: result.subagent_trajectory_ref, content_absent: result.content === undefined ? true : undefined });
    if (atif) payload.atif = atif;
    yield emitter.emit('tool.result', payload, ts, { actor: 'tool', level: 0, origin });
  }
}

function* trajectoryEvents(doc: Json, walk: Walk, issues: AtifIssue[], options: CaptureOptions, parent?: string): Generator<SpEvent> {
  const { emitter } = walk;
  const agent = isObject(doc.agent) ? doc.agent : {};
  const steps = Array.isArray(doc.steps) ? doc.steps : [];
  const first = steps.find((s) => isObject(s) && toEpochSeconds(s.timestamp) !== undefined) as Json | undefined;
  walk.ts = toEpochSeconds(first?.timestamp) ?? walk.ts;
  const sp = isObject(doc.extra) && isObject(doc.extra.sp) ? doc.extra.sp : {};
  const start: Json = { native_id: String(doc.session_id) };
  if (typeof agent.model_name === 'string') start.model = agent.model_name;
  if (typeof agent.version === 'string') start.version = agent.version;
  for (const key of ['cwd', 'git_branch', 'title']) if (typeof sp[key] === 'string') start[key] = sp[key];
  if (parent) start.parent_session = parent;
  start.atif = defined({
    schema_version: doc.schema_version,
    agent: defined({ name: agent.name, version: agent.version, model_name: agent.model_name, extra: agent.extra, tool_definitions: agent.tool_definitions }),
    notes: doc.notes,
    final_metrics: doc.final_metrics,
    extra: doc.extra,
    trajectory_id: doc.trajectory_id,
    continued_trajectory_ref: doc.continued_trajectory_ref,
  });
  const origin = { native_seq: lineOf(walk.lines, walk.base), path: walk.path };
  yield emitter.emit('session.start', start, walk.ts, { actor: 'system', origin });

  const unknown = takeUnknown(doc, issues.filter((i) => i.pointer.startsWith(`${walk.base}/`) && !i.pointer.slice(walk.base.length).startsWith('/subagent_trajectories/')).map((i) => ({ ...i, pointer: i.pointer.slice(walk.base.length) })));
  for (const field of unknown) {
    yield emitter.emit('meta', { key: 'atif.unknown', value: { pointer: walk.base + field.pointer }, raw: field.value }, walk.ts, { actor: 'system', origin: { native_seq: lineOf(walk.lines, walk.base + field.pointer), path: walk.path } });
  }
  const invalid = new Map<number, AtifIssue[]>();
  for (const issue of issues) {
    if (issue.unknown) continue;
    const index = stepIndexOf(issue.pointer, walk.base);
    if (index === undefined) continue;
    invalid.set(index, [...(invalid.get(index) ?? []), issue]);
  }
  const agentModel = typeof agent.model_name === 'string' ? agent.model_name : undefined;
  for (let i = 0; i < steps.length; i += 1) {
    const step = steps[i];
    const problems = invalid.get(i);
    if (problems || !isObject(step)) {
      const line = lineOf(walk.lines, `${walk.base}/steps/${i}`);
      const what = (problems ?? [{ pointer: `${walk.base}/steps/${i}`, message: 'must be an object' }]).map((p) => `${p.pointer}: ${p.message}`).join('; ');
      options.onDiagnostic?.(`${walk.path}:${line}`, `step breaks the ATIF v${versionOf(doc.schema_version)} schema (kept as meta): ${what}`);
      yield emitter.emit('meta', { key: 'atif.invalid-step', value: { issues: problems ?? [] }, raw: step }, walk.ts, { actor: 'system', origin: { native_seq: line, path: walk.path } });
      continue;
    }
    yield* stepEvents(walk, step, i, agentModel);
  }
}

export async function* captureAtif(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const { text, doc, mtime } = readTrajectory(ref.path);
  const version = versionOf(doc.schema_version);
  if (!version) throw new UserError(`not an ATIF trajectory: /schema_version is ${JSON.stringify(doc.schema_version)}, not ATIF-v1.0 … ATIF-v1.7`, ref.path);
  const issues = await checkTrajectory(doc, version);
  const lines = lineIndex(text);
  // A broken root (outside the steps, other than an unknown field) leaves nothing to read safely.
  const rootProblem = issues.find((i) => !i.unknown && stepIndexOf(i.pointer, i.pointer.match(/^(\/subagent_trajectories\/\d+)*/)?.[0] ?? '') === undefined);
  if (rootProblem) throw new UserError(`not a valid ATIF v${version} trajectory: ${rootProblem.pointer || '/'}: ${rootProblem.message}`, `${ref.path}:${lineOf(lines, rootProblem.pointer)}`);
  const nativeId = String(doc.session_id);
  const walk: Walk = { emitter: new SessionEmitter(AGENT, nativeId), path: ref.path, lines, raw: options.raw === true, base: '', ts: mtime };
  yield* trajectoryEvents(doc, walk, issues, options);
  // v1.7: subagent trajectories embedded in the root, each a child session.
  const subs = Array.isArray(doc.subagent_trajectories) ? doc.subagent_trajectories : [];
  for (let k = 0; k < subs.length; k += 1) {
    const sub = subs[k];
    if (!isObject(sub)) continue;
    const subId = String(sub.session_id ?? sub.trajectory_id ?? `${nativeId}/subagent-${k}`);
    const child: Walk = { emitter: new SessionEmitter(AGENT, subId), path: ref.path, lines, raw: walk.raw, base: `/subagent_trajectories/${k}`, ts: walk.ts };
    yield* trajectoryEvents(sub, child, issues, options, canonicalSessionId(AGENT, nativeId));
  }
}
