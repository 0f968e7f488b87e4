// Cline CLI 3.0's tools (docs/formats/cline.md §4, from the tool definitions the client sends):
// read_files {files: [{path, start_line?, end_line?}]}, run_commands {commands: [string]},
// editor {path, old_text?, new_text, insert_line?} (creates a missing file when old_text is absent),
// search_codebase {queries: [regex]}, fetch_web_content {requests: [{url, prompt}]},
// spawn_agent {systemPrompt, task}. Paths are absolute; several reads or commands batch in one call.
import { isObject, str } from '../../lib/core/json.js';
import { absolutePath, shq, type Intent, type NativeCall, type Vocabulary, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';

const TOOLS = new Set(['read_files', 'run_commands', 'editor', 'search_codebase', 'fetch_web_content', 'spawn_agent', 'web_search', 'ask_question', 'skills', 'submit_and_exit']);

function parse(name: string, input: unknown, _context: VocabularyContext): Intent | undefined {
  if (!isObject(input)) return undefined;
  switch (name) {
    case 'read_files': {
      // One intent per call: a batch of several files has no single-intent counterpart.
      const files = Array.isArray(input.files) ? input.files.filter(isObject) : [];
      if (files.length !== 1) return undefined;
      const path = str(files[0].path);
      if (!path) return undefined;
      const first = typeof files[0].start_line === 'number' ? files[0].start_line : undefined;
      const last = typeof files[0].end_line === 'number' ? files[0].end_line : undefined;
      return { kind: 'read', path, offset: first, limit: first !== undefined && last !== undefined ? last - first + 1 : undefined };
    }
    case 'run_commands': {
      const commands = Array.isArray(input.commands) ? input.commands.filter((c): c is string => typeof c === 'string') : [];
      return commands.length === 1 ? { kind: 'shell', command: commands[0] } : undefined;
    }
    case 'editor': {
      const path = str(input.path);
      if (!path || typeof input.new_text !== 'string' || typeof input.insert_line === 'number') return undefined;
      if (typeof input.old_text === 'string') return { kind: 'edit', path, edits: [{ old: input.old_text, new: input.new_text }] };
      return { kind: 'write', path, content: input.new_text };
    }
    case 'search_codebase': {
      const queries = Array.isArray(input.queries) ? input.queries.filter((q): q is string => typeof q === 'string') : [];
      return queries.length === 1 ? { kind: 'search', mode: 'content', pattern: queries[0] } : undefined;
    }
    case 'fetch_web_content': {
      const requests = Array.isArray(input.requests) ? input.requests.filter(isObject) : [];
      const urls = requests.map((r) => str(r.url)).filter((u): u is string => u !== undefined);
      return urls.length > 0 ? { kind: 'web-fetch', urls, prompt: str(requests[0].prompt) } : undefined;
    }
    case 'spawn_agent':
      return typeof input.task === 'string' ? { kind: 'task', prompt: input.task, description: str(input.systemPrompt) } : undefined;
    default:
      return undefined;
  }
}

function render(intent: Intent, context: VocabularyContext): NativeCall[] | undefined {
  const abs = (path: string): string => absolutePath(path, context.cwd);
  switch (intent.kind) {
    case 'read': {
      const file: Record<string, unknown> = { path: abs(intent.path) };
      if (intent.offset !== undefined) file.start_line = intent.offset;
      if (intent.offset !== undefined && intent.limit !== undefined) file.end_line = intent.offset + intent.limit - 1;
      return [{ name: 'read_files', input: { files: [file] } }];
    }
    case 'write':
      return [{ name: 'editor', input: { path: abs(intent.path), new_text: intent.content } }];
    case 'edit':
      // The editor replaces exactly one occurrence: a replace-all edit has no counterpart.
      if (intent.edits.some((e) => e.all)) return undefined;
      return intent.edits.map((e) => ({ name: 'editor', input: { path: abs(intent.path), old_text: e.old, new_text: e.new } }));
    case 'patch': {
      const calls: NativeCall[] = [];
      for (const file of intent.files) {
        if (file.op === 'add') calls.push({ name: 'editor', input: { path: abs(file.path), new_text: file.content } });
        else if (file.op === 'delete') calls.push({ name: 'run_commands', input: { commands: [`rm ${shq(abs(file.path))}`] } });
        else {
          if (file.moveTo || file.hunks.some((h) => h.all)) return undefined;
          for (const h of file.hunks) calls.push({ name: 'editor', input: { path: abs(file.path), old_text: h.old, new_text: h.new } });
        }
      }
      return calls;
    }
    case 'shell': {
      const command = intent.cwd && context.cwd && intent.cwd !== context.cwd ? `cd ${shq(intent.cwd)} && ${intent.command}` : intent.command;
      return [{ name: 'run_commands', input: { commands: [command] } }];
    }
    case 'search':
      // search_codebase takes regexes over the workspace; a file-name search or a scoped one has no counterpart.
      if (intent.mode === 'files' || intent.path || intent.glob) return undefined;
      return [{ name: 'search_codebase', input: { queries: [intent.pattern] } }];
    case 'web-fetch':
      return [{ name: 'fetch_web_content', input: { requests: intent.urls.map((url) => ({ url, prompt: intent.prompt ?? 'Summarize the page' })) } }];
    case 'task':
      return [{ name: 'spawn_agent', input: { systemPrompt: intent.description ?? 'You are a helpful sub-agent.', task: intent.prompt } }];
    default:
      return undefined;
  }
}

export const clineVocabulary: Vocabulary = { agent: 'cline', tools: TOOLS, parse, render };
