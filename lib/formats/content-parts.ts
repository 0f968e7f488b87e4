// Gemini API `Content`/`Part` shapes ↔ canonical content. Gemini CLI and Qwen Code store message
// content as Gemini Parts (docs/formats/gemini.md §1), so both adapters read and write them here.
import type { ContentBlock } from '../core/event.js';
import { isObject, type Json } from '../core/json.js';

/** A PartListUnion (a string, one Part, or a list of strings and Parts) as a list of Part objects. */
export function partList(content: unknown): Json[] {
  if (content === undefined || content === null) return [];
  const items = Array.isArray(content) ? content : [content];
  const out: Json[] = [];
  for (const item of items) {
    if (typeof item === 'string') out.push({ text: item });
    else if (isObject(item)) out.push(item);
  }
  return out;
}

/** One Part, classified. `other` keeps a part this mapping has no canonical block for. */
export type PartKind =
  | { kind: 'text'; text: string }
  | { kind: 'thought'; text: string; signature?: string }
  | { kind: 'image'; block: ContentBlock }
  | { kind: 'call'; id?: string; name: string; args: unknown; part: Json }
  | { kind: 'response'; id?: string; name?: string; response: unknown; part: Json }
  | { kind: 'other'; part: Json };

export function classifyPart(part: Json): PartKind {
  if (isObject(part.functionCall)) {
    const call = part.functionCall;
    return { kind: 'call', id: typeof call.id === 'string' ? call.id : undefined, name: typeof call.name === 'string' ? call.name : '', args: call.args ?? {}, part };
  }
  if (isObject(part.functionResponse)) {
    const r = part.functionResponse;
    return { kind: 'response', id: typeof r.id === 'string' ? r.id : undefined, name: typeof r.name === 'string' ? r.name : undefined, response: r.response, part };
  }
  if (typeof part.text === 'string') {
    if (part.thought === true) return { kind: 'thought', text: part.text, signature: typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined };
    return { kind: 'text', text: part.text };
  }
  if (isObject(part.inlineData) && typeof part.inlineData.data === 'string') {
    return { kind: 'image', block: { type: 'image', media_type: String(part.inlineData.mimeType ?? 'application/octet-stream'), data: part.inlineData.data } };
  }
  return { kind: 'other', part };
}

/**
 * A functionResponse's `response` as canonical result content: `{output}` is the output, `{error}`
 * an error; anything else is its JSON (and is kept whole in `structured` by the caller).
 */
export function responseContent(response: unknown): { content: string; is_error: boolean; plain: boolean } {
  if (typeof response === 'string') return { content: response, is_error: false, plain: true };
  if (isObject(response)) {
    const keys = Object.keys(response);
    if (typeof response.error === 'string') return { content: response.error, is_error: true, plain: keys.length === 1 };
    if (isObject(response.error) && typeof response.error.message === 'string') return { content: response.error.message, is_error: true, plain: false };
    if (typeof response.output === 'string') return { content: response.output, is_error: false, plain: keys.length === 1 };
    if (typeof response.content === 'string') return { content: response.content, is_error: false, plain: keys.length === 1 };
  }
  return { content: JSON.stringify(response ?? null), is_error: false, plain: false };
}

/** Text of canonical result content (a string, or blocks whose texts are joined). */
export function resultText(content: unknown): { text: string; images: number } {
  if (typeof content === 'string') return { text: content, images: 0 };
  if (!Array.isArray(content)) return { text: content === undefined || content === null ? '' : JSON.stringify(content), images: 0 };
  const texts: string[] = [];
  let images = 0;
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'image') images += 1;
    else texts.push(JSON.stringify(block));
  }
  return { text: texts.join('\n'), images };
}

/** A canonical image block as a Gemini inlineData part (undefined when its bytes are not inline). */
export function imagePart(block: Json): Json | undefined {
  if (typeof block.data !== 'string') return undefined;
  return { inlineData: { mimeType: typeof block.media_type === 'string' ? block.media_type : 'image/png', data: block.data } };
}
