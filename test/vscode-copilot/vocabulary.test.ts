// Copilot's agent-mode tool names read as intents and written back (docs/formats/vscode-copilot.md §6).
import { describe, expect, it } from 'vitest';
import { vscodeCopilotVocabulary as vocabulary } from '../../adapters/vscode-copilot/vocabulary.js';
import { PlanState, type Intent } from '../../lib/relay/vocabulary/types.js';

const context = () => ({ cwd: '/home/dev/project', plan: new PlanState() });

describe('vscode-copilot vocabulary', () => {
  it('reads its calls as intents', () => {
    expect(vocabulary.parse('read_file', { filePath: '/p/a.ts', startLine: 10, endLine: 19 }, context())).toEqual({ kind: 'read', path: '/p/a.ts', offset: 10, limit: 10 });
    expect(vocabulary.parse('create_file', { filePath: '/p/b.ts', content: 'x' }, context())).toEqual({ kind: 'write', path: '/p/b.ts', content: 'x' });
    expect(vocabulary.parse('replace_string_in_file', { filePath: '/p/a.ts', oldString: 'a', newString: 'b' }, context())).toEqual({ kind: 'edit', path: '/p/a.ts', edits: [{ old: 'a', new: 'b' }] });
    expect(vocabulary.parse('run_in_terminal', { command: 'npm test', explanation: 'tests', isBackground: false }, context())).toMatchObject({ kind: 'shell', command: 'npm test' });
    expect(vocabulary.parse('grep_search', { query: 'add\\(', isRegexp: true, includePattern: 'src/**' }, context())).toEqual({ kind: 'search', mode: 'content', pattern: 'add\\(', glob: 'src/**' });
    expect(vocabulary.parse('file_search', { query: '**/*.ts' }, context())).toEqual({ kind: 'search', mode: 'files', pattern: '**/*.ts' });
    expect(vocabulary.parse('fetch_webpage', { urls: ['https://example.com'], query: 'docs' }, context())).toEqual({ kind: 'web-fetch', urls: ['https://example.com'], prompt: 'docs' });
    // No counterpart elsewhere: rendered as text by a relay.
    expect(vocabulary.parse('semantic_search', { query: 'where is parse' }, context())).toBeUndefined();
    expect(vocabulary.parse('insert_edit_into_file', { filePath: '/p/a.ts', code: '...existing code...' }, context())).toBeUndefined();
    expect(vocabulary.parse('read_file', 'not an object', context())).toBeUndefined();
  });

  it('writes intents back as the same calls, paths made absolute', () => {
    const intents: Intent[] = [
      { kind: 'read', path: 'src/a.ts', offset: 10, limit: 10 },
      { kind: 'write', path: '/p/b.ts', content: 'x' },
      { kind: 'edit', path: '/p/a.ts', edits: [{ old: 'a', new: 'b' }] },
      { kind: 'search', mode: 'files', pattern: '**/*.ts' },
      { kind: 'web-fetch', urls: ['https://example.com'], prompt: 'docs' },
    ];
    for (const intent of intents) {
      const [call] = vocabulary.render(intent, context())!;
      expect(vocabulary.tools.has(call.name)).toBe(true);
      const back = vocabulary.parse(call.name, call.input, context());
      expect(back).toEqual(intent.kind === 'read' ? { ...intent, path: '/home/dev/project/src/a.ts' } : intent);
    }
    expect(vocabulary.render({ kind: 'task', prompt: 'x' }, context())).toBeUndefined();
  });
});
