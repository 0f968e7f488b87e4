// The Goose and OpenHands vocabularies (adapters/*/vocabulary.ts, the shared editor-command shape in
// lib/relay/vocabulary/editor-command.ts) on the calls of their fixtures, and across the two.
import { describe, expect, it } from 'vitest';
import { goose } from '../../adapters/goose/index.js';
import { formatLocator } from '../../adapters/goose/paths.js';
import { gooseVocabulary } from '../../adapters/goose/vocabulary.js';
import { openhands } from '../../adapters/openhands/index.js';
import { openhandsVocabulary } from '../../adapters/openhands/vocabulary.js';
import { PlanState } from '../../lib/relay/vocabulary/types.js';
import { captureAll } from '../contract/testAdapter.js';
import { CONV_A } from '../openhands/support.js';
import { CWD_A, S1, buildHome, dbOf } from './support.js';

type Json = Record<string, any>;
const context = () => ({ cwd: CWD_A, plan: new PlanState() });

describe('Goose vocabulary', () => {
  it('reads the shell and text editor calls of a session and writes them back as the same calls', async () => {
    const { events } = await captureAll(goose, formatLocator(dbOf(buildHome()), S1));
    const calls = events.filter((e) => e.type === 'tool.call').map((e) => e.payload as Json);
    expect(calls).toHaveLength(3);
    for (const { name, input } of calls) {
      const intent = gooseVocabulary.parse(name, input, context());
      expect(intent, name).toBeDefined();
      expect(gooseVocabulary.render(intent!, context())).toEqual([{ name, input }]);
    }
  });

  it('writes whole files with write, relative paths made absolute; other extensions stay text', () => {
    expect(gooseVocabulary.render({ kind: 'write', path: 'src/a.py', content: 'x' }, context())).toEqual([{ name: 'developer__text_editor', input: { command: 'write', path: `${CWD_A}/src/a.py`, file_text: 'x' } }]);
    expect(gooseVocabulary.render({ kind: 'read', path: '/a', offset: 3, limit: 5 }, context())).toEqual([{ name: 'developer__text_editor', input: { command: 'view', path: '/a', view_range: [3, 7] } }]);
    expect(gooseVocabulary.render({ kind: 'shell', command: 'ls', cwd: '/tmp' }, context())).toEqual([{ name: 'developer__shell', input: { command: 'cd "/tmp" && ls' } }]);
    expect(gooseVocabulary.parse('developer__text_editor', { command: 'undo_edit', path: '/a' }, context())).toBeUndefined();
    expect(gooseVocabulary.parse('github__create_issue', { title: 'x' }, context())).toBeUndefined();
    expect(gooseVocabulary.render({ kind: 'web-search', query: 'x' }, context())).toBeUndefined();
  });
});

describe('OpenHands vocabulary', () => {
  it('reads the fixture calls; terminal and file_editor come back as the same call less the risk label', async () => {
    const { events } = await captureAll(openhands, CONV_A);
    const calls = events.filter((e) => e.type === 'tool.call').map((e) => e.payload as Json);
    const ctx = context();
    const intents = calls.map(({ name, input }) => openhandsVocabulary.parse(name, input, ctx));
    expect(intents.map((i) => i?.kind)).toEqual(['shell', 'edit', 'plan', undefined, 'shell', undefined]);
    expect(openhandsVocabulary.render(intents[0]!, ctx)).toEqual([{ name: 'terminal', input: { command: 'pytest -q tests/test_math.py' } }]);
    expect(openhandsVocabulary.render(intents[1]!, ctx)).toEqual([{ name: 'file_editor', input: calls[1].input }]);
    expect(intents[2]).toEqual({ kind: 'plan', items: [{ text: 'Fix add()', status: 'completed' }, { text: 'Re-run the tests — all of them', status: 'in_progress' }] });
    expect(openhandsVocabulary.render(intents[2]!, ctx)).toEqual([{ name: 'task_tracker', input: { command: 'plan', task_list: [{ title: 'Fix add()', notes: '', status: 'done' }, { title: 'Re-run the tests — all of them', notes: '', status: 'in_progress' }] } }]);
  });

  it('reads the classic agent\'s names; input to a running process is no command', () => {
    const ctx = context();
    expect(openhandsVocabulary.parse('execute_bash', { command: 'ls', timeout: 10 }, ctx)).toEqual({ kind: 'shell', command: 'ls', timeoutMs: 10_000 });
    expect(openhandsVocabulary.parse('str_replace_editor', { command: 'create', path: '/a', file_text: 'x' }, ctx)).toEqual({ kind: 'write', path: '/a', content: 'x' });
    expect(openhandsVocabulary.parse('terminal', { command: 'y', is_input: true }, ctx)).toBeUndefined();
    expect(openhandsVocabulary.render({ kind: 'write', path: 'b.txt', content: 'z' }, ctx)).toEqual([{ name: 'file_editor', input: { command: 'create', path: `${CWD_A}/b.txt`, file_text: 'z' } }]);
  });

  it('Goose → OpenHands: the editor and shell calls translate both ways', () => {
    const ctx = context();
    const edit = { command: 'str_replace', path: '/w/a.py', old_str: 'a', new_str: 'b' };
    expect(openhandsVocabulary.render(gooseVocabulary.parse('developer__text_editor', edit, ctx)!, ctx)).toEqual([{ name: 'file_editor', input: edit }]);
    expect(gooseVocabulary.render(openhandsVocabulary.parse('file_editor', edit, ctx)!, ctx)).toEqual([{ name: 'developer__text_editor', input: edit }]);
    expect(gooseVocabulary.render(openhandsVocabulary.parse('terminal', { command: 'make' }, ctx)!, ctx)).toEqual([{ name: 'developer__shell', input: { command: 'make' } }]);
  });
});
