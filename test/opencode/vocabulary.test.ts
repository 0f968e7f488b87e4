// The OpenCode tool vocabulary (lib/relay/vocabulary/opencode.ts) on the corpus calls: every
// read/write/edit/bash/todowrite call reads into an intent and renders back as the same call.
import { describe, expect, it } from 'vitest';
import { opencode } from '../../adapters/opencode/index.js';
import { opencodeVocabulary } from '../../adapters/opencode/vocabulary.js';
import { copilotVocabulary } from '../../adapters/copilot/vocabulary.js';
import { PlanState } from '../../lib/relay/vocabulary/types.js';
import { captureAll } from '../contract/testAdapter.js';
import { DB, FAILING, FEATURE, locator } from './support.js';

type Json = Record<string, any>;

describe('OpenCode vocabulary', () => {
  it('reads every corpus call into an intent and writes it back as the same call', async () => {
    const context = { cwd: '/home/grace/acme-api', plan: new PlanState() };
    let checked = 0;
    for (const id of [FEATURE, FAILING]) {
      const { events } = await captureAll(opencode, locator(DB, id));
      for (const call of events.filter((e) => e.type === 'tool.call')) {
        const { name, input } = call.payload as Json;
        const intent = opencodeVocabulary.parse(name, input, context);
        expect(intent, name).toBeDefined();
        const [back] = opencodeVocabulary.render(intent!, { cwd: context.cwd, plan: new PlanState() })!;
        expect(back.name).toBe(name);
        if (name === 'todowrite') expect((back.input as Json).todos.map((t: Json) => [t.content, t.status])).toEqual(input.todos.map((t: Json) => [t.content, t.status]));
        else if (name === 'bash') expect((back.input as Json).command).toBe(input.command);
        else expect(back.input).toEqual(input);
        checked += 1;
      }
    }
    expect(checked).toBe(11);
  });

  it('OpenCode → Copilot: read/edit/write/bash become view/edit/create/bash with absolute paths; a plan has no Copilot tool', () => {
    const context = { cwd: '/p', plan: new PlanState() };
    const to = (name: string, input: Json) => copilotVocabulary.render(opencodeVocabulary.parse(name, input, context)!, context);
    expect(to('read', { filePath: '/p/a.js', offset: 10, limit: 5 })).toEqual([{ name: 'view', input: { path: '/p/a.js', view_range: [10, 14] } }]);
    expect(to('edit', { filePath: '/p/a.js', oldString: 'x', newString: 'y' })).toEqual([{ name: 'edit', input: { path: '/p/a.js', old_str: 'x', new_str: 'y' } }]);
    expect(to('write', { filePath: '/p/b.js', content: 'z' })).toEqual([{ name: 'create', input: { path: '/p/b.js', file_text: 'z' } }]);
    expect(to('bash', { command: 'npm test', description: 'Run tests' })).toEqual([{ name: 'bash', input: { command: 'npm test', description: 'Run tests' } }]);
    expect(to('edit', { filePath: '/p/a.js', oldString: 'x', newString: 'y', replaceAll: true })).toBeUndefined();
    expect(to('todowrite', { todos: [{ content: 'a', status: 'pending', priority: 'high' }] })).toBeUndefined();
  });

  it('read results lose the <content> wrapper and line numbers for other agents', () => {
    const text = '<path>/p/a.js</path>\n<type>file</type>\n<content>\n1: one\n2: two\n\n(End of file - total 2 lines)\n</content>';
    expect(opencodeVocabulary.plainResult!('read', text).text).toBe('one\ntwo\n');
  });
});
