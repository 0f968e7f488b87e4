// The Cline family's tool vocabulary (docs/formats/cline-tasks.md §4): SEARCH/REPLACE edits in both
// marker styles, text-mode inputs (every value a string), and intents written back as each agent's calls.
import { describe, expect, it } from 'vitest';
import { clineVscode } from '../../adapters/cline-vscode/index.js';
import { kiloVscode } from '../../adapters/kilo-vscode/index.js';
import { roo } from '../../adapters/roo/index.js';
import { searchReplaceBlocks } from '../../lib/formats/cline-tasks/vocabulary.js';
import { PlanState } from '../../lib/relay/vocabulary/types.js';

const context = { cwd: '/home/dev/project', plan: new PlanState() };

describe('cline-family vocabulary', () => {
  it('reads both SEARCH/REPLACE styles, several blocks, and nothing from a text without one', () => {
    expect(searchReplaceBlocks('------- SEARCH\na - b\n=======\na + b\n+++++++ REPLACE')).toEqual([{ old: 'a - b', new: 'a + b' }]);
    expect(searchReplaceBlocks('<<<<<<< SEARCH\n:start_line:3\n-------\none\ntwo\n=======\nthree\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE')).toEqual([
      { old: 'one\ntwo', new: 'three' },
      { old: 'x', new: 'y' },
    ]);
    expect(searchReplaceBlocks('replace a with b')).toBeUndefined();
  });

  it('parses the calls the relay can translate, text-mode strings included', async () => {
    const v = await clineVscode.vocabulary!();
    expect(v.parse('read_file', { path: 'src/app.ts' }, context)).toEqual({ kind: 'read', path: 'src/app.ts', offset: undefined, limit: undefined });
    expect(v.parse('read_file', { path: 'a.ts', start_line: '3', end_line: '7' }, context)).toEqual({ kind: 'read', path: 'a.ts', offset: 3, limit: 5 });
    expect(v.parse('replace_in_file', { path: 'a.ts', diff: '------- SEARCH\na\n=======\nb\n+++++++ REPLACE' }, context)).toEqual({ kind: 'edit', path: 'a.ts', edits: [{ old: 'a', new: 'b' }] });
    expect(v.parse('replace_in_file', { path: 'a.ts', diff: 'no blocks' }, context)).toBeUndefined();
    expect(v.parse('execute_command', { command: 'npm test', requires_approval: 'false' }, context)).toEqual({ kind: 'shell', command: 'npm test', cwd: undefined });
    expect(v.parse('search_files', { path: 'src', regex: 'TODO', file_pattern: '*.ts' }, context)).toEqual({ kind: 'search', mode: 'content', pattern: 'TODO', path: 'src', glob: '*.ts' });
    expect(v.parse('attempt_completion', { result: 'done' }, context)).toBeUndefined();
    const r = await roo.vocabulary!();
    expect(r.parse('new_task', { mode: 'code', message: 'List the TODOs' }, context)).toEqual({ kind: 'task', prompt: 'List the TODOs', description: 'code' });
  });

  it('writes an edit in the agent\'s own tool and style, and reads it back the same', async () => {
    const edit = { kind: 'edit' as const, path: 'a.ts', edits: [{ old: 'one', new: 'two' }] };
    for (const [adapter, tool] of [[clineVscode, 'replace_in_file'], [roo, 'apply_diff'], [kiloVscode, 'apply_diff']] as const) {
      const v = await adapter.vocabulary!();
      const [call] = v.render(edit, context)!;
      expect(call.name, adapter.id).toBe(tool);
      expect(v.tools.has(call.name)).toBe(true);
      expect(v.parse(call.name, call.input, context), adapter.id).toEqual(edit);
    }
    expect((await roo.vocabulary!()).render({ kind: 'edit', path: 'a.ts', edits: [{ old: 'a', new: 'b', all: true }] }, context)).toBeUndefined();
  });
});
