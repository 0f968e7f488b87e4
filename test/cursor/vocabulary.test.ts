// Cursor as a relay source: its captured calls (public transcripts, the IDE layout) read as intents
// that other agents' vocabularies write; nothing is written in Cursor's vocabulary.
import { describe, expect, it } from 'vitest';
import { cursor } from '../../adapters/cursor/index.js';
import { VOCABULARIES } from '../support/vocabularies.js';
import { PlanState, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';
import { captureAll } from '../contract/testAdapter.js';

const ctx = (): VocabularyContext => ({ cwd: '/home/u/proj', plan: new PlanState() });

describe('cursor vocabulary', () => {
  it('reads the calls of the public transcripts as intents Claude writes', async () => {
    const { events } = await captureAll(cursor, 'fixtures/cursor/agent-sessions/test-session.jsonl');
    const calls = events.filter((e) => e.type === 'tool.call').map((e) => e.payload as { name: string; input: unknown });
    const intents = calls.map((c) => VOCABULARIES.cursor.parse(c.name, c.input, ctx()));
    expect(intents).toEqual([
      { kind: 'shell', command: 'ls -la /tmp', description: 'List directory contents' },
      { kind: 'shell', command: 'git status', description: 'Check git status' },
    ]);
    expect(VOCABULARIES.claude.render(intents[1]!, ctx())).toEqual([{ name: 'Bash', input: { command: 'git status', description: 'Check git status' } }]);
  });

  it('reads the IDE and CLI argument names; edits without a documented shape and every render give undefined', () => {
    const v = VOCABULARIES.cursor;
    expect(v.parse('read_file', { target_file: 'src/net.ts' }, ctx())).toEqual({ kind: 'read', path: 'src/net.ts' });
    expect(v.parse('Read', { path: '/tmp/foo.txt' }, ctx())).toEqual({ kind: 'read', path: '/tmp/foo.txt' });
    expect(v.parse('Glob', { glob_pattern: '**/*.ts', target_directory: 'src' }, ctx())).toEqual({ kind: 'search', mode: 'files', pattern: '**/*.ts', path: 'src' });
    expect(v.parse('web_search', { search_term: 'vitest' }, ctx())).toEqual({ kind: 'web-search', query: 'vitest' });
    expect(v.parse('StrReplace', { path: 'a', old_string: 'x', new_string: 'y' }, ctx())).toBeUndefined();
    expect(v.render({ kind: 'read', path: 'a' }, ctx())).toBeUndefined();
  });
});
