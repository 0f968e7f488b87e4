// Goose's tools (docs/formats/goose.md §4): every tool is an MCP tool of an extension, named
// `<extension>__<tool>`. The built-in developer extension gives `developer__shell` {command} and
// `developer__text_editor` {command: view | write | str_replace | insert | undo_edit, path,
// file_text?, old_str?, new_str?, insert_line?, view_range?}; other extensions' tools (and the
// developer extension's screen and image tools) have no counterpart elsewhere and stay text.
import { isObject } from '../../lib/core/json.js';
import { parseEditorCommand, renderEditorCommand } from '../../lib/relay/vocabulary/editor-command.js';
import { relativePath, type Intent, type NativeCall, type Vocabulary, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';

const SHELL = 'developer__shell';
const EDITOR = 'developer__text_editor';
const TOOLS = new Set([SHELL, EDITOR, 'developer__analyze', 'developer__screen_capture', 'developer__list_windows', 'developer__image_processor']);

function parse(name: string, input: unknown, _context: VocabularyContext): Intent | undefined {
  if (name === SHELL) return isObject(input) && typeof input.command === 'string' ? { kind: 'shell', command: input.command } : undefined;
  if (name === EDITOR) return parseEditorCommand(input);
  return undefined;
}

function render(intent: Intent, context: VocabularyContext): NativeCall[] | undefined {
  if (intent.kind === 'shell') {
    // The shell runs in the session's working directory: another directory goes into the command.
    const command = intent.cwd && intent.cwd !== context.cwd ? `cd ${JSON.stringify(intent.cwd)} && ${intent.command}` : intent.command;
    return [{ name: SHELL, input: { command } }];
  }
  // text_editor wants absolute paths: relative ones are resolved against the session's directory.
  return renderEditorCommand(EDITOR, intent, (path) => (context.cwd && !path.startsWith('/') ? `${context.cwd.replace(/\/$/, '')}/${relativePath(path, context.cwd)}` : path), 'write');
}

export const gooseVocabulary: Vocabulary = { agent: 'goose', tools: TOOLS, parse, render };
