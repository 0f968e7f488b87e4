// The Auggie tool vocabulary (adapters/auggie/vocabulary.ts) on the recorded calls and on calls from
// another agent: every recorded call reads into an intent, renders as an Auggie call and reads back
// to the same intent (paths made absolute); an edit from elsewhere goes over as apply_patch.
import { describe, expect, it } from 'vitest';
import { auggie } from '../../adapters/auggie/index.js';
import { auggieVocabulary } from '../../adapters/auggie/vocabulary.js';
import { claudeVocabulary } from '../../lib/formats/claude-code/vocabulary.js';
import { PlanState, type Intent } from '../../lib/relay/vocabulary/types.js';
import { captureAll } from '../contract/testAdapter.js';
import { TOOLS } from './support.js';

type Json = Record<string, any>;

describe('Auggie vocabulary', () => {
  it('reads every recorded call into an intent, and its rendering reads back to the same intent', async () => {
    const context = { cwd: '/home/user/proj', plan: new PlanState() };
    const { events } = await captureAll(auggie, TOOLS);
    const calls = events.filter((e) => e.type === 'tool.call').map((e) => e.payload as Json);
    expect(calls.map((c) => c.name)).toEqual(['view', 'launch-process', 'save-file', 'str-replace-editor', 'view']);
    const intents = calls.map((c) => auggieVocabulary.parse(c.name, c.input, context));
    expect(intents.map((i) => i?.kind)).toEqual(['read', 'shell', 'write', 'edit', 'read']);
    expect(intents[3]).toEqual({ kind: 'edit', path: 'summary.md', edits: [{ old: 'say hello.', new: 'say hello, in two lines.' }] });
    for (const intent of intents as Intent[]) {
      const rendered = auggieVocabulary.render(intent, context)!;
      expect(rendered.every((r) => auggieVocabulary.tools.has(r.name))).toBe(true);
      const back = rendered.map((r) => auggieVocabulary.parse(r.name, r.input, context));
      if (intent.kind === 'edit') {
        // Rendered as a patch: the same file, the same replacement.
        expect(back).toEqual([{ kind: 'patch', files: [{ op: 'update', path: '/home/user/proj/summary.md', hunks: intent.edits }] }]);
      } else if ('path' in intent) {
        expect(back).toEqual([{ ...intent, path: `/home/user/proj/${intent.path}` }]);
      } else {
        expect(back).toEqual([intent]);
      }
    }
  });

  it('Claude → Auggie: Read with a range, Write, Bash, Grep, Edit as a patch; a directory view and task tools have no intent', () => {
    const context = { cwd: '/p', plan: new PlanState() };
    const to = (name: string, input: Json) => auggieVocabulary.render(claudeVocabulary.parse(name, input, context)!, context);
    expect(to('Read', { file_path: '/p/a.ts', offset: 10, limit: 5 })).toEqual([{ name: 'view', input: { path: '/p/a.ts', type: 'file', view_range: [10, 14] } }]);
    expect(to('Write', { file_path: 'b.txt', content: 'x\n' })).toEqual([{ name: 'save-file', input: { path: '/p/b.txt', file_content: 'x\n', add_last_line_newline: false } }]);
    expect(to('Bash', { command: 'npm test' })).toEqual([{ name: 'launch-process', input: { command: 'npm test', wait: true, max_wait_seconds: 60, cwd: '/p' } }]);
    expect(to('Grep', { pattern: 'TODO', path: '/p/a.ts' })).toEqual([{ name: 'view', input: { path: '/p/a.ts', type: 'file', search_query_regex: 'TODO' } }]);
    const edit = to('Edit', { file_path: '/p/a.ts', old_string: 'a', new_string: 'b' })!;
    expect(edit).toHaveLength(1);
    expect(edit[0].name).toBe('apply_patch');
    expect((edit[0].input as Json).input).toContain('*** Update File: /p/a.ts');
    expect(auggieVocabulary.parse('view', { path: 'src', type: 'directory' }, context)).toBeUndefined();
    expect(auggieVocabulary.parse('add_tasks', { tasks: [] }, context)).toBeUndefined();
    expect(auggieVocabulary.parse('str-replace-editor', { command: 'insert', path: 'a', insert_line_entries: [] }, context)).toBeUndefined();
    expect(auggieVocabulary.parse('view', 'not an object', context)).toBeUndefined();
  });
});
