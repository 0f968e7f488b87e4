// The Cline CLI tool vocabulary (adapters/cline/vocabulary.ts) on the recorded calls: every call
// reads into an intent and renders back as the same call; batches that hold several files or commands
// have no single intent and stay native.
import { describe, expect, it } from 'vitest';
import { cline } from '../../adapters/cline/index.js';
import { clineVocabulary } from '../../adapters/cline/vocabulary.js';
import { copilotVocabulary } from '../../adapters/copilot/vocabulary.js';
import { PlanState } from '../../lib/relay/vocabulary/types.js';
import { captureAll } from '../contract/testAdapter.js';
import { SUMMARY } from './support.js';

type Json = Record<string, any>;

describe('Cline vocabulary', () => {
  it('reads every recorded call into an intent and writes it back as the same call', async () => {
    const context = { cwd: '/home/user/proj', plan: new PlanState() };
    const { events } = await captureAll(cline, SUMMARY);
    const calls = events.filter((e) => e.type === 'tool.call');
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      const { name, input } = call.payload as Json;
      const intent = clineVocabulary.parse(name, input, context);
      expect(intent, name).toBeDefined();
      expect(clineVocabulary.render(intent!, context)).toEqual([{ name, input }]);
    }
  });

  it('Copilot → Cline and back; batches and replace-all edits have no counterpart', () => {
    const context = { cwd: '/p', plan: new PlanState() };
    const to = (name: string, input: Json) => clineVocabulary.render(copilotVocabulary.parse(name, input, context)!, context);
    expect(to('view', { path: '/p/a.js', view_range: [3, 7] })).toEqual([{ name: 'read_files', input: { files: [{ path: '/p/a.js', start_line: 3, end_line: 7 }] } }]);
    expect(to('edit', { path: '/p/a.js', old_str: 'x', new_str: 'y' })).toEqual([{ name: 'editor', input: { path: '/p/a.js', old_text: 'x', new_text: 'y' } }]);
    expect(to('create', { path: 'b.js', file_text: 'z' })).toEqual([{ name: 'editor', input: { path: '/p/b.js', new_text: 'z' } }]);
    expect(to('bash', { command: 'ls', description: 'List' })).toEqual([{ name: 'run_commands', input: { commands: ['ls'] } }]);
    expect(clineVocabulary.parse('read_files', { files: [{ path: '/a' }, { path: '/b' }] }, context)).toBeUndefined();
    expect(clineVocabulary.parse('run_commands', { commands: ['a', 'b'] }, context)).toBeUndefined();
    expect(clineVocabulary.render({ kind: 'edit', path: '/p/a', edits: [{ old: 'x', new: 'y', all: true }] }, context)).toBeUndefined();
    const back = copilotVocabulary.render(clineVocabulary.parse('editor', { path: '/p/a.js', old_text: 'x', new_text: 'y' }, context)!, context);
    expect(back).toEqual([{ name: 'edit', input: { path: '/p/a.js', old_str: 'x', new_str: 'y' } }]);
  });
});
