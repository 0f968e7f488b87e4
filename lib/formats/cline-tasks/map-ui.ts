// UI messages → canonical events (docs/formats/cline-tasks.md §5). Each is `{ts, type: 'say' |
// 'ask', say | ask, text, images, …}`. Beside an API history every one is kept as meta (its kind in
// the key, the record whole), a checkpoint as a `checkpoint` event; when a task has no usable API
// history, the ones that carry the conversation (the task, the user's feedback, the agent's text,
// reasoning and completion, its questions) become messages instead.
import type { Diagnose } from '../../adapter/interface.js';
import type { ContentBlock } from '../../core/event.js';
import { isObject, str } from '../../core/json.js';
import { dataUrlImage } from './content.js';
import type { TaskStoreFlavor } from './flavor.js';
import type { Pending } from './map-api.js';

type Json = Record<string, unknown>;

/** `say.text`, `ask.followup` …: the kind a UI message's key names. */
function kindOf(record: Json): string {
  const type = str(record.type) ?? 'untyped';
  const sub = type === 'say' ? str(record.say) : type === 'ask' ? str(record.ask) : undefined;
  return sub ? `${type}.${sub}` : type;
}

/** One UI message beside an API history: a checkpoint, or meta with the record. */
export function uiRecord(flavor: TaskStoreFlavor, record: unknown, where: string, onDiagnostic?: Diagnose): Pending {
  if (!isObject(record)) {
    const shown = (JSON.stringify(record) ?? String(record)).slice(0, 200);
    onDiagnostic?.(where, `UI message is not an object: ${shown}`);
    return { type: 'meta', payload: { key: `${flavor.agent}.unparseable`, error: 'not an object', text: shown }, actor: 'system' };
  }
  const kind = kindOf(record);
  if (kind === 'say.checkpoint_created') {
    const payload: Json = { raw: record };
    if (str(record.lastCheckpointHash)) payload.hash = record.lastCheckpointHash;
    return { type: 'checkpoint', payload, actor: 'system' };
  }
  return { type: 'meta', payload: { key: `${flavor.agent}.ui.${kind}`, raw: record }, actor: 'system' };
}

function userContent(record: Json): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (typeof record.text === 'string' && record.text !== '') blocks.push({ type: 'text', text: record.text });
  const images = Array.isArray(record.images) ? record.images : [];
  for (const image of images) {
    const block = typeof image === 'string' ? dataUrlImage(image) : undefined;
    if (block) blocks.push(block);
  }
  return blocks;
}

/** The question an `ask.followup` carries: its JSON's `question`, else its text. */
function question(text: string): string {
  try {
    const value: unknown = JSON.parse(text);
    if (isObject(value) && typeof value.question === 'string') return value.question;
  } catch {
    // plain text
  }
  return text;
}

/** One UI message of a task without API history: the conversation where it carries it, else as beside one. */
export function uiConversation(flavor: TaskStoreFlavor, record: unknown, where: string, onDiagnostic?: Diagnose): Pending[] {
  if (!isObject(record)) return [uiRecord(flavor, record, where, onDiagnostic)];
  const kind = kindOf(record);
  const text = typeof record.text === 'string' ? record.text : '';
  const from: Json = { ui: kind };
  if (kind === 'say.task' || kind === 'say.user_feedback') {
    const content = userContent(record);
    if (content.length > 0) return [{ type: 'message.user', payload: { content, ...from }, actor: 'user' }];
  } else if ((kind === 'say.text' || kind === 'say.completion_result') && text !== '') {
    return [{ type: 'message.assistant', payload: { content: [{ type: 'text', text }], ...from }, actor: flavor.actor }];
  } else if (kind === 'ask.followup' && text !== '') {
    return [{ type: 'message.assistant', payload: { content: [{ type: 'text', text: question(text) }], ...from, followup: text }, actor: flavor.actor }];
  } else if (kind === 'say.reasoning' && text !== '') {
    return [{ type: 'message.thinking', payload: { text, visibility: 'visible', provider: flavor.agent }, actor: flavor.actor }];
  }
  return [uiRecord(flavor, record, where, onDiagnostic)];
}
