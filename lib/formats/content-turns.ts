// The conversation a Gemini CLI or Qwen Code writer writes, planned from canonical events: user
// turns (text and image parts) and model steps (thoughts, texts, function calls each paired with
// its result). Both clients rebuild Gemini API `Content` from their files, where a model turn's
// function calls must be answered by the next user turn, so a step ends at its calls: text or
// calls that come after a call start a new step. Resume safety (on unless `safety: false`):
// an unanswered call gets a stub result, a result without its call is rendered as user text, and
// every change goes to the loss ledger (docs/design.md §3).
import { artifactNote, readArtifactForWriter } from '../core/artifacts.js';
import { splitBranches } from '../write/branches.js';
import { LOSS } from '../write/plan.js';
import type { SpEvent } from '../core/event.js';
import { isObject, str, type Json } from '../core/json.js';
import { isDerived, payloadOf, type LossLedger } from '../write/writer.js';
import { imagePart, resultText } from './content-parts.js';

export const STUB_RESULT = 'interrupted: no result was recorded';

export interface PlannedCall {
  callId: string;
  name: string;
  args: Json;
  result?: { text: string; isError: boolean; ts: number };
  event: SpEvent;
}

export interface UserTurn {
  kind: 'user';
  parts: Json[];
  ts: number;
}

export interface ModelStep {
  kind: 'model';
  thoughts: Array<{ text: string; subject?: string; ts: number }>;
  texts: string[];
  calls: PlannedCall[];
  model?: string;
  usage?: Json;
  ts: number;
  /** A result for one of its calls arrived: what the model does next is a new step. */
  answered?: boolean;
}

export type Turn = UserTurn | ModelStep;

export interface PlanOptions {
  ledger: LossLedger;
  /** The agent the plan is written for: events from it keep their native ids and shapes. */
  target: string;
  artifactsDir?: string;
  safety: boolean;
  /** Renames a tool call for the target (vocabulary translation); identity when absent. */
  translate?: (name: string, input: unknown, event: SpEvent) => { name: string; args: Json };
}

/**
 * The events on the path to the active leaf (lib/write/branches.ts: results belong to their call,
 * so parallel calls are no branches; a compaction cut continues the line). Both clients resume one
 * linear history, so what other branches hold is reported, not written.
 */
export function activePath(events: SpEvent[], ledger: LossLedger): SpEvent[] {
  if (!events.some((e) => typeof e.parent_seq === 'number')) return events;
  const { active, offActive } = splitBranches(events);
  const dropped = offActive.filter((e) => e.type !== 'meta').length;
  if (dropped > 0) ledger.add({ action: 'dropped', code: LOSS.otherBranch, reason: `${dropped} event(s) on branches off the active path: not written (the clients resume one linear history)` });
  return active.events;
}

function imageParts(block: Json, options: PlanOptions, event: SpEvent): Json | undefined {
  let data = typeof block.data === 'string' ? block.data : undefined;
  let why = 'pass --artifacts DIR';
  if (data === undefined && typeof block.artifact === 'string' && options.artifactsDir) {
    const read = readArtifactForWriter(options.artifactsDir, block.artifact);
    if (read.ok) data = read.bytes.toString('base64');
    else why = `artifact ${artifactNote(block.artifact)}: ${read.reason}`;
  }
  if (data === undefined) {
    options.ledger.report('rendered', 'image-unavailable', `an image whose bytes are not in the stream (${why}): written as the text [image]`, event);
    return { text: '[image]' };
  }
  return imagePart({ ...block, data });
}

export function planTurns(events: SpEvent[], options: PlanOptions): Turn[] {
  const { ledger } = options;
  const turns: Turn[] = [];
  const calls = new Map<string, PlannedCall>();
  const callSteps = new Map<string, ModelStep>();
  let step: ModelStep | undefined;
  const openStep = (event: SpEvent, model: string | undefined, fresh: boolean): ModelStep => {
    if (!step || fresh || turns[turns.length - 1] !== step) {
      step = { kind: 'model', thoughts: [], texts: [], calls: [], ts: event.ts };
      turns.push(step);
    }
    if (model && !step.model) step.model = model;
    return step;
  };
  for (const event of events) {
    if (isDerived(event) || event.type === 'session.start') continue;
    const p = payloadOf(event);
    const model = str(p.model);
    switch (event.type) {
      case 'message.user': {
        const parts: Json[] = [];
        for (const block of Array.isArray(p.content) ? p.content : []) {
          if (!isObject(block)) continue;
          if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') parts.push({ text: block.text });
          else if (block.type === 'image') {
            const part = imageParts(block, options, event);
            if (part) parts.push(part);
          } else if (block.type === 'gemini.part' && isObject(block.part) && event.agent === options.target) parts.push(block.part);
          else if (block.type !== 'tool_result') {
            ledger.report('rendered', 'user-block', `a ${String(block.type)} block has no content part: written as its JSON text`, event);
            parts.push({ text: JSON.stringify(block) });
          }
        }
        if (parts.length === 0) continue;
        const last = turns[turns.length - 1];
        if (last && last.kind === 'user') last.parts.push(...parts);
        else turns.push({ kind: 'user', parts, ts: event.ts });
        break;
      }
      case 'message.thinking': {
        const text = typeof p.text === 'string' ? p.text : '';
        if (text === '') {
          ledger.report('dropped', 'opaque-reasoning', 'reasoning without text (encrypted or redacted): only its maker can read it', event);
          continue;
        }
        const s = openStep(event, model, step !== undefined && step.calls.length > 0);
        s.thoughts.push({ text, subject: str(p.subject), ts: event.ts });
        if (event.agent !== options.target && (p.signature !== undefined || p.opaque !== undefined)) {
          ledger.report('transformed', 'reasoning-text', 'reasoning written as a thought summary (its signature only verifies with its maker)', event);
        }
        break;
      }
      case 'message.assistant': {
        const texts: string[] = [];
        for (const block of Array.isArray(p.content) ? p.content : []) {
          if (isObject(block) && block.type === 'text' && typeof block.text === 'string' && block.text !== '') texts.push(block.text);
          else if (isObject(block) && block.type !== 'tool_use' && block.type !== 'thinking') {
            ledger.report('rendered', 'assistant-block', `a ${String(block.type)} block: written as its JSON text`, event);
            texts.push(JSON.stringify(block));
          }
        }
        if (texts.length === 0) continue;
        const s = openStep(event, model, step !== undefined && step.calls.length > 0);
        s.texts.push(...texts);
        if (isObject(p.usage)) s.usage = p.usage;
        break;
      }
      case 'tool.call': {
        const callId = str(p.call_id) ?? `call_${event.seq}`;
        let name = str(p.name) ?? 'unknown_tool';
        let args: Json = isObject(p.input) ? p.input : { input: p.input };
        if (!isObject(p.input)) ledger.report('transformed', 'call-input', `the call's input is not an object: written as {"input": …}`, event);
        if (options.translate) ({ name, args } = options.translate(name, isObject(p.input) ? p.input : args, event));
        if (calls.has(callId)) {
          ledger.report('dropped', 'duplicate-call', `a second call with id ${callId}: not written`, event);
          continue;
        }
        const call: PlannedCall = { callId, name, args, event };
        calls.set(callId, call);
        openStep(event, model, step !== undefined && step.answered === true).calls.push(call);
        callSteps.set(callId, step!);
        break;
      }
      case 'tool.result': {
        const callId = str(p.call_id) ?? '';
        const call = calls.get(callId);
        const { text, images } = resultText(p.content);
        if (images > 0) ledger.report('rendered', 'result-image', `${images} image(s) in a tool result: not written (function responses carry text)`, event);
        if (!call || call.result) {
          if (!options.safety && !call) continue;
          ledger.report('rendered', 'orphan-result', `a result for ${call ? 'an already answered' : 'no'} call ${callId}: written as user text`, event);
          turns.push({ kind: 'user', parts: [{ text: `[tool result ${callId}]\n${text}` }], ts: event.ts });
          continue;
        }
        call.result = { text, isError: p.is_error === true, ts: event.ts };
        callSteps.get(callId)!.answered = true;
        break;
      }
      case 'meta':
        if (event.agent !== options.target) ledger.report('dropped', 'foreign-meta', `meta ${String(p.key ?? '')} from ${event.agent} has no ${options.target} record: not written`, event);
        else ledger.report('dropped', 'meta', `meta ${String(p.key ?? '')}: the client makes its own`, event);
        break;
      default:
        ledger.report('dropped', 'no-counterpart', `${event.type} has no ${options.target} record: not written`, event);
    }
  }
  if (options.safety) {
    for (const call of calls.values()) {
      if (call.result) continue;
      ledger.report('stubbed', 'stub-result', `call ${call.callId} never got a result: written with "${STUB_RESULT}"`, call.event);
      call.result = { text: STUB_RESULT, isError: true, ts: call.event.ts };
    }
  }
  return turns;
}
