// The conversation a Gemini CLI or Qwen Code writer writes, planned from canonical events: user
// turns (text and image parts) and model steps (thoughts, texts, function calls each paired with
// its result). Both clients rebuild Gemini API `Content` from their files, where a model turn's
// function calls must be answered by the next user turn, so a step ends at its calls: text or
// calls that come after a call start a new step. Resume safety is the writer core's
// (lib/write/plan.ts; on unless `safety: false`): calls pair with results in stream order, an
// unanswered call gets a stub result, a result that answers no call is rendered as user text
// (`rendered orphan-result`, as plan.ts says), every call id goes through the writer's ToolIds, and
// every change goes to the loss ledger (docs/design.md §3).
import { artifactNote, readArtifactForWriter } from '../core/artifacts.js';
import { activeBranch } from '../write/branches.js';
import { CallPairing, ToolIds, reportOrphan, reportStub, type PlanReport, type ToolIdSpelling } from '../write/plan.js';
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
  /** The call ids the target's API accepts (lib/write/plan.ts ToolIds). */
  toolIds: ToolIdSpelling;
}

/**
 * The events on the path to the active leaf (lib/write/branches.ts: results belong to their call,
 * so parallel calls are no branches; a compaction cut continues the line). Both clients resume one
 * linear history, so every step of another branch is reported `dropped other-branch`, not written.
 */
export function activePath(events: SpEvent[], ledger: LossLedger): SpEvent[] {
  if (!events.some((e) => typeof e.parent_seq === 'number')) return events;
  return activeBranch(events, ledger.report.bind(ledger), 'not on the active branch (the clients resume one linear history): not written');
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
  const report: PlanReport = ledger.report.bind(ledger);
  const turns: Turn[] = [];
  // Pass 1 (lib/write/plan.ts): which result answers which call, by position; the clients send a
  // step's calls and then their answers, so a result answers only a call before it.
  const pairing = new CallPairing('stream');
  for (const event of events) pairing.add(event);
  const { callOf, skipped } = pairing.done();
  const ids = new ToolIds(options.toolIds, report, options.safety);
  const calls = new Map<number, PlannedCall>();
  const callSteps = new Map<number, ModelStep>();
  let step: ModelStep | undefined;
  const openStep = (event: SpEvent, model: string | undefined, fresh: boolean): ModelStep => {
    if (!step || fresh || turns[turns.length - 1] !== step) {
      step = { kind: 'model', thoughts: [], texts: [], calls: [], ts: event.ts };
      turns.push(step);
    }
    if (model && !step.model) step.model = model;
    return step;
  };
  events.forEach((event, index) => {
    if (isDerived(event) || event.type === 'session.start') return;
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
        if (parts.length === 0) return;
        const last = turns[turns.length - 1];
        if (last && last.kind === 'user') last.parts.push(...parts);
        else turns.push({ kind: 'user', parts, ts: event.ts });
        return;
      }
      case 'message.thinking': {
        const text = typeof p.text === 'string' ? p.text : '';
        if (text === '') {
          ledger.report('dropped', 'opaque-reasoning', 'reasoning without text (encrypted or redacted): only its maker can read it', event);
          return;
        }
        const s = openStep(event, model, step !== undefined && step.calls.length > 0);
        s.thoughts.push({ text, subject: str(p.subject), ts: event.ts });
        if (event.agent !== options.target && (p.signature !== undefined || p.opaque !== undefined)) {
          ledger.report('transformed', 'reasoning-text', 'reasoning written as a thought summary (its signature only verifies with its maker)', event);
        }
        return;
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
        if (texts.length === 0) return;
        const s = openStep(event, model, step !== undefined && step.calls.length > 0);
        s.texts.push(...texts);
        if (isObject(p.usage)) s.usage = p.usage;
        return;
      }
      case 'tool.call': {
        const callId = ids.id(str(p.call_id) ?? '', event);
        let name = str(p.name) ?? 'unknown_tool';
        let args: Json = isObject(p.input) ? p.input : { input: p.input };
        if (!isObject(p.input)) ledger.report('transformed', 'call-input', `the call's input is not an object: written as {"input": …}`, event);
        if (options.translate) ({ name, args } = options.translate(name, isObject(p.input) ? p.input : args, event));
        const call: PlannedCall = { callId, name, args, event };
        calls.set(index, call);
        openStep(event, model, step !== undefined && step.answered === true).calls.push(call);
        callSteps.set(index, step!);
        return;
      }
      case 'tool.result': {
        const { text, images } = resultText(p.content);
        const at = callOf.get(index);
        const call = at === undefined ? undefined : calls.get(at);
        if (call === undefined && !options.safety) return;
        if (images > 0) ledger.report('rendered', 'result-image', `${images} image(s) in a tool result: not written (function responses carry text)`, event);
        if (call === undefined) {
          // The clients would send an answer to no call: the API refuses it, so it is kept as user text.
          reportOrphan((_action, code, reason, e) => report('rendered', code, reason, e), event, skipped.get(index) ?? 'orphan', 'written as user text');
          turns.push({ kind: 'user', parts: [{ text: `[tool result ${str(p.call_id) ?? ''}]\n${text}` }], ts: event.ts });
          return;
        }
        call.result = { text, isError: p.is_error === true, ts: event.ts };
        callSteps.get(at!)!.answered = true;
        return;
      }
      case 'meta':
        if (event.agent !== options.target) ledger.report('dropped', 'foreign-meta', `meta ${String(p.key ?? '')} from ${event.agent} has no ${options.target} record: not written`, event);
        else ledger.report('dropped', 'meta', `meta ${String(p.key ?? '')}: the client makes its own`, event);
        return;
      default:
        ledger.report('dropped', 'no-counterpart', `${event.type} has no ${options.target} record: not written`, event);
    }
  });
  if (options.safety) {
    for (const call of calls.values()) {
      if (call.result) continue;
      reportStub(report, call.event, `written with "${STUB_RESULT}"`, { noun: 'call', id: call.callId });
      call.result = { text: STUB_RESULT, isError: true, ts: call.event.ts };
    }
  }
  return turns;
}
