// API history messages → canonical events (docs/formats/cline-tasks.md §3, §4). Both shapes the
// files hold are read: Anthropic Messages (`tool_use`, `tool_result`, `thinking`, `image` blocks)
// and the AI SDK parts of Roo's versioned files (`tool-call`, a `tool` role with `tool-result`
// parts, `reasoning`, top-level encrypted reasoning items). Tool use written as XML-style text by
// older versions becomes tool calls and results too (xml-tools.ts).
import type { Diagnose } from '../../adapter/interface.js';
import type { Actor, ContentBlock } from '../../core/event.js';
import { isObject, rest, str } from '../../core/json.js';
import { imageBlock, isEnvironmentDetails, resultContent, unwrapUserText } from './content.js';
import type { TaskStoreFlavor } from './flavor.js';
import { findTextToolCall, textToolResultHeader } from './xml-tools.js';

type Json = Record<string, unknown>;

export interface Pending {
  type: string;
  payload: Json;
  actor: Actor;
}

/** The fields of a message the mapping reads; the rest (Roo's ts, condense and truncation marks …) go into `extra`. */
const MESSAGE_KEYS = ['role', 'content', 'ts', 'id'];

export class ApiMapper {
  /** Text-mode tool calls of the last assistant message still waiting for their result. */
  private waiting: { id: string; name: string }[] = [];

  constructor(
    private readonly flavor: TaskStoreFlavor,
    private readonly taskId: string,
    private readonly path: string,
    private readonly onDiagnostic?: Diagnose,
  ) {}

  private meta(key: string, raw: unknown, actor: Actor = 'system'): Pending {
    return { type: 'meta', payload: { key: `${this.flavor.agent}.${key}`, raw }, actor };
  }

  /** Events of message `number` (1-based); never throws on bad input (a bad message becomes meta). */
  message(record: unknown, number: number): Pending[] {
    if (!isObject(record)) {
      const shown = (JSON.stringify(record) ?? String(record)).slice(0, 200);
      this.onDiagnostic?.(`${this.path}:${number}`, `message ${number} is not an object: ${shown}`);
      return [{ type: 'meta', payload: { key: `${this.flavor.agent}.unparseable`, error: 'not an object', text: shown }, actor: 'system' }];
    }
    // Roo's encrypted reasoning items stand alone in the list, without a role.
    if (record.role === undefined && record.type === 'reasoning') return [this.reasoningItem(record)];
    const content = typeof record.content === 'string' ? [{ type: 'text', text: record.content }] : Array.isArray(record.content) ? record.content : undefined;
    let out: Pending[];
    if (!content) out = [this.meta(`message.${str(record.role) ?? 'untyped'}`, record)];
    else if (record.role === 'user') out = this.user(content);
    else if (record.role === 'assistant') out = this.assistant(content, record, number);
    else if (record.role === 'tool') out = content.map((part) => (isObject(part) && part.type === 'tool-result' ? this.result(part) : this.meta('block.untyped', part, 'tool')));
    else out = [this.meta(`message.${str(record.role) ?? 'untyped'}`, record)];
    if (out.length === 0) return [this.meta(`empty-${str(record.role) ?? 'message'}`, record)];
    const extra = rest(record, MESSAGE_KEYS);
    if (extra && out[0].type !== 'meta') out[0].payload.extra = extra;
    return out;
  }

  private reasoningItem(record: Json): Pending {
    const summary = Array.isArray(record.summary) ? record.summary.filter(isObject).map((s) => str(s.text) ?? '').join('\n') : '';
    const payload: Json = { text: summary, visibility: typeof record.encrypted_content === 'string' ? 'encrypted' : 'summary', provider: this.flavor.agent };
    if (typeof record.encrypted_content === 'string') payload.opaque = record.encrypted_content;
    if (str(record.id)) payload.message_id = record.id;
    return { type: 'message.thinking', payload, actor: this.flavor.actor };
  }

  /** A tool result in either shape: Anthropic `tool_result` {tool_use_id, content, is_error}, AI SDK `tool-result` {toolCallId, toolName, output}. */
  private result(block: Json): Pending {
    const callId = str(block.tool_use_id) ?? str(block.toolCallId);
    if (!callId) return this.meta('tool-result-without-call', block, 'tool');
    const native = block.type === 'tool-result' ? block.output : block.content;
    const { content, failed } = resultContent(native);
    const payload: Json = { call_id: callId, content, is_error: block.is_error === true || failed };
    if (str(block.toolName)) payload.name = block.toolName;
    if (typeof native !== 'string' && native !== undefined) payload.structured = native;
    const extra = rest(block, ['type', 'tool_use_id', 'toolCallId', 'toolName', 'content', 'output', 'is_error']);
    if (extra) payload.extra = extra;
    this.waiting = this.waiting.filter((w) => w.id !== callId);
    return { type: 'tool.result', payload, actor: 'tool' };
  }

  private user(content: unknown[]): Pending[] {
    const results: Pending[] = [];
    const notes: Pending[] = [];
    const blocks: ContentBlock[] = [];
    const wrappers: string[] = [];
    // A text-mode result open for more blocks (its text may span several, images too).
    let open: { id: string; name: string; blocks: ContentBlock[] } | undefined;
    const close = (): void => {
      if (!open) return;
      const texts = open.blocks.filter((b) => b.type === 'text').map((b) => String((b as { text?: unknown }).text));
      const body: string | ContentBlock[] = open.blocks.every((b) => b.type === 'text') ? texts.join('\n') : open.blocks;
      results.push({ type: 'tool.result', payload: { call_id: open.id, name: open.name, content: body, is_error: /^(The user denied|The tool execution failed|Error)/.test(texts[0] ?? '') }, actor: 'tool' });
      open = undefined;
    };
    for (const block of content) {
      if (!isObject(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string') {
        const header = this.waiting.length > 0 ? textToolResultHeader(block.text) : undefined;
        if (header) {
          close();
          const at = Math.max(0, this.waiting.findIndex((w) => w.name === header.name));
          const [call] = this.waiting.splice(at, 1);
          open = { ...call, blocks: header.rest.trim() !== '' ? [{ type: 'text', text: header.rest }] : [] };
        } else if (isEnvironmentDetails(block.text)) {
          close();
          notes.push({ type: 'meta', payload: { key: `${this.flavor.agent}.environment_details`, text: block.text }, actor: 'system' });
        } else if (open) open.blocks.push({ type: 'text', text: block.text });
        else {
          const plain = unwrapUserText(block.text);
          if (plain.wrapper) wrappers.push(plain.wrapper);
          blocks.push({ type: 'text', text: plain.text });
        }
      } else if (block.type === 'image' || block.type === 'file') {
        const image = imageBlock(block);
        if (image && open) open.blocks.push(image);
        else if (image) blocks.push(image);
        else notes.push(this.meta(`block.${block.type}`, block, 'user'));
      } else if (block.type === 'tool_result' || block.type === 'tool-result') {
        close();
        results.push(this.result(block));
      } else notes.push(this.meta(`block.${str(block.type) ?? 'untyped'}`, block, 'user'));
    }
    close();
    const out = [...results];
    if (blocks.length > 0) {
      const payload: Json = { content: blocks };
      if (wrappers.length > 0) payload.wrappers = wrappers;
      out.push({ type: 'message.user', payload, actor: 'user' });
    }
    return [...out, ...notes];
  }

  private assistant(content: unknown[], record: Json, number: number): Pending[] {
    const out: Pending[] = [];
    const messageId = str(record.id);
    const withId = (p: Json): Json => (messageId ? { ...p, message_id: messageId } : p);
    const texts: ContentBlock[] = [];
    const flush = (): void => {
      if (texts.length > 0) out.push({ type: 'message.assistant', payload: withId({ content: texts.splice(0) }), actor: this.flavor.actor });
    };
    const call = (id: string, name: string, input: unknown, extra?: Json): void => {
      flush();
      const payload: Json = withId({ call_id: id, name, input: input ?? {} });
      if (extra) payload.extra = extra;
      out.push({ type: 'tool.call', payload, actor: this.flavor.actor });
      // The task's final answer is the completion tool's input, shown to the user as the agent's
      // message: it is told as one too, so a reader of the conversation sees how the task ended.
      if (name === 'attempt_completion' && isObject(input) && typeof input.result === 'string' && input.result.trim() !== '') {
        out.push({ type: 'message.assistant', payload: withId({ content: [{ type: 'text', text: input.result }], completion_of: id }), actor: this.flavor.actor });
      }
    };
    this.waiting = [];
    let textCalls = 0;
    for (const block of content) {
      if (!isObject(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string') {
        // Older versions: the tool call is an XML-style element in the text; its id is made up (task, message, place).
        let text = block.text;
        // Older prompts had the model think aloud in a leading <thinking> element of its text.
        const aloud = /^\s*<thinking>([\s\S]*?)<\/thinking>\s*/.exec(text);
        if (aloud) {
          flush();
          out.push({ type: 'message.thinking', payload: withId({ text: aloud[1].trim(), visibility: 'visible', provider: this.flavor.agent, written_as: 'text' }), actor: this.flavor.actor });
          text = text.slice(aloud[0].length);
        }
        for (let found = findTextToolCall(text, this.flavor.tools); found; found = findTextToolCall(text, this.flavor.tools)) {
          if (found.before !== '') texts.push({ type: 'text', text: found.before });
          const id = `${this.taskId}-${number}-text-${++textCalls}`;
          call(id, found.name, found.input, { written_as: 'text' });
          this.waiting.push({ id, name: found.name });
          text = found.after;
        }
        if (text !== '') texts.push({ type: 'text', text });
      } else if (block.type === 'tool_use' && str(block.id) && str(block.name)) {
        call(String(block.id), String(block.name), block.input, rest(block, ['type', 'id', 'name', 'input']));
        // A native call can still be answered in text (`[read_file for 'a.ts'] Result:`), as a
        // recorded public task shows (docs/formats/cline-tasks.md §4); a tool_result block clears it.
        this.waiting.push({ id: String(block.id), name: String(block.name) });
      } else if (block.type === 'tool-call' && str(block.toolCallId) && str(block.toolName)) {
        call(String(block.toolCallId), String(block.toolName), block.input ?? block.args, rest(block, ['type', 'toolCallId', 'toolName', 'input', 'args']));
        this.waiting.push({ id: String(block.toolCallId), name: String(block.toolName) });
      } else if ((block.type === 'thinking' || block.type === 'reasoning') && typeof (block.thinking ?? block.text) === 'string') {
        flush();
        const payload: Json = withId({ text: String(block.thinking ?? block.text), visibility: 'visible', provider: this.flavor.agent });
        if (str(block.signature)) payload.signature = block.signature;
        const extra = rest(block, ['type', 'thinking', 'text', 'signature']);
        if (extra) payload.extra = extra;
        out.push({ type: 'message.thinking', payload, actor: this.flavor.actor });
      } else if (block.type === 'redacted_thinking' && typeof block.data === 'string') {
        flush();
        out.push({ type: 'message.thinking', payload: withId({ text: '', visibility: 'redacted', opaque: block.data, provider: this.flavor.agent }), actor: this.flavor.actor });
      } else {
        flush();
        out.push({ type: 'meta', payload: withId({ key: `${this.flavor.agent}.block.${str(block.type) ?? 'untyped'}`, raw: block }), actor: this.flavor.actor });
      }
    }
    flush();
    return out;
  }
}
