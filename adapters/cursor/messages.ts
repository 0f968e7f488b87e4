// Canonical events from Cursor's AI-SDK-style messages (CLI `store.db` leaves, docs/formats/cursor.md §7):
// `{role, content: string | Block[]}` with text / reasoning / tool-call / tool-result / image blocks,
// or the OpenAI shape (`tool_calls`, role `tool` + `tool_call_id`). `system` leaves and the first
// `<user_info>` environment block are not conversation: kept as meta without their text.
import type { SessionEmitter } from '../../lib/core/emitter.js';
import type { SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { AGENT, unwrapQuery } from './paths.js';

export interface LeafContext {
  emitter: SessionEmitter;
  ts: number;
  model?: string;
  origin: Record<string, unknown>;
}

function resultText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}

function parseArgs(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? {};
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

export function* leafEvents(leaf: Json, ctx: LeafContext): Generator<SpEvent> {
  const { emitter, ts, origin } = ctx;
  const role = str(leaf.role);
  const blocks: Json[] = typeof leaf.content === 'string' ? [{ type: 'text', text: leaf.content }] : Array.isArray(leaf.content) ? leaf.content.filter(isObject) : [];
  if (role === 'system') {
    yield emitter.emit('meta', { key: 'cursor.system-prompt', dropped: 'text' }, ts, { actor: 'system', origin });
    return;
  }
  if (role === 'user') {
    const texts = blocks.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string);
    if (texts.length > 0 && texts.every((t) => /^\s*<user_info>/.test(t))) {
      yield emitter.emit('meta', { key: 'cursor.user-info', dropped: 'text' }, ts, { actor: 'system', origin });
      return;
    }
    const content: Json[] = [];
    for (const block of blocks) {
      if (block.type === 'text' && typeof block.text === 'string') content.push({ type: 'text', text: unwrapQuery(block.text) });
      else if (block.type === 'image') content.push({ type: 'text', text: '[image]' });
      else if (block.type === 'tool-result') yield* toolResult(block, ctx);
    }
    if (content.length > 0) yield emitter.emit('message.user', { content, ...(str(leaf.id) ? { message_id: leaf.id } : {}) }, ts, { actor: 'user', level: 0, origin });
    return;
  }
  if (role === 'assistant') {
    const messageId = str(leaf.id);
    const texts: string[] = [];
    const calls: Json[] = [];
    for (const block of blocks) {
      if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
      else if (block.type === 'reasoning' && typeof block.text === 'string') {
        const payload: Json = { text: block.text, visibility: block.text === '' ? 'encrypted' : 'visible' };
        if (str(block.signature)) payload.signature = block.signature;
        yield emitter.emit('message.thinking', payload, ts, { actor: `agent:${AGENT}`, level: 1, origin });
      } else if (block.type === 'tool-call') calls.push({ call_id: str(block.toolCallId) ?? '', name: str(block.toolName) ?? 'unknown', input: parseArgs(block.args ?? block.input) });
    }
    if (Array.isArray(leaf.tool_calls)) {
      for (const call of leaf.tool_calls.filter(isObject)) {
        const fn = isObject(call.function) ? call.function : {};
        calls.push({ call_id: str(call.id) ?? '', name: str(fn.name) ?? 'unknown', input: parseArgs(fn.arguments) });
      }
    }
    const content: Json[] = texts.filter((t) => t !== '').map((text) => ({ type: 'text', text }));
    for (const call of calls) content.push({ type: 'tool_use', call_id: call.call_id, name: call.name });
    if (content.length > 0) {
      const payload: Json = { content };
      if (messageId) payload.message_id = messageId;
      if (ctx.model) payload.model = ctx.model;
      yield emitter.emit('message.assistant', payload, ts, { actor: `agent:${AGENT}`, level: 0, origin });
    }
    for (const call of calls) yield emitter.emit('tool.call', call, ts, { actor: `agent:${AGENT}`, level: 0, origin });
    return;
  }
  if (role === 'tool') {
    if (typeof leaf.tool_call_id === 'string') {
      yield emitter.emit('tool.result', { call_id: leaf.tool_call_id, content: resultText(leaf.content) }, ts, { actor: 'tool', level: 0, origin });
      return;
    }
    for (const block of blocks) if (block.type === 'tool-result') yield* toolResult(block, ctx);
    return;
  }
  yield emitter.emit('meta', { key: `cursor.leaf.${role ?? 'unknown'}`, raw: leaf }, ts, { actor: 'system', origin });
}

function* toolResult(block: Json, ctx: LeafContext): Generator<SpEvent> {
  const payload: Json = { call_id: str(block.toolCallId) ?? '', content: resultText(block.result ?? block.output ?? block.error) };
  if (block.isError === true || block.error !== undefined) payload.is_error = true;
  if (str(block.toolName)) payload.name = block.toolName;
  yield ctx.emitter.emit('tool.result', payload, ctx.ts, { actor: 'tool', level: 0, origin: ctx.origin });
}
