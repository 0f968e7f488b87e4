// One Auggie exchange (an entry of `chatHistory`, docs/formats/auggie.md §3) → the events it holds,
// in order: the request side (the user's text, the tool results the client sends back), then the
// response side (text, thinking, tool uses). Pure: no I/O, never throws on bad input; what it
// cannot type becomes `meta` with the raw node.
import { toEpochSeconds, type Actor, type ContentBlock } from '../../lib/core/event.js';
import { isObject, rest, str, type Json } from '../../lib/core/json.js';

export const ASSISTANT: Actor = 'agent:auggie';

/** Request node types the client writes (§3): 0 text, 1 tool result, 4 IDE state (2 image, 8 file attachment). */
export const REQUEST_TEXT = 0;
export const REQUEST_TOOL_RESULT = 1;
export const REQUEST_IDE_STATE = 4;
/** Response node types: 0 text, 5 tool use (8 thinking, 10 token usage: read from the client's handling, not recorded). */
export const RESPONSE_TEXT = 0;
export const RESPONSE_TOOL_USE = 5;
export const RESPONSE_THINKING = 8;
export const RESPONSE_TOKEN_USAGE = 10;

export interface Pending {
  type: string;
  payload: Json;
  actor: Actor;
  /** The node's own time (epoch seconds), when it has one. */
  ts?: number;
}

/** The entry fields read into events; everything else of the entry is kept on its first event. */
const ENTRY_KEYS = ['exchange'];
const EXCHANGE_KEYS = ['request_message', 'response_text', 'request_id', 'request_nodes', 'response_nodes'];

function nodesOf(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** A node's fields beyond the ones read (kept with the event, never dropped silently). */
function nodeExtra(node: Json, read: string[]): Json | undefined {
  return rest(node, ['id', 'type', ...read]);
}

function meta(key: string, raw: unknown, actor: Actor): Pending {
  return { type: 'meta', payload: { key, raw }, actor };
}

/** The user's words and the tool results of a request; the IDE state (cwd, workspace folders) kept apart. */
function requestSide(exchange: Json): { out: Pending[]; ideState: Json[] } {
  const out: Pending[] = [];
  const ideState: Json[] = [];
  const texts: ContentBlock[] = [];
  const textExtras: Json[] = [];
  // The user's words go where their first node is: after the results a request carries before them.
  let userAt: number | undefined;
  for (const node of nodesOf(exchange.request_nodes)) {
    if (node.type === REQUEST_TEXT && isObject(node.text_node) && typeof node.text_node.content === 'string') {
      userAt ??= out.length;
      texts.push({ type: 'text', text: node.text_node.content });
      const extra = { ...nodeExtra(node, ['text_node']), ...rest(node.text_node, ['content']) };
      if (Object.keys(extra).length > 0) textExtras.push(extra);
    } else if (node.type === REQUEST_TOOL_RESULT && isObject(node.tool_result_node) && str(node.tool_result_node.tool_use_id)) {
      const r = node.tool_result_node;
      const p: Json = { call_id: r.tool_use_id, content: typeof r.content === 'string' ? r.content : JSON.stringify(r.content ?? ''), is_error: r.is_error === true };
      const extra = rest(r, ['tool_use_id', 'content', 'is_error']);
      if (extra) p.extra = extra;
      const outer = nodeExtra(node, ['tool_result_node']);
      if (outer) p.node_extra = outer;
      out.push({ type: 'tool.result', payload: p, actor: 'tool', ts: toEpochSeconds(r.start_time_ms) });
    } else if (node.type === REQUEST_IDE_STATE && isObject(node.ide_state_node)) {
      ideState.push(node.ide_state_node);
    } else {
      out.push(meta(`auggie.request-node.${String(node.type ?? 'untyped')}`, node, 'user'));
    }
  }
  // A request_message without a text node (not seen in recordings): those are the user's words.
  if (texts.length === 0 && typeof exchange.request_message === 'string' && exchange.request_message !== '') {
    texts.push({ type: 'text', text: exchange.request_message });
  }
  const user: Pending = { type: 'message.user', payload: textExtras.length > 0 ? { content: texts, node_extra: textExtras } : { content: texts }, actor: 'user' };
  if (texts.length > 0) out.splice(userAt ?? out.length, 0, user);
  return { out, ideState };
}

/** The answer: text runs, thinking and tool uses in the order the nodes came. */
function responseSide(exchange: Json, messageId: string | undefined): Pending[] {
  const out: Pending[] = [];
  const withId = (p: Json): Json => (messageId ? { ...p, message_id: messageId } : p);
  const nodes = nodesOf(exchange.response_nodes);
  let texts: ContentBlock[] = [];
  let textExtras: Json[] = [];
  let textTs: number | undefined;
  const flush = (): void => {
    if (texts.length > 0) out.push({ type: 'message.assistant', payload: withId(textExtras.length > 0 ? { content: texts, node_extra: textExtras } : { content: texts }), actor: ASSISTANT, ts: textTs });
    texts = [];
    textExtras = [];
    textTs = undefined;
  };
  for (const node of nodes) {
    const ts = toEpochSeconds(node.timestamp_ms);
    if (node.type === RESPONSE_TEXT && typeof node.content === 'string') {
      if (node.content !== '') texts.push({ type: 'text', text: node.content });
      const extra = nodeExtra(node, ['content', 'timestamp_ms']);
      if (extra) textExtras.push(extra);
      textTs ??= ts;
    } else if (node.type === RESPONSE_TOOL_USE && isObject(node.tool_use) && str(node.tool_use.tool_use_id) && str(node.tool_use.tool_name)) {
      flush();
      const use = node.tool_use;
      const p: Json = withId({ call_id: use.tool_use_id, name: use.tool_name, input: parseInput(use.input_json) });
      const extra = rest(use, ['tool_use_id', 'tool_name', 'input_json']);
      if (extra) p.extra = extra;
      if (typeof use.input_json === 'string') p.input_json = use.input_json;
      const outer = nodeExtra(node, ['content', 'tool_use', 'timestamp_ms']);
      if (outer) p.node_extra = outer;
      out.push({ type: 'tool.call', payload: p, actor: ASSISTANT, ts });
    } else if (node.type === RESPONSE_THINKING && isObject(node.thinking)) {
      flush();
      const t = node.thinking;
      const text = str(t.content) ?? str(t.summary) ?? '';
      const p: Json = withId({ text, visibility: str(t.content) ? 'visible' : str(t.summary) ? 'summary' : 'encrypted', provider: 'augment' });
      if (str(t.encrypted_content)) p.opaque = t.encrypted_content;
      const extra = { ...nodeExtra(node, ['thinking', 'content', 'timestamp_ms']), ...rest(t, ['content', 'summary', 'encrypted_content']) };
      if (Object.keys(extra).length > 0) p.node_extra = extra;
      out.push({ type: 'message.thinking', payload: p, actor: ASSISTANT, ts });
    } else {
      flush();
      out.push(meta(`auggie.response-node.${String(node.type ?? 'untyped')}`, node, ASSISTANT));
    }
  }
  flush();
  // No nodes but a response_text: the answer is that text.
  if (nodes.length === 0 && typeof exchange.response_text === 'string' && exchange.response_text !== '') {
    out.push({ type: 'message.assistant', payload: withId({ content: [{ type: 'text', text: exchange.response_text }] }), actor: ASSISTANT });
  }
  return out;
}

/** A tool use's `input_json` as the value it encodes; text that is not JSON stays a string. */
export function parseInput(inputJson: unknown): unknown {
  if (typeof inputJson !== 'string') return inputJson ?? {};
  try {
    return JSON.parse(inputJson) as unknown;
  } catch {
    return inputJson;
  }
}

/** The events of one `chatHistory` entry (an object); empty only when it holds nothing at all. */
export function exchangeEvents(entry: Json): Pending[] {
  const exchange = isObject(entry.exchange) ? entry.exchange : undefined;
  if (!exchange) return [meta('auggie.entry-without-exchange', entry, 'system')];
  const messageId = str(exchange.request_id);
  const { out: request, ideState } = requestSide(exchange);
  const out = [...request, ...responseSide(exchange, messageId)];
  if (out.length === 0) return [meta('auggie.empty-exchange', entry, 'system')];
  // The entry's own fields (completed, sequenceId, finishedAt, changedFiles, source …), the request
  // id and the IDE state ride on the exchange's first event.
  const first = out[0].payload;
  const entryFields = rest(entry, ENTRY_KEYS);
  if (entryFields) first.exchange_fields = entryFields;
  const exchangeExtra = rest(exchange, EXCHANGE_KEYS);
  if (exchangeExtra) first.extra = exchangeExtra;
  if (messageId) first.request_id = messageId;
  if (ideState.length > 0) first.ide_state = ideState.length === 1 ? ideState[0] : ideState;
  return out;
}

/** The cwd the client recorded: the terminal's working directory, else the first workspace folder. */
export function cwdOf(entries: unknown[]): string | undefined {
  for (const entry of entries) {
    if (!isObject(entry) || !isObject(entry.exchange)) continue;
    for (const node of nodesOf(entry.exchange.request_nodes)) {
      if (node.type !== REQUEST_IDE_STATE || !isObject(node.ide_state_node)) continue;
      const state = node.ide_state_node;
      const terminal = isObject(state.current_terminal) ? str(state.current_terminal.current_working_directory) : undefined;
      if (terminal) return terminal;
      const folder = Array.isArray(state.workspace_folders) ? state.workspace_folders.find(isObject) : undefined;
      const root = str(folder?.repository_root) ?? str(folder?.folder_root);
      if (root) return root;
    }
  }
  return undefined;
}
