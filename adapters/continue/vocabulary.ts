// Continue CLI 1.5's built-in tools (docs/formats/continue.md §5, from the tool definitions the client
// sends): Read {filepath}, Write {filepath, content}, List {dirpath}, Bash {command, timeout? seconds},
// Fetch {url}, MultiEdit {file_path, edits: [{old_string, new_string, replace_all?}]} (the file must
// exist and have been read), Checklist {checklist: markdown}, Edit {file_path, old_string, new_string,
// replace_all?} and Search {pattern, path?, file_pattern?} (defined, not offered in the runs recorded).
// Paths may be relative to the workspace. List (a folder's entries with sizes) has no intent and stays native.
import { isObject, str } from '../../lib/core/json.js';
import type { Replacement } from '../../lib/relay/patch.js';
import { absolutePath, searchCommand, shq, type Intent, type NativeCall, type Vocabulary, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';

const TOOLS = new Set(['Read', 'Write', 'List', 'Bash', 'Fetch', 'MultiEdit', 'Edit', 'Search', 'Checklist', 'CheckBackgroundJob', 'AskQuestion', 'Exit', 'Skills', 'Status', 'Subagent', 'ReportFailure', 'UploadArtifact', 'Diff']);

function replacements(edits: unknown): Replacement[] | undefined {
  if (!Array.isArray(edits) || edits.length === 0) return undefined;
  const out: Replacement[] = [];
  for (const edit of edits) {
    if (!isObject(edit) || typeof edit.old_string !== 'string' || typeof edit.new_string !== 'string') return undefined;
    out.push(edit.replace_all === true ? { old: edit.old_string, new: edit.new_string, all: true } : { old: edit.old_string, new: edit.new_string });
  }
  return out;
}

function parse(name: string, input: unknown, _context: VocabularyContext): Intent | undefined {
  if (!isObject(input)) return undefined;
  switch (name) {
    case 'Read': {
      const path = str(input.filepath);
      return path ? { kind: 'read', path } : undefined;
    }
    case 'Write': {
      const path = str(input.filepath);
      return path && typeof input.content === 'string' ? { kind: 'write', path, content: input.content } : undefined;
    }
    case 'MultiEdit': {
      const path = str(input.file_path);
      const edits = replacements(input.edits);
      return path && edits ? { kind: 'edit', path, edits } : undefined;
    }
    case 'Edit': {
      const path = str(input.file_path);
      const edits = replacements([input]);
      return path && edits ? { kind: 'edit', path, edits } : undefined;
    }
    case 'Bash': {
      const command = str(input.command);
      if (!command) return undefined;
      return typeof input.timeout === 'number' ? { kind: 'shell', command, timeoutMs: input.timeout * 1000 } : { kind: 'shell', command };
    }
    case 'Search': {
      const pattern = str(input.pattern);
      if (!pattern) return undefined;
      return { kind: 'search', mode: 'content', pattern, path: str(input.path), glob: str(input.file_pattern) };
    }
    case 'Fetch': {
      const url = str(input.url);
      return url ? { kind: 'web-fetch', urls: [url] } : undefined;
    }
    default:
      return undefined;
  }
}

function render(intent: Intent, context: VocabularyContext): NativeCall[] | undefined {
  const abs = (path: string): string => absolutePath(path, context.cwd);
  const edit = (path: string, edits: Replacement[]): NativeCall => ({
    name: 'MultiEdit',
    input: { file_path: abs(path), edits: edits.map((e) => (e.all ? { old_string: e.old, new_string: e.new, replace_all: true } : { old_string: e.old, new_string: e.new })) },
  });
  switch (intent.kind) {
    case 'read':
      // Read takes the whole file: a range is read whole.
      return [{ name: 'Read', input: { filepath: abs(intent.path) } }];
    case 'write':
      return [{ name: 'Write', input: { filepath: abs(intent.path), content: intent.content } }];
    case 'edit':
      return [edit(intent.path, intent.edits)];
    case 'patch': {
      const calls: NativeCall[] = [];
      for (const file of intent.files) {
        if (file.op === 'add') calls.push({ name: 'Write', input: { filepath: abs(file.path), content: file.content } });
        else if (file.op === 'delete') calls.push({ name: 'Bash', input: { command: `rm ${shq(abs(file.path))}` } });
        else {
          if (file.moveTo) return undefined;
          calls.push(edit(file.path, file.hunks));
        }
      }
      return calls;
    }
    case 'shell': {
      const command = intent.cwd && context.cwd && intent.cwd !== context.cwd ? `cd ${shq(intent.cwd)} && ${intent.command}` : intent.command;
      const input: Record<string, unknown> = { command };
      if (intent.timeoutMs !== undefined) input.timeout = Math.ceil(intent.timeoutMs / 1000);
      return [{ name: 'Bash', input }];
    }
    case 'search':
      // Search is not offered by the client recorded (no ripgrep bundled): the same search as a command.
      return [{ name: 'Bash', input: { command: searchCommand(intent) } }];
    case 'web-fetch':
      return intent.urls.map((url) => ({ name: 'Fetch', input: { url } }));
    case 'plan':
      return [{ name: 'Checklist', input: { checklist: intent.items.map((i) => `- [${i.status === 'completed' ? 'x' : ' '}] ${i.text}`).join('\n') } }];
    default:
      return undefined;
  }
}

export const continueVocabulary: Vocabulary = { agent: 'continue', tools: TOOLS, parse, render };
