// The Continue CLI tool vocabulary (adapters/continue/vocabulary.ts) on the recorded calls: every call
// with an intent reads into it and renders back as the same call; List stays native; calls of other
// agents land on the tools the client offers.
import { describe, expect, it } from 'vitest';
import { continueCli } from '../../adapters/continue/index.js';
import { continueVocabulary } from '../../adapters/continue/vocabulary.js';
import { claudeVocabulary } from '../../lib/formats/claude-code/vocabulary.js';
import { PlanState } from '../../lib/relay/vocabulary/types.js';
import { captureAll } from '../contract/testAdapter.js';
import { SUMMARY } from './support.js';

type Json = Record<string, any>;

describe('Continue vocabulary', () => {
  it('reads the recorded calls into intents and writes them back as the same calls (paths made absolute)', async () => {
    const context = { cwd: '/home/user/proj', plan: new PlanState() };
    const { events } = await captureAll(continueCli, SUMMARY);
    const calls = events.filter((e) => e.type === 'tool.call').map((e) => e.payload as Json);
    const back = calls.map(({ name, input }) => {
      const intent = continueVocabulary.parse(name, input, context);
      return intent ? continueVocabulary.render(intent, context) : undefined;
    });
    expect(back).toEqual([
      [{ name: 'Write', input: { filepath: '/home/user/proj/summary.md', content: '# Summary\nhello\n' } }],
      [{ name: 'MultiEdit', input: { file_path: '/home/user/proj/summary.md', edits: [{ old_string: 'hello', new_string: 'hello from notes' }] } }],
      [{ name: 'Read', input: { filepath: '/home/user/proj/missing.txt' } }],
      [{ name: 'Bash', input: { command: 'rg -n hello' } }],
      [{ name: 'Read', input: { filepath: '/home/user/proj/summary.md' } }],
      [{ name: 'MultiEdit', input: { file_path: '/home/user/proj/summary.md', edits: [{ old_string: 'hello', new_string: 'hello from notes' }] } }],
      undefined,
    ]);
  });

  it('Claude → Continue and back', () => {
    const context = { cwd: '/p', plan: new PlanState() };
    const to = (name: string, input: Json) => continueVocabulary.render(claudeVocabulary.parse(name, input, context)!, context);
    expect(to('Read', { file_path: '/p/a.js', offset: 3, limit: 5 })).toEqual([{ name: 'Read', input: { filepath: '/p/a.js' } }]);
    expect(to('Edit', { file_path: '/p/a.js', old_string: 'x', new_string: 'y', replace_all: true })).toEqual([{ name: 'MultiEdit', input: { file_path: '/p/a.js', edits: [{ old_string: 'x', new_string: 'y', replace_all: true }] } }]);
    expect(to('Write', { file_path: 'b.js', content: 'z' })).toEqual([{ name: 'Write', input: { filepath: '/p/b.js', content: 'z' } }]);
    expect(to('Bash', { command: 'ls', timeout: 120000 })).toEqual([{ name: 'Bash', input: { command: 'ls', timeout: 120 } }]);
    expect(to('WebFetch', { url: 'https://example.com', prompt: 'x' })).toEqual([{ name: 'Fetch', input: { url: 'https://example.com' } }]);
    const back = claudeVocabulary.render(continueVocabulary.parse('MultiEdit', { file_path: '/p/a.js', edits: [{ old_string: 'x', new_string: 'y' }] }, context)!, context);
    expect(back).toEqual([{ name: 'Edit', input: { file_path: '/p/a.js', old_string: 'x', new_string: 'y', replace_all: false } }]);
    expect(continueVocabulary.parse('MultiEdit', { file_path: '/p/a.js', edits: [{ old_string: 1 }] }, context)).toBeUndefined();
    expect(continueVocabulary.parse('Read', 'not an object', context)).toBeUndefined();
  });
});
