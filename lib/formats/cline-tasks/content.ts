// Content blocks of the two message shapes these task stores hold (docs/formats/cline-tasks.md §3):
// Anthropic Messages blocks (Cline, and Roo/Kilo before their versioned format) and AI SDK parts
// (Roo's `{version: 2}` files): images, tool results, and the text wrappers the extensions add.
import type { ContentBlock } from '../../core/event.js';
import { isObject, str } from '../../core/json.js';

/** What the extensions wrap around what the user wrote: the first prompt, feedback, an answer. */
const USER_WRAPPER = /^<(task|feedback|answer|user_message)>\n?([\s\S]*?)\n?<\/\1>$/;
/** The workspace summary the extensions append to user turns (files, terminals, time, mode). */
const ENVIRONMENT = /^<environment_details>[\s\S]*<\/environment_details>$/;

export function unwrapUserText(text: string): { text: string; wrapper?: string } {
  const m = USER_WRAPPER.exec(text.trim());
  return m ? { text: m[2], wrapper: m[1] } : { text };
}

export function isEnvironmentDetails(text: string): boolean {
  return ENVIRONMENT.test(text.trim());
}

/** An image as a canonical block: Anthropic `{source: {data, media_type}}`, AI SDK `{image, mediaType}`, or a data URL. */
export function imageBlock(block: Record<string, unknown>): ContentBlock | undefined {
  if (isObject(block.source) && typeof block.source.data === 'string') {
    return { type: 'image', media_type: str(block.source.media_type) ?? 'image/png', data: block.source.data };
  }
  if (typeof block.image === 'string') return dataUrlImage(block.image, str(block.mediaType) ?? str(block.mimeType));
  if (typeof block.data === 'string' && (block.type === 'media' || block.type === 'file')) return dataUrlImage(block.data, str(block.mediaType));
  return undefined;
}

/** `data:image/png;base64,…` (how the UI messages keep images) or bare base64 with its type. */
export function dataUrlImage(value: string, mediaType?: string): ContentBlock | undefined {
  const m = /^data:([a-z]+\/[a-z0-9.+-]+);base64,(.*)$/is.exec(value);
  if (m) return { type: 'image', media_type: m[1], data: m[2] };
  if (/^[A-Za-z0-9+/=\r\n]+$/.test(value) && value.length > 0) return { type: 'image', media_type: mediaType ?? 'image/png', data: value };
  return undefined;
}

/** Roo marks failed results in AI SDK outputs with this prefix, as the source shows. */
const ERROR_PREFIX = '[ERROR]';

/** A tool result's content: a string when it is only text, blocks when it holds images; and whether it failed. */
export function resultContent(content: unknown): { content: string | ContentBlock[]; failed: boolean } {
  if (typeof content === 'string') return { content, failed: content.trimStart().startsWith(ERROR_PREFIX) };
  if (content === undefined || content === null) return { content: '', failed: false };
  // AI SDK output: {type: 'text' | 'error-text' | 'json' | 'error-json' | 'content', value}.
  if (isObject(content) && typeof content.type === 'string' && 'value' in content) {
    const failed = content.type.startsWith('error-');
    if (typeof content.value === 'string') return { content: content.value, failed: failed || content.value.trimStart().startsWith(ERROR_PREFIX) };
    if (content.type === 'content' && Array.isArray(content.value)) return { ...resultContent(content.value), failed };
    return { content: JSON.stringify(content.value), failed };
  }
  if (!Array.isArray(content)) return { content: JSON.stringify(content), failed: false };
  const blocks: ContentBlock[] = [];
  let failed = false;
  for (const item of content) {
    if (typeof item === 'string') blocks.push({ type: 'text', text: item });
    else if (isObject(item) && typeof item.text === 'string') {
      blocks.push({ type: 'text', text: item.text });
      if (item.text.trimStart().startsWith(ERROR_PREFIX)) failed = true;
    } else if (isObject(item)) {
      const image = imageBlock(item);
      blocks.push(image ?? { type: 'text', text: JSON.stringify(item) });
    }
  }
  if (blocks.every((b) => b.type === 'text')) return { content: blocks.map((b) => String((b as { text?: unknown }).text)).join('\n'), failed };
  return { content: blocks, failed };
}
