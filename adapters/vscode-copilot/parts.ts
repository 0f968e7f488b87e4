// One chat request as canonical events (docs/formats/vscode-copilot.md §4–§5). The user's message
// comes from `message`; the answer from the Copilot extension's tool-calling rounds when the result
// keeps them (`result.metadata.toolCallRounds` and `toolCallResults`: what the model said and
// called, with the ids it used), else from the response parts the panel showed. When the rounds
// tell the answer, the panel's parts are kept whole in one meta event so nothing is told twice.
import { basename } from 'node:path';
import type { Actor } from '../../lib/core/event.js';
import { isObject, rest, str, type Json } from '../../lib/core/json.js';
import { AGENT } from './paths.js';

export interface Pending {
  type: string;
  payload: Json;
  actor: Actor;
}

export const ASSISTANT: Actor = `agent:${AGENT}`;
/** Request fields the mapping turns into event fields; the others go to the user message's extra. */
const MAPPED_REQUEST_KEYS = ['requestId', 'message', 'response', 'result', 'modelId', 'timestamp'];

/** A markdown string's text: `{value}` (IMarkdownString), `{kind: 'markdownContent', content}` or a plain string. */
export function markdownText(part: unknown): string | undefined {
  if (typeof part === 'string') return part;
  if (!isObject(part)) return undefined;
  if (part.kind === 'markdownContent') return markdownText(part.content);
  if (part.kind === undefined && typeof part.value === 'string') return part.value;
  return undefined;
}

/** The text of the user's message: a string in the oldest files, `{text, parts}` since. */
export function requestText(request: Json): string {
  const message = request.message;
  if (typeof message === 'string') return message;
  if (isObject(message) && typeof message.text === 'string') return message.text;
  return '';
}

/** A tool result as the extension keeps it (`{content: [{value}]}`), as text. */
function resultText(result: unknown): string {
  const content = isObject(result) && Array.isArray(result.content) ? result.content : [result];
  return content
    .map((part) => (isObject(part) && typeof part.value === 'string' ? part.value : typeof part === 'string' ? part : JSON.stringify(part)))
    .join('\n');
}

/** A call's arguments: the JSON object the model sent, else the string kept as it was. */
function callInput(args: unknown): Json {
  if (isObject(args)) return args;
  if (typeof args === 'string') {
    try {
      const parsed = JSON.parse(args) as unknown;
      if (isObject(parsed)) return parsed;
    } catch {
      // not JSON: kept as the string below
    }
    return { arguments: args };
  }
  return {};
}

function thinkingText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string').join('');
  if (isObject(value)) return thinkingText(value.text ?? value.value);
  return undefined;
}

export function userMessage(request: Json): Pending {
  const payload: Json = { content: [{ type: 'text', text: requestText(request) }] };
  if (str(request.requestId)) payload.message_id = request.requestId;
  const extra = rest(request, MAPPED_REQUEST_KEYS);
  if (isObject(request.message) && Array.isArray(request.message.parts)) (payload.extra = extra ?? {}).message_parts = request.message.parts;
  else if (extra) payload.extra = extra;
  return { type: 'message.user', payload, actor: 'user' };
}

/** The tool-calling rounds of a request's result, when the extension kept them. */
export function roundsOf(request: Json): Json[] | undefined {
  const metadata = isObject(request.result) && isObject(request.result.metadata) ? request.result.metadata : undefined;
  const rounds = Array.isArray(metadata?.toolCallRounds) ? metadata.toolCallRounds.filter(isObject) : [];
  return rounds.length > 0 ? rounds : undefined;
}

/** The answer from the rounds: per round its thinking, its text and its calls, each call's result after them. */
export function fromRounds(request: Json, rounds: Json[]): Pending[] {
  const metadata = (request.result as Json).metadata as Json;
  const results = isObject(metadata.toolCallResults) ? metadata.toolCallResults : {};
  const model = str(request.modelId);
  const out: Pending[] = [];
  rounds.forEach((round, r) => {
    const roundId = str(round.id);
    const first = out.length;
    const thinking = thinkingText(round.thinking);
    if (thinking) out.push({ type: 'message.thinking', payload: { text: thinking, ...(roundId ? { message_id: roundId } : {}) }, actor: ASSISTANT });
    if (typeof round.response === 'string' && round.response !== '') {
      const payload: Json = { content: [{ type: 'text', text: round.response }] };
      if (roundId) payload.message_id = roundId;
      if (model) payload.model = model;
      out.push({ type: 'message.assistant', payload, actor: ASSISTANT });
    }
    const calls = Array.isArray(round.toolCalls) ? round.toolCalls : [];
    const ids: string[] = [];
    calls.forEach((call, c) => {
      if (!isObject(call) || !str(call.name)) {
        out.push({ type: 'meta', payload: { key: `${AGENT}.tool-call-without-name`, raw: call }, actor: ASSISTANT });
        return;
      }
      const id = str(call.id) ?? `${str(request.requestId) ?? 'request'}-round${r}-call${c}`;
      ids.push(id);
      const payload: Json = { call_id: id, name: call.name, input: callInput(call.arguments) };
      if (roundId) payload.message_id = roundId;
      out.push({ type: 'tool.call', payload, actor: ASSISTANT });
    });
    // The round's other fields (toolInputRetry, summary …) ride on its first event, or stand alone.
    const extra = rest(round, ['id', 'response', 'toolCalls', 'thinking']);
    if (extra && out.length > first) out[first].payload.round_extra = extra;
    else if (extra) out.push({ type: 'meta', payload: { key: `${AGENT}.round`, raw: extra }, actor: ASSISTANT });
    for (const id of ids) {
      if (!Object.prototype.hasOwnProperty.call(results, id)) continue;
      out.push({ type: 'tool.result', payload: { call_id: id, content: resultText(results[id]) }, actor: 'tool' });
    }
  });
  return out;
}

/** The text a part adds to the answer where it stands (an inline reference's name), if any. */
function inlineText(part: Json): string | undefined {
  if (part.kind !== 'inlineReference') return undefined;
  if (str(part.name)) return part.name as string;
  const target = isObject(part.inlineReference) ? part.inlineReference : undefined;
  const path = str(target?.path) ?? (isObject(target?.uri) ? str(target.uri.path) : undefined);
  return path ? basename(path) : '';
}

/** A serialized tool invocation as a call and, once complete, its result (the panel keeps no arguments). */
function invocation(part: Json): Pending[] {
  const id = str(part.toolCallId);
  const name = str(part.toolId);
  if (!id || !name) return [{ type: 'meta', payload: { key: `${AGENT}.toolInvocationSerialized`, raw: part }, actor: ASSISTANT }];
  const input = isObject(part.toolSpecificData) ? part.toolSpecificData : {};
  const extra = rest(part, ['kind', 'toolCallId', 'toolId', 'toolSpecificData']);
  const out: Pending[] = [{ type: 'tool.call', payload: { call_id: id, name, input, ...(extra ? { extra } : {}) }, actor: ASSISTANT }];
  if (part.isComplete === true) {
    const said = markdownText(part.pastTenseMessage) ?? markdownText(part.invocationMessage) ?? '';
    const details = part.resultDetails !== undefined ? `\n${JSON.stringify(part.resultDetails)}` : '';
    out.push({ type: 'tool.result', payload: { call_id: id, content: said + details, ...(part.isConfirmed === false ? { is_error: true } : {}) }, actor: 'tool' });
  }
  return out;
}

/** The answer from the panel's parts, in order: text runs, thinking, tool invocations, the rest as meta. */
export function fromParts(request: Json): Pending[] {
  const parts = Array.isArray(request.response) ? request.response : request.response === undefined ? [] : [request.response];
  const out: Pending[] = [];
  let text = '';
  const flush = (): void => {
    if (text === '') return;
    const payload: Json = { content: [{ type: 'text', text }] };
    if (str(request.responseId)) payload.message_id = request.responseId;
    if (str(request.modelId)) payload.model = request.modelId;
    out.push({ type: 'message.assistant', payload, actor: ASSISTANT });
    text = '';
  };
  for (const part of parts) {
    const markdown = markdownText(part);
    if (markdown !== undefined) {
      text += markdown;
      continue;
    }
    if (!isObject(part)) {
      out.push({ type: 'meta', payload: { key: `${AGENT}.response-part`, raw: part }, actor: ASSISTANT });
      continue;
    }
    const inline = inlineText(part);
    if (inline !== undefined) {
      text += inline;
      continue;
    }
    if (part.kind === 'thinking') {
      const value = thinkingText(part.value);
      flush();
      if (value) out.push({ type: 'message.thinking', payload: { text: value }, actor: ASSISTANT });
      else out.push({ type: 'meta', payload: { key: `${AGENT}.thinking`, raw: part }, actor: ASSISTANT });
      continue;
    }
    flush();
    if (part.kind === 'toolInvocationSerialized') out.push(...invocation(part));
    else out.push({ type: 'meta', payload: { key: `${AGENT}.${typeof part.kind === 'string' ? part.kind.slice(0, 64) : 'response-part'}`, raw: part }, actor: ASSISTANT });
  }
  flush();
  return out;
}

/** What the result says besides the rounds: timings, errors, other metadata (one meta event), if anything. */
export function resultNote(request: Json, roundsUsed: boolean): Pending | undefined {
  if (!isObject(request.result)) return undefined;
  const result: Json = { ...request.result };
  if (roundsUsed && isObject(result.metadata)) {
    const metadata = rest(result.metadata, ['toolCallRounds', 'toolCallResults']);
    if (metadata) result.metadata = metadata;
    else delete result.metadata;
  }
  if (Object.keys(result).length === 0) return undefined;
  const error = isObject(result.errorDetails) ? str(result.errorDetails.message) : undefined;
  return { type: 'meta', payload: { key: `${AGENT}.result`, raw: result, ...(error ? { error } : {}) }, actor: 'system' };
}
