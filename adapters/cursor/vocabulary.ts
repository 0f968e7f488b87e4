// Cursor's tools as a relay source (docs/formats/cursor.md §5, §7): the CLI's Read {path}, Write {path,
// contents}, Shell {command, description}, Grep {pattern, path?, glob?}, Glob {glob_pattern,
// target_directory?}, WebSearch, WebFetch {url}, and the IDE's read_file {target_file},
// run_terminal_cmd {command}, grep, glob_file_search, web_search {search_term}. Argument names vary
// between builds, so each takes the documented alternatives (path / file_path / target_file). Edits
// (StrReplace, search_replace …) have no documented argument shape: rendered as text. Nothing is
// written in this vocabulary (render gives undefined): the experimental Cursor writer follows the
// one layout known to resume, which carries calls as text.
import { isObject, str } from '../../lib/core/json.js';
import type { Intent, NativeCall, Vocabulary, VocabularyContext } from '../../lib/relay/vocabulary/types.js';

const TOOLS = new Set([
  'Read', 'Write', 'StrReplace', 'MultiStrReplace', 'Edit', 'ApplyPatch', 'Delete', 'LS', 'Grep', 'Glob', 'Shell', 'TodoWrite', 'ReadLints', 'SemanticSearch', 'WebSearch', 'WebFetch', 'CreatePlan', 'Task', 'Agent',
  'read_file', 'run_terminal_cmd', 'search_replace', 'edit_file', 'list_dir', 'grep', 'glob_file_search', 'codebase_search', 'todo_write', 'web_search',
]);

function parse(name: string, input: unknown, _context: VocabularyContext): Intent | undefined {
  if (!isObject(input)) return undefined;
  const path = str(input.path) ?? str(input.file_path) ?? str(input.target_file);
  switch (name) {
    case 'Read':
    case 'read_file':
      return path ? { kind: 'read', path } : undefined;
    case 'Write':
      return path && typeof input.contents === 'string' ? { kind: 'write', path, content: input.contents } : undefined;
    case 'Shell':
    case 'run_terminal_cmd':
      return typeof input.command === 'string' ? { kind: 'shell', command: input.command, description: str(input.description) ?? str(input.explanation) } : undefined;
    case 'Grep':
    case 'grep':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'content', pattern: input.pattern, path, glob: str(input.glob) } : undefined;
    case 'Glob':
    case 'glob_file_search': {
      const pattern = str(input.glob_pattern) ?? str(input.pattern);
      return pattern ? { kind: 'search', mode: 'files', pattern, path: str(input.target_directory) ?? path } : undefined;
    }
    case 'WebSearch':
    case 'web_search': {
      const query = str(input.query) ?? str(input.search_term);
      return query ? { kind: 'web-search', query } : undefined;
    }
    case 'WebFetch':
      return typeof input.url === 'string' ? { kind: 'web-fetch', urls: [input.url] } : undefined;
    default:
      return undefined;
  }
}

function render(_intent: Intent, _context: VocabularyContext): NativeCall[] | undefined {
  return undefined;
}

export const cursorVocabulary: Vocabulary = {
  agent: 'cursor',
  tools: TOOLS,
  parse,
  render,
};
