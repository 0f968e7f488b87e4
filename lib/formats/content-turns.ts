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
import { activeBranchView } from '../write/branches.js';
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
  /** The block type the target's capture keeps a part with no canonical counterpart in, as it was: written back as that part for the same agent. */
  partBlock: string;
}

/**
 * The events on the path to the active leaf (lib/write/branches.ts: results belong to their call,
 * so parallel calls are no branches; a compaction cut continues the line). Both clients resume one
 * linear history, so every step of another branch is reported `dropped other-branch`, not written.
 */
export function activePath(events: readonly SpEvent[], ledger: LossLedger): readonly SpEvent[] {
  if (!events.some((e) => typeof e.parent_seq === 'number')) return events;
  return activeBranchView(events, ledger.report.bind(ledger), 'not on the active branch (the clients resume one linear history): not written');
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

/** The model step being built, with the positions of its calls (to answer them as results arrive). */
interface OpenStep {
  turn: ModelStep;
  callAt: Map<number, PlannedCall>;
}

/**
 * The turns of `events` one by one, in order, each as soon as it is final: only the turn being
 * built is held. A result that arrives after its step is final is read ahead by position (the
 * pairing pass knows where it is), so `events` may be a session read from disk by position
 * (lib/write/spool.ts SpooledSession). The ledger gets its entries in event order; stubs are
 * reported last, after every event, before the last turn is given.
 */
export function* streamTurns(events: readonly SpEvent[], options: PlanOptions): Generator<Turn> {
  const { ledger } = options;
  const report: PlanReport = ledger.report.bind(ledger);
  // Pass 1 (lib/write/plan.ts): which result answers which call, by position; the clients send a
  // step's calls and then their answers, so a result answers only a call before it.
  const pairing = new CallPairing('stream');
  for (let i = 0; i < events.length; i += 1) pairing.add(events[i]);
  const { callOf, resultOf, skipped } = pairing.done();
  const ids = new ToolIds(options.toolIds, report, options.safety);
  /** Calls no result answers (rare): stubbed when their step is given, reported at the end. */
  const unanswered: Array<{ at: number; callId: string }> = [];
  let held: Turn | undefined;
  let step: OpenStep | undefined;

  /** The held turn, final: its calls' results filled in (read ahead where they come later). */
  const release = (): Turn | undefined => {
    const turn = held;
    if (step) {
      for (const [at, call] of step.callAt) {
        if (call.result) continue;
        const r = resultOf.get(at);
        if (r !== undefined) {
          const event = events[r];
          call.result = { text: resultText(payloadOf(event).content).text, isError: payloadOf(event).is_error === true, ts: event.ts };
        } else if (options.safety) {
          unanswered.push({ at, callId: call.callId });
          call.result = { text: STUB_RESULT, isError: true, ts: call.event.ts };
        }
      }
    }
    held = undefined;
    step = undefined;
    return turn;
  };
  /** `turn` becomes the held one; the one before, final now, is returned. */
  const hold = (turn: Turn): Turn | undefined => {
    const done = release();
    held = turn;
    if (turn.kind === 'model') step = { turn, callAt: new Map() };
    return done;
  };
  const openStep = (event: SpEvent, model: string | undefined, fresh: boolean): { step: OpenStep; done?: Turn } => {
    let done: Turn | undefined;
    if (!step || fresh) done = hold({ kind: 'model', thoughts: [], texts: [], calls: [], ts: event.ts });
    if (model && !step!.turn.model) step!.turn.model = model;
    return { step: step!, done };
  };

  for (let index = 0; index < events.length; index += 1) {
    const done = planEvent(events[index], index);
    if (done) yield done;
  }
  const last = release();
  for (const { at, callId } of unanswered.splice(0)) reportStub(report, events[at], `written with "${STUB_RESULT}"`, { noun: 'call', id: callId });
  if (last) yield last;

  /** One event into the held turn; returns the turn it made final, if any. */
  function planEvent(event: SpEvent, index: number): Turn | undefined {
    if (isDerived(event) || event.type === 'session.start') return undefined;
    const p = payloadOf(event);
    const model = str(p.model);
    switch (event.type) {
      case 'message.user': {
        const parts = userParts(p, event, options);
        if (parts.length === 0) return undefined;
        if (held && held.kind === 'user') {
          held.parts.push(...parts);
          return undefined;
        }
        return hold({ kind: 'user', parts, ts: event.ts });
      }
      case 'message.thinking': {
        const text = typeof p.text === 'string' ? p.text : '';
        if (text === '') {
          ledger.report('dropped', 'opaque-reasoning', 'reasoning without text (encrypted or redacted): only its maker can read it', event);
          return undefined;
        }
        const opened = openStep(event, model, step !== undefined && step.turn.calls.length > 0);
        opened.step.turn.thoughts.push({ text, subject: str(p.subject), ts: event.ts });
        if (event.agent !== options.target && (p.signature !== undefined || p.opaque !== undefined)) {
          ledger.report('transformed', 'reasoning-text', 'reasoning written as a thought summary (its signature only verifies with its maker)', event);
        }
        return opened.done;
      }
      case 'message.assistant': {
        const texts = assistantTexts(p, event, ledger);
        if (texts.length === 0) return undefined;
        const opened = openStep(event, model, step !== undefined && step.turn.calls.length > 0);
        opened.step.turn.texts.push(...texts);
        if (isObject(p.usage)) opened.step.turn.usage = p.usage;
        return opened.done;
      }
      case 'tool.call': {
        const callId = ids.id(str(p.call_id) ?? '', event);
        let name = str(p.name) ?? 'unknown_tool';
        let args: Json = isObject(p.input) ? p.input : { input: p.input };
        if (!isObject(p.input)) ledger.report('transformed', 'call-input', `the call's input is not an object: written as {"input": …}`, event);
        if (options.translate) ({ name, args } = options.translate(name, isObject(p.input) ? p.input : args, event));
        const call: PlannedCall = { callId, name, args, event };
        const opened = openStep(event, model, step !== undefined && step.turn.answered === true);
        opened.step.turn.calls.push(call);
        opened.step.callAt.set(index, call);
        return opened.done;
      }
      case 'tool.result': {
        const at = callOf.get(index);
        if (at === undefined && !options.safety) return undefined;
        const { text, images } = resultText(p.content);
        if (images > 0) ledger.report('rendered', 'result-image', `${images} image(s) in a tool result: not written (function responses carry text)`, event);
        if (at === undefined) {
          // The clients would send an answer to no call: the API refuses it, so it is kept as user text.
          reportOrphan((_action, code, reason, e) => report('rendered', code, reason, e), event, skipped.get(index) ?? 'orphan', 'written as user text');
          return hold({ kind: 'user', parts: [{ text: `[tool result ${str(p.call_id) ?? ''}]\n${text}` }], ts: event.ts });
        }
        // A call of the held step is answered here; one of a step given already was read ahead.
        const call = step?.callAt.get(at);
        if (call) {
          call.result = { text, isError: p.is_error === true, ts: event.ts };
          step!.turn.answered = true;
        }
        return undefined;
      }
      case 'meta':
        if (event.agent !== options.target) ledger.report('dropped', 'foreign-meta', `meta ${String(p.key ?? '')} from ${event.agent} has no ${options.target} record: not written`, event);
        else ledger.report('dropped', 'meta', `meta ${String(p.key ?? '')}: the client makes its own`, event);
        return undefined;
      default:
        ledger.report('dropped', 'no-counterpart', `${event.type} has no ${options.target} record: not written`, event);
        return undefined;
    }
  }
}

/** A user message's content parts (text, images, the target's own parts); other blocks as their JSON text. */
function userParts(p: Json, event: SpEvent, options: PlanOptions): Json[] {
  const parts: Json[] = [];
  for (const block of Array.isArray(p.content) ? p.content : []) {
    if (!isObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') parts.push({ text: block.text });
    else if (block.type === 'image') {
      const part = imageParts(block, options, event);
      if (part) parts.push(part);
    } else if (block.type === options.partBlock && isObject(block.part) && event.agent === options.target) parts.push(block.part);
    else if (block.type !== 'tool_result') {
      options.ledger.report('rendered', 'user-block', `a ${String(block.type)} block has no content part: written as its JSON text`, event);
      parts.push({ text: JSON.stringify(block) });
    }
  }
  return parts;
}

/** An assistant message's texts; blocks other than text, calls and thinking as their JSON text. */
function assistantTexts(p: Json, event: SpEvent, ledger: LossLedger): string[] {
  const texts: string[] = [];
  for (const block of Array.isArray(p.content) ? p.content : []) {
    if (isObject(block) && block.type === 'text' && typeof block.text === 'string' && block.text !== '') texts.push(block.text);
    else if (isObject(block) && block.type !== 'tool_use' && block.type !== 'thinking') {
      ledger.report('rendered', 'assistant-block', `a ${String(block.type)} block: written as its JSON text`, event);
      texts.push(JSON.stringify(block));
    }
  }
  return texts;
}
