// The tools of the Cline family's VS Code extensions (docs/formats/cline-tasks.md §4), shared by the
// three: read_file {path}, write_to_file {path, content}, execute_command {command, cwd?},
// search_files {path, regex, file_pattern?}, list_files {path, recursive?}, web_fetch {url},
// new_task, and one search/replace edit tool whose name differs (Cline `replace_in_file`, Roo and
// Kilo `apply_diff`), both taking {path, diff} with SEARCH/REPLACE blocks. Values arrive as strings
// in text-mode calls (`recursive` is "true"), as JSON in native ones.
import { isObject, str } from '../../core/json.js';
import type { Replacement } from '../../relay/patch.js';
import { shq, type Intent, type NativeCall, type Vocabulary, type VocabularyContext } from '../../relay/vocabulary/types.js';


/**
 * The blocks of a SEARCH/REPLACE diff: Cline's `------- SEARCH … ======= … +++++++ REPLACE` and the
 * older `<<<<<<< SEARCH … >>>>>>> REPLACE` (Roo adds `:start_line:N` and a `-------` line after the
 * marker). Undefined when the text holds no block.
 */
export function searchReplaceBlocks(diff: string): Replacement[] | undefined {
  const block = /^(?:-{3,}|<{3,}) SEARCH[^\n]*\n(?::start_line:\s*\d+\s*\n)?(?:-{3,}\n)?([\s\S]*?)\n?^={3,}\n([\s\S]*?)\n?^(?:\+{3,}|>{3,}) REPLACE/gm;
  const out: Replacement[] = [];
  for (const m of diff.matchAll(block)) out.push({ old: m[1], new: m[2] });
  return out.length > 0 ? out : undefined;
}

/** One SEARCH/REPLACE diff in the given style, for the edit tool the target names. */
function searchReplaceText(edits: Replacement[], style: 'dashes' | 'angles'): string {
  return edits
    .map((e) =>
      style === 'dashes'
        ? `------- SEARCH\n${e.old}\n=======\n${e.new}\n+++++++ REPLACE`
        : `<<<<<<< SEARCH\n:start_line:1\n-------\n${e.old}\n=======\n${e.new}\n>>>>>>> REPLACE`,
    )
    .join('\n');
}

/** A number given as a number or as the text of one (text-mode calls). */
function numberOf(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}

/** A vocabulary for one extension: its name, its tool names and its edit tool. */
export function taskStoreVocabulary(agent: string, tools: ReadonlySet<string>, editTool: 'replace_in_file' | 'apply_diff'): Vocabulary {
  // replace_in_file takes the dashed markers, apply_diff the angle brackets with a start line.
  const style = editTool === 'replace_in_file' ? 'dashes' : 'angles';
  const parse = (name: string, input: unknown, _context: VocabularyContext): Intent | undefined => {
    if (!isObject(input)) return undefined;
    const path = str(input.path);
    switch (name) {
      case 'read_file': {
        if (!path) return undefined;
        const first = numberOf(input.start_line);
        const last = numberOf(input.end_line);
        return { kind: 'read', path, offset: first, limit: first !== undefined && last !== undefined && last >= first ? last - first + 1 : undefined };
      }
      case 'write_to_file':
        return path && typeof input.content === 'string' ? { kind: 'write', path, content: input.content } : undefined;
      case 'replace_in_file':
      case 'apply_diff': {
        const edits = path && typeof input.diff === 'string' ? searchReplaceBlocks(input.diff) : undefined;
        return path && edits ? { kind: 'edit', path, edits } : undefined;
      }
      case 'execute_command':
        return typeof input.command === 'string' ? { kind: 'shell', command: input.command, cwd: str(input.cwd) } : undefined;
      case 'search_files':
        return typeof input.regex === 'string' ? { kind: 'search', mode: 'content', pattern: input.regex, path, glob: str(input.file_pattern) } : undefined;
      case 'web_fetch':
        return typeof input.url === 'string' ? { kind: 'web-fetch', urls: [input.url] } : undefined;
      case 'new_task': {
        const prompt = str(input.message) ?? str(input.context);
        return prompt ? { kind: 'task', prompt, description: str(input.mode) } : undefined;
      }
      default:
        return undefined;
    }
  };
  const render = (intent: Intent, _context: VocabularyContext): NativeCall[] | undefined => {
    switch (intent.kind) {
      case 'read': {
        const input: Record<string, unknown> = { path: intent.path };
        return [{ name: 'read_file', input }];
      }
      case 'write':
        return [{ name: 'write_to_file', input: { path: intent.path, content: intent.content } }];
      case 'edit':
        // A search block replaces its first match: a replace-all edit has no counterpart.
        if (intent.edits.some((e) => e.all)) return undefined;
        return [{ name: editTool, input: { path: intent.path, diff: searchReplaceText(intent.edits, style) } }];
      case 'shell': {
        const input: Record<string, unknown> = { command: intent.cwd ? `cd ${shq(intent.cwd)} && ${intent.command}` : intent.command };
        return [{ name: 'execute_command', input }];
      }
      case 'search':
        if (intent.mode === 'files') return [{ name: 'list_files', input: { path: intent.path ?? '.', recursive: true } }];
        return [{ name: 'search_files', input: { path: intent.path ?? '.', regex: intent.pattern, ...(intent.glob ? { file_pattern: intent.glob } : {}) } }];
      default:
        return undefined;
    }
  };
  return { agent, tools, parse, render };
}
