// Canonical events → conversation turns, for writers whose targets store a linear chat (Copilot's
// events.jsonl, OpenCode's message/part rows): user turns, assistant turns (text, reasoning and
// tool calls in order, until a tool result or a user message closes the turn), each call paired
// with its result from anywhere in the stream (lib/write/plan.ts, the one resume-safety pass). Calls
// without a result get a stub (the provider APIs refuse an unanswered call), results that answer no
// call are dropped; both reported. What a
// turn cannot hold (meta, checkpoints, derived events) goes to the writer's `other` callback.
import type { SpEvent, ImageBlock } from '../core/event.js';
import { isObject, str, type Json } from '../core/json.js';
import { isDerived, payloadOf } from './writer.js';
import { pairCalls, reportOrphan, reportStub } from './plan.js';

export const STUB_RESULT = 'No result was recorded for this tool call (the session ended or moved on before it finished).';

export type Report = (action: 'dropped' | 'stubbed' | 'transformed' | 'rendered' | 'carried', code: string, reason: string, event?: SpEvent) => void;

export interface UserTurn {
  role: 'user';
  event: SpEvent;
  text: string;
  images: ImageBlock[];
  /** File attachments (OpenCode file parts: mime, filename, url): the writer decides how to carry them. */
  files: Json[];
}

export type AssistantPart =
  | { kind: 'text'; text: string; event: SpEvent }
  | { kind: 'thinking'; text: string; signature?: string; opaque?: string; provider?: string; event: SpEvent }
  | { kind: 'call'; call: ToolCall };

export interface ToolCall {
  call_id: string;
  name: string;
  input: unknown;
  event: SpEvent;
  /** The result event, or undefined when a stub stands for it. */
  result?: SpEvent;
  content: string;
  is_error: boolean;
}

export interface AssistantTurn {
  role: 'assistant';
  events: SpEvent[];
  parts: AssistantPart[];
  model?: string;
  ts: number;
}

export interface OtherItem {
  role: 'other';
  event: SpEvent;
}

export type Turn = UserTurn | AssistantTurn | OtherItem;

/** The text of a content (string or blocks); images collected; other blocks rendered as JSON and reported. */
export function contentText(content: unknown, event: SpEvent, report: Report, images?: ImageBlock[], files?: Json[]): string {
  if (typeof content === 'string') return content;
  const out: string[] = [];
  for (const block of Array.isArray(content) ? content : []) {
    if (!isObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') out.push(block.text);
    else if (block.type === 'image') {
      if (images) images.push(block as unknown as ImageBlock);
      else {
        out.push(`[image: ${str(block.media_type) ?? 'image'} (not carried over)]`);
        report('rendered', 'image', 'an image in a tool result written as a text marker', event);
      }
    } else if (block.type === 'file' && files) {
      files.push(block);
    } else if (block.type === 'tool_use' || block.type === 'tool_result' || block.type === 'thinking') {
      // pointers to tool events; thinking is handled by the caller
    } else {
      out.push(JSON.stringify(block));
      report('rendered', 'unsupported-block', `a ${String(block.type)} block written as JSON text`, event);
    }
  }
  return out.join('\n');
}

/** `--branch active`: one implementation for every writer (lib/write/branches.ts). */
export { activeBranch } from './branches.js';

/** The turns of a session's events (see the header), all at once: turnsOf, collected. */
export function buildTurns(events: readonly SpEvent[], report: Report, options: { safety?: boolean } = {}): Turn[] {
  return [...turnsOf(events, report, options)];
}

/**
 * The turns of a session's events one at a time, in buildTurns' order, so a writer of a large
 * session holds one turn (and the events of an open assistant turn) at a time. `events` may be a
 * SpooledSession's view: each event is read by position, a call's result where it stands. An
 * assistant turn is given when something closes it (a user message, a tool result, the end); what
 * a turn cannot hold that comes while it is open follows it, as it did in the array.
 */
export function* turnsOf(events: readonly SpEvent[], report: Report, options: { safety?: boolean } = {}): Generator<Turn> {
  let current: AssistantTurn | undefined;
  let held: OtherItem[] = [];
  // The resume-safety pairing (lib/write/plan.ts): a linear chat stores a call and its result together.
  const pairing = pairCalls(events, 'anywhere');
  function* closed(): Generator<Turn> {
    if (current) yield current;
    current = undefined;
    yield* held;
    held = [];
  }
  const assistant = (event: SpEvent): AssistantTurn => {
    current ??= { role: 'assistant', events: [], parts: [], ts: typeof event.ts === 'number' ? event.ts : Date.now() / 1000 };
    current.events.push(event);
    return current;
  };
  for (let index = 0; index < events.length; index += 1) {
    const event = events[index];
    const p = payloadOf(event);
    if (isDerived(event)) continue;
    switch (event.type) {
      case 'message.user': {
        yield* closed();
        const images: ImageBlock[] = [];
        const files: Json[] = [];
        const text = contentText(p.content, event, report, images, files);
        if (text.trim() === '' && images.length === 0 && files.length === 0) {
          report('dropped', 'empty-user', 'a user message without text: not written', event);
          break;
        }
        yield { role: 'user', event, text, images, files };
        break;
      }
      case 'message.assistant': {
        const turn = assistant(event);
        if (str(p.model) && p.model !== '<synthetic>') turn.model = p.model as string;
        for (const block of Array.isArray(p.content) ? p.content : []) {
          if (isObject(block) && block.type === 'thinking' && typeof block.text === 'string') {
            turn.parts.push({ kind: 'thinking', text: block.text, signature: str(block.signature), opaque: str(block.opaque), provider: str(block.provider), event });
          }
        }
        const text = contentText(p.content, event, report);
        if (text.trim() !== '') turn.parts.push({ kind: 'text', text, event });
        break;
      }
      case 'message.thinking': {
        const turn = assistant(event);
        if (str(p.model) && p.model !== '<synthetic>') turn.model ??= p.model as string;
        const text = typeof p.text === 'string' ? p.text : '';
        if (text.trim() === '') {
          report('dropped', 'opaque-reasoning', `reasoning without readable text (${p.visibility ?? 'encrypted'}): not written (only its provider can read it)`, event);
          break;
        }
        turn.parts.push({ kind: 'thinking', text, signature: str(p.signature), opaque: str(p.opaque), provider: str(p.provider), event });
        break;
      }
      case 'tool.call': {
        const turn = assistant(event);
        if (str(p.model) && p.model !== '<synthetic>') turn.model ??= p.model as string;
        const call = pairedCall(events, index, pairing.resultOf.get(index), report, options.safety !== false);
        if (call) turn.parts.push({ kind: 'call', call });
        break;
      }
      case 'tool.result': {
        // Paired with its call above; it closes the assistant turn it answers.
        yield* closed();
        const skipped = pairing.skipped.get(index);
        if (skipped) reportOrphan(report, event, skipped, 'not written');
        break;
      }
      case 'session.start':
        break; // the writer's own session header says it
      case 'session.end':
        report('dropped', 'session-end', 'session.end has no record in a linear chat: not written (the client records its own)', event);
        break;
      default:
        if (current) held.push({ role: 'other', event });
        else yield { role: 'other', event };
    }
  }
  yield* closed();
}

/** A call with its result (read where it stands), or a stub for none; undefined: none and safety off. */
function pairedCall(events: readonly SpEvent[], index: number, at: number | undefined, report: Report, safety: boolean): ToolCall | undefined {
  const event = events[index];
  const p = payloadOf(event);
  const result = at === undefined ? undefined : events[at];
  let content = STUB_RESULT;
  let isError = true;
  if (result) {
    const rp = payloadOf(result);
    content = contentText(rp.content, result, report);
    isError = rp.is_error === true;
  } else if (!safety) {
    return undefined;
  } else {
    reportStub(report, event, 'a stub result is written');
  }
  return { call_id: String(p.call_id ?? ''), name: String(p.name ?? ''), input: p.input ?? {}, event, result, content, is_error: isError };
}

/**
 * What a writer must know of the turns before it writes the first line, from a pass of its own
 * over the events (turnsOf, its reports muted: the writing pass makes them): whether any user turn
 * is written, the model of the last assistant turn that names one, and each user and assistant
 * turn's time (seconds; a number a turn, never its text).
 */
export function turnsOutline(events: readonly SpEvent[], options: { safety?: boolean } = {}): { hasUser: boolean; lastModel?: string; times: number[] } {
  const outline: { hasUser: boolean; lastModel?: string; times: number[] } = { hasUser: false, times: [] };
  for (const turn of turnsOf(events, () => {}, options)) {
    if (turn.role === 'user') {
      outline.hasUser = true;
      outline.times.push(turn.event.ts);
    } else if (turn.role === 'assistant') {
      if (turn.model !== undefined) outline.lastModel = turn.model;
      outline.times.push(turn.ts);
    }
  }
  return outline;
}

/** Calls of an assistant turn. */
export function callsOf(turn: AssistantTurn): ToolCall[] {
  return turn.parts.flatMap((p) => (p.kind === 'call' ? [p.call] : []));
}

export type { Json };
