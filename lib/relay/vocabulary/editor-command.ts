// The "one editor tool, many commands" shape several agents share (Anthropic's text editor tool as
// Goose's text_editor and OpenHands' file_editor / str_replace_editor expose it): {command: view |
// create | write | str_replace | insert | undo_edit, path, file_text?, old_str?, new_str?,
// insert_line?, view_range?}. One reading and one writing of it for every vocabulary that uses it.
import { isObject, str } from '../../core/json.js';
import type { Intent, NativeCall } from './types.js';

/** An editor call's input as an intent; undefined for commands with no counterpart (insert, undo_edit). */
export function parseEditorCommand(input: unknown): Intent | undefined {
  if (!isObject(input)) return undefined;
  const path = str(input.path);
  if (!path) return undefined;
  switch (input.command) {
    case 'view': {
      const range = Array.isArray(input.view_range) ? input.view_range : undefined;
      const first = typeof range?.[0] === 'number' ? range[0] : undefined;
      const last = typeof range?.[1] === 'number' && range[1] >= 0 ? range[1] : undefined;
      return { kind: 'read', path, offset: first, limit: first !== undefined && last !== undefined ? last - first + 1 : undefined };
    }
    case 'create':
    case 'write':
      return typeof input.file_text === 'string' ? { kind: 'write', path, content: input.file_text } : undefined;
    case 'str_replace':
      return typeof input.old_str === 'string' ? { kind: 'edit', path, edits: [{ old: input.old_str, new: typeof input.new_str === 'string' ? input.new_str : '' }] } : undefined;
    default:
      return undefined;
  }
}

/**
 * An intent as one editor call named `tool`; `createCommand` is what the agent calls writing a whole
 * file (`create` or `write`). Several replacements in one file become one call each.
 */
export function renderEditorCommand(tool: string, intent: Intent, rel: (path: string) => string, createCommand: 'create' | 'write'): NativeCall[] | undefined {
  switch (intent.kind) {
    case 'read': {
      const input: Record<string, unknown> = { command: 'view', path: rel(intent.path) };
      if (intent.offset !== undefined) input.view_range = [intent.offset, intent.limit !== undefined ? intent.offset + intent.limit - 1 : -1];
      return [{ name: tool, input }];
    }
    case 'write':
      return [{ name: tool, input: { command: createCommand, path: rel(intent.path), file_text: intent.content } }];
    case 'edit':
      // replace-all has no counterpart: the tool replaces one unique occurrence
      if (intent.edits.some((e) => e.all)) return undefined;
      return intent.edits.map((e) => ({ name: tool, input: { command: 'str_replace', path: rel(intent.path), old_str: e.old, new_str: e.new } }));
    default:
      return undefined;
  }
}
