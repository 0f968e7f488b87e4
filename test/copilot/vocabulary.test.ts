// The Copilot CLI tool vocabulary (lib/relay/vocabulary/copilot.ts) on the corpus calls: every
// view/create/edit/bash call reads into an intent and renders back as the same call.
import { describe, expect, it } from 'vitest';
import { copilot } from '../../adapters/copilot/index.js';
import { copilotVocabulary } from '../../adapters/copilot/vocabulary.js';
import { opencodeVocabulary } from '../../adapters/opencode/vocabulary.js';
import { PlanState } from '../../lib/relay/vocabulary/types.js';
import { captureAll } from '../contract/testAdapter.js';
import { ANTHROPIC, OPENAI } from './support.js';

type Json = Record<string, any>;

describe('Copilot vocabulary', () => {
  it('reads every corpus call into an intent and writes it back as the same call', async () => {
    const context = { cwd: '/home/judy/acme-api', plan: new PlanState() };
    let checked = 0;
    for (const path of [OPENAI, ANTHROPIC]) {
      const { events } = await captureAll(copilot, path);
      for (const call of events.filter((e) => e.type === 'tool.call')) {
        const { name, input } = call.payload as Json;
        const intent = copilotVocabulary.parse(name, input, context);
        expect(intent, name).toBeDefined();
        const back = copilotVocabulary.render(intent!, context)!;
        expect(back).toEqual([{ name, input }]);
        checked += 1;
      }
    }
    expect(checked).toBe(18);
  });

  it('Copilot → OpenCode: view/create/edit/bash become read/write/edit/bash', () => {
    const context = { cwd: '/p', plan: new PlanState() };
    const to = (name: string, input: Json) => opencodeVocabulary.render(copilotVocabulary.parse(name, input, context)!, context);
    expect(to('view', { path: '/p/a.js', view_range: [3, 7] })).toEqual([{ name: 'read', input: { filePath: '/p/a.js', offset: 3, limit: 5 } }]);
    expect(to('create', { path: '/p/b.js', file_text: 'z' })).toEqual([{ name: 'write', input: { filePath: '/p/b.js', content: 'z' } }]);
    expect(to('edit', { path: '/p/a.js', old_str: 'x', new_str: 'y' })).toEqual([{ name: 'edit', input: { filePath: '/p/a.js', oldString: 'x', newString: 'y' } }]);
    expect(to('bash', { command: 'ls', description: 'List' })).toEqual([{ name: 'bash', input: { command: 'ls', description: 'List' } }]);
  });
});
