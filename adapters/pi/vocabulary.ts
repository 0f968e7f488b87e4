// Pi 0.73's default tools (formats/pi.md): read {path, offset?, limit?}, write {path, content},
// edit {path, edits: [{oldText, newText}]} (older files: {path, oldText, newText}), bash {command,
// timeout? in seconds}. Pi has no plan tool (its model keeps a plan as text) and no search tool
// among the defaults: a search becomes the `rg` command it would run through bash.
import { isObject, num, str } from '../../lib/core/json.js';
import { relativePath, searchCommand, shq, type Intent, type NativeCall, type Vocabulary, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';
import { patchAsCalls } from '../../lib/relay/vocabulary/patch-calls.js';

const TOOLS = new Set(['read', 'write', 'edit', 'bash', 'grep', 'find', 'ls']);

function parse(name: string, input: unknown, _context: VocabularyContext): Intent | undefined {
  if (!isObject(input)) return undefined;
  const path = str(input.path);
  switch (name) {
    case 'read':
      return path ? { kind: 'read', path, offset: num(input.offset), limit: num(input.limit) } : undefined;
    case 'write':
      return path && typeof input.content === 'string' ? { kind: 'write', path, content: input.content } : undefined;
    case 'edit': {
      if (!path) return undefined;
      if (Array.isArray(input.edits)) {
        const edits = input.edits.filter(isObject).filter((e) => typeof e.oldText === 'string' && typeof e.newText === 'string');
        if (edits.length === 0 || edits.length !== input.edits.length) return undefined;
        return { kind: 'edit', path, edits: edits.map((e) => ({ old: String(e.oldText), new: String(e.newText) })) };
      }
      if (typeof input.oldText === 'string' && typeof input.newText === 'string') return { kind: 'edit', path, edits: [{ old: input.oldText, new: input.newText }] };
      return undefined;
    }
    case 'bash': {
      if (typeof input.command !== 'string') return undefined;
      const timeout = num(input.timeout);
      return { kind: 'shell', command: input.command, timeoutMs: timeout !== undefined ? timeout * 1000 : undefined };
    }
    case 'grep':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'content', pattern: input.pattern, path: str(input.path), glob: str(input.glob) } : undefined;
    case 'find':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'files', pattern: input.pattern, path: str(input.path) } : undefined;
    default:
      return undefined;
  }
}

function render(intent: Intent, context: VocabularyContext): NativeCall[] | undefined {
  const rel = (path: string): string => relativePath(path, context.cwd);
  const bash = (command: string, timeoutMs?: number): NativeCall => ({ name: 'bash', input: timeoutMs !== undefined ? { command, timeout: Math.ceil(timeoutMs / 1000) } : { command } });
  switch (intent.kind) {
    case 'read': {
      const input: Record<string, unknown> = { path: rel(intent.path) };
      if (intent.offset !== undefined) input.offset = intent.offset;
      if (intent.limit !== undefined) input.limit = intent.limit;
      return [{ name: 'read', input }];
    }
    case 'write':
      return [{ name: 'write', input: { path: rel(intent.path), content: intent.content } }];
    case 'edit':
      return [{ name: 'edit', input: { path: rel(intent.path), edits: intent.edits.map((e) => ({ oldText: e.old, newText: e.new })) } }];
    case 'patch': {
      return patchAsCalls(intent.files, {
        path: rel,
        write: (path, content) => ({ name: 'write', input: { path: rel(path), content } }),
        shell: (command) => bash(command),
        edit: (path, hunks) => [{ name: 'edit', input: { path: rel(path), edits: hunks.map((h) => ({ oldText: h.old, newText: h.new })) } }],
      });
    }
    case 'shell':
      return [bash(intent.cwd && context.cwd && intent.cwd !== context.cwd ? `cd ${shq(intent.cwd)} && ${intent.command}` : intent.command, intent.timeoutMs)];
    case 'search':
      return [bash(searchCommand({ ...intent, path: intent.path && rel(intent.path) }))];
    case 'plan':
    case 'task':
    case 'web-search':
    case 'web-fetch':
      return undefined;
  }
}

export const piVocabulary: Vocabulary = { agent: 'pi', tools: TOOLS, parse, render };
