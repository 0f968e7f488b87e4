// Auggie 0.36's tools (the tool definitions the client sends in every /chat-stream request,
// docs/formats/auggie.md §4): view {path, type file|directory, view_range?: [first, last],
// search_query_regex?}, save-file {path, file_content, add_last_line_newline?}, str-replace-editor
// {command str_replace|insert, path, str_replace_entries: [{old_str, new_str,
// old_str_start_line_number, old_str_end_line_number}]}, apply_patch {input: patch text},
// remove-files {file_paths}, launch-process {command, wait, max_wait_seconds, cwd}, web-fetch {url}.
// Paths are relative to the workspace root or absolute.
import { isObject, str } from '../../lib/core/json.js';
import { buildPatch, parsePatch } from '../../lib/relay/patch.js';
import { absolutePath, shq, type Intent, type NativeCall, type Vocabulary, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';

const TOOLS = new Set([
  'view', 'save-file', 'str-replace-editor', 'apply_patch', 'remove-files', 'launch-process', 'read-process', 'write-process', 'kill-process',
  'list-processes', 'web-fetch', 'codebase-retrieval', 'view-session', 'view-range-untruncated', 'search-untruncated',
  'view_tasklist', 'reorganize_tasklist', 'update_tasks', 'add_tasks',
]);

/** How long a replayed command may run before the client stops waiting. */
const WAIT_SECONDS = 60;

function int(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

function parseView(input: Record<string, unknown>): Intent | undefined {
  const path = str(input.path);
  if (!path || (input.type !== undefined && input.type !== 'file')) return undefined;
  if (typeof input.search_query_regex === 'string') return { kind: 'search', mode: 'content', pattern: input.search_query_regex, path };
  const range = Array.isArray(input.view_range) ? input.view_range : undefined;
  const first = int(range?.[0]);
  const last = int(range?.[1]);
  // A last line of -1 reads to the end of the file.
  return { kind: 'read', path, offset: first, limit: first !== undefined && last !== undefined && last >= first ? last - first + 1 : undefined };
}

function parse(name: string, input: unknown, _context: VocabularyContext): Intent | undefined {
  if (!isObject(input)) return undefined;
  switch (name) {
    case 'view':
      return parseView(input);
    case 'save-file': {
      const path = str(input.path);
      return path && typeof input.file_content === 'string' ? { kind: 'write', path, content: input.file_content } : undefined;
    }
    case 'str-replace-editor': {
      const path = str(input.path);
      const entries = Array.isArray(input.str_replace_entries) ? input.str_replace_entries.filter(isObject) : [];
      if (!path || input.command !== 'str_replace' || entries.length === 0) return undefined;
      if (entries.some((e) => typeof e.old_str !== 'string' || typeof e.new_str !== 'string')) return undefined;
      return { kind: 'edit', path, edits: entries.map((e) => ({ old: e.old_str as string, new: e.new_str as string })) };
    }
    case 'apply_patch': {
      const files = typeof input.input === 'string' ? parsePatch(input.input) : undefined;
      return files ? { kind: 'patch', files } : undefined;
    }
    case 'remove-files': {
      const paths = Array.isArray(input.file_paths) ? input.file_paths.filter((p): p is string => typeof p === 'string') : [];
      return paths.length > 0 ? { kind: 'patch', files: paths.map((path) => ({ op: 'delete' as const, path })) } : undefined;
    }
    case 'launch-process':
      return typeof input.command === 'string' ? { kind: 'shell', command: input.command, cwd: str(input.cwd) } : undefined;
    case 'web-fetch':
      return typeof input.url === 'string' ? { kind: 'web-fetch', urls: [input.url] } : undefined;
    default:
      return undefined;
  }
}

function render(intent: Intent, context: VocabularyContext): NativeCall[] | undefined {
  const abs = (path: string): string => absolutePath(path, context.cwd);
  const launch = (command: string, cwd?: string): NativeCall => ({ name: 'launch-process', input: { command, wait: true, max_wait_seconds: WAIT_SECONDS, cwd: cwd ?? context.cwd ?? '.' } });
  switch (intent.kind) {
    case 'read': {
      const input: Record<string, unknown> = { path: abs(intent.path), type: 'file' };
      if (intent.offset !== undefined) input.view_range = [intent.offset, intent.limit !== undefined ? intent.offset + intent.limit - 1 : -1];
      return [{ name: 'view', input }];
    }
    case 'write':
      return [{ name: 'save-file', input: { path: abs(intent.path), file_content: intent.content, add_last_line_newline: false } }];
    case 'edit':
      // str-replace-editor needs the line numbers of each old string, which another agent's edit does
      // not carry: an edit goes over as a patch, which finds its place by content.
      return [{ name: 'apply_patch', input: { input: buildPatch([{ op: 'update', path: abs(intent.path), hunks: intent.edits }]) } }];
    case 'patch':
      if (intent.files.every((f) => f.op === 'delete')) return [{ name: 'remove-files', input: { file_paths: intent.files.map((f) => abs(f.path)) } }];
      return [{ name: 'apply_patch', input: { input: buildPatch(intent.files.map((f) => (f.op === 'update' ? { ...f, path: abs(f.path), moveTo: f.moveTo && abs(f.moveTo) } : { ...f, path: abs(f.path) }))) } }];
    case 'shell':
      return [launch(intent.command, intent.cwd)];
    case 'search':
      if (intent.mode === 'content' && intent.path && !intent.glob) return [{ name: 'view', input: { path: abs(intent.path), type: 'file', search_query_regex: intent.pattern } }];
      return [launch(intent.mode === 'files' ? `find ${shq(intent.path ?? '.')} -name ${shq(intent.pattern)}` : `grep -rn ${shq(intent.pattern)} ${shq(intent.path ?? '.')}${intent.glob ? ` --include=${shq(intent.glob)}` : ''}`)];
    case 'web-fetch':
      return intent.urls.map((url) => ({ name: 'web-fetch', input: { url } }));
    default:
      return undefined;
  }
}

export const auggieVocabulary: Vocabulary = { agent: 'auggie', tools: TOOLS, parse, render };
