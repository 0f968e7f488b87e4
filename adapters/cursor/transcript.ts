// Cursor agent transcripts (docs/formats/cursor.md §9), the fallback when no store.db exists: JSONL
// `{role, message:{content:[text | tool_use{name, input}]}}`, `{type:"turn_ended"}`, `{type:"error"}`.
// No ids, times, models or results: tool calls get ids `<line>:<n>`, every event the file's mtime;
// tool_result / tool-call / tool-result variants are read too. Other records pass as meta with raw.
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { SessionEmitter } from '../../lib/core/emitter.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureLines, statSessionFile } from '../../lib/capture/read-position.js';
import { isObject, parseJsonObject, str, type Json } from '../../lib/core/json.js';
import { AGENT, unwrapQuery } from './paths.js';

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((v) => (isObject(v) && typeof v.text === 'string' ? v.text : typeof v === 'string' ? v : JSON.stringify(v))).join('\n');
  return value === undefined ? '' : JSON.stringify(value);
}

export async function* captureTranscript(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const path = ref.path;
  const { size, mtime: ts } = statSessionFile(path, 'Cursor agent transcript');
  const emitter = new SessionEmitter(AGENT, ref.native_id);
  // Transcript calls carry no ids: a result whose id names no call answers the oldest open call.
  const open: string[] = [];
  const known = new Set<string>();
  yield emitter.emit('session.start', { native_id: ref.native_id, source: 'agent-transcript', ...(ref.cwd ? { cwd: ref.cwd } : {}) }, ts, { actor: 'system', origin: { path } });
  for await (const line of captureLines(path, undefined, size, false)) {
    if (line.text.trim() === '') continue;
    const origin: Record<string, unknown> = { path, native_seq: line.number };
    if (options.raw) origin.raw = [line.text];
    const parsed = parseJsonObject(line.text);
    if (!parsed.value) {
      options.onDiagnostic?.(`${path}:${line.number}`, `not a JSON object (${parsed.reason ?? 'unparseable'}): ${line.text.slice(0, 120)}`);
      yield emitter.emit('meta', { key: 'cursor.unparseable', raw: line.text }, ts, { actor: 'system', origin });
      continue;
    }
    const record = parsed.value;
    const message = isObject(record.message) ? record.message : undefined;
    const role = str(record.role);
    if ((role === 'user' || role === 'assistant') && message) {
      const blocks: Json[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : Array.isArray(message.content) ? message.content.filter(isObject) : [];
      const content: Json[] = [];
      const calls: Json[] = [];
      const results: Json[] = [];
      const thinking: string[] = [];
      blocks.forEach((block, i) => {
        if (block.type === 'text' && typeof block.text === 'string' && unwrapQuery(block.text).trim() === '') return;
        if (block.type === 'text' && typeof block.text === 'string') content.push({ type: 'text', text: role === 'user' ? unwrapQuery(block.text) : block.text });
        else if (block.type === 'thinking' || block.type === 'reasoning') thinking.push(textOf(block.thinking ?? block.text));
        else if (block.type === 'tool_use' || block.type === 'tool-call' || block.type === 'tool_call') {
          const callId = str(block.id) ?? str(block.toolCallId) ?? `${line.number}:${i}`;
          known.add(callId);
          open.push(callId);
          calls.push({ call_id: callId, name: str(block.name) ?? str(block.toolName) ?? 'unknown', input: block.input ?? block.args ?? {} });
        } else if (block.type === 'tool_result' || block.type === 'tool-result') {
          const named = str(block.tool_use_id) ?? str(block.toolCallId);
          const callId = named !== undefined && known.has(named) ? named : open[0] ?? named ?? `${line.number}:${i}`;
          const at = open.indexOf(callId);
          if (at !== -1) open.splice(at, 1);
          const result: Json = { call_id: callId, content: textOf(block.content ?? block.result ?? block.output) };
          if (block.is_error === true || block.isError === true) result.is_error = true;
          results.push(result);
        } else content.push({ type: 'text', text: `[${String(block.type)}]` });
      });
      for (const text of thinking) yield emitter.emit('message.thinking', { text, visibility: text === '[REDACTED]' ? 'redacted' : 'visible' }, ts, { actor: `agent:${AGENT}`, level: 1, origin });
      for (const call of calls) content.push({ type: 'tool_use', call_id: call.call_id, name: call.name });
      if (content.length > 0) {
        if (role === 'user') yield emitter.emit('message.user', { content }, ts, { actor: 'user', level: 0, origin });
        else yield emitter.emit('message.assistant', { content }, ts, { actor: `agent:${AGENT}`, level: 0, origin });
      }
      for (const call of calls) yield emitter.emit('tool.call', call, ts, { actor: `agent:${AGENT}`, level: 0, origin });
      for (const result of results) yield emitter.emit('tool.result', result, ts, { actor: 'tool', level: 0, origin });
      continue;
    }
    const type = str(record.type);
    yield emitter.emit('meta', { key: `cursor.${type ?? 'untyped'}`, raw: record }, ts, { actor: 'system', origin });
  }
}
