// The relay's tool vocabularies one by one (lib/relay/vocabulary/*.ts) and the apply_patch text
// format (lib/relay/patch.ts): native call → intent → native call, on the shapes the corpus holds.
import { describe, expect, it } from 'vitest';
import { buildPatch, hunkLines, parsePatch } from '../lib/relay/patch.js';
import { VOCABULARIES } from './support/vocabularies.js';
import { PlanState, readFromCommand, type VocabularyContext } from '../lib/relay/vocabulary/types.js';

const ctx = (cwd = '/home/u/app'): VocabularyContext => ({ cwd, plan: new PlanState() });

describe('apply_patch text', () => {
  // The shape Codex 0.171 records as a custom_tool_call input (fixtures/codex/corpus S3).
  const multi = [
    '*** Begin Patch',
    '*** Add File: CHANGELOG.md',
    '+# Changelog',
    '+',
    '+- PATCH /todos/:id',
    '*** Update File: src/routes/todos.js',
    '@@ function createTodo(input) {',
    '-  const todo = { id: nextId++, title: input.title.trim(), done: false };',
    '+  const todo = { id: nextId++, title: input.title.trim(), done: false, createdAt: new Date().toISOString() };',
    '   todos.set(todo.id, todo);',
    '@@',
    ' function a() {}',
    '+function b() {}',
    '*** Delete File: old.js',
    '*** Update File: a.txt',
    '*** Move to: b.txt',
    '@@',
    '-x',
    '+y',
    '*** End Patch',
    '',
  ].join('\n');

  it('parses adds, updates with several hunks (context in both old and new), deletes and moves', () => {
    expect(parsePatch(multi)).toEqual([
      { op: 'add', path: 'CHANGELOG.md', content: '# Changelog\n\n- PATCH /todos/:id\n' },
      {
        op: 'update',
        path: 'src/routes/todos.js',
        hunks: [
          {
            old: '  const todo = { id: nextId++, title: input.title.trim(), done: false };\n  todos.set(todo.id, todo);',
            new: '  const todo = { id: nextId++, title: input.title.trim(), done: false, createdAt: new Date().toISOString() };\n  todos.set(todo.id, todo);',
          },
          { old: 'function a() {}', new: 'function a() {}\nfunction b() {}' },
        ],
      },
      { op: 'delete', path: 'old.js' },
      { op: 'update', path: 'a.txt', moveTo: 'b.txt', hunks: [{ old: 'x', new: 'y' }] },
    ]);
  });

  it('builds a patch that parses back to the same files', () => {
    const files = parsePatch(multi)!;
    expect(parsePatch(buildPatch(files))).toEqual(files);
  });

  it('is not a patch without Begin/End or with a line it cannot place', () => {
    expect(parsePatch('*** Update File: a\n@@\n-x\n+y\n')).toBeUndefined();
    expect(parsePatch('*** Begin Patch\n*** Update File: a\n@@\n?x\n*** End Patch')).toBeUndefined();
    expect(parsePatch('*** Begin Patch\n*** End Patch')).toBeUndefined();
  });

  it('a replacement as hunk lines: shared leading and trailing lines are context, a shared final newline too', () => {
    expect(hunkLines({ old: 'a\nb\nc', new: 'a\nB\nc' })).toEqual([' a', '-b', '+B', ' c']);
    const withNewline = { old: 'x = 1;\n', new: 'x = 2;\n' };
    expect(hunkLines(withNewline)).toEqual(['-x = 1;', '+x = 2;', ' ']);
    expect(parsePatch(buildPatch([{ op: 'update', path: 'f', hunks: [withNewline] }]))![0]).toEqual({ op: 'update', path: 'f', hunks: [withNewline] });
    // An insertion at a line: old is the anchor line, new the anchor plus the new lines.
    expect(hunkLines({ old: 'end', new: 'end\nmore' })).toEqual([' end', '+more']);
  });
});

describe('shell reads', () => {
  it('cat, sed -n and head are reads of a file; anything else is a command', () => {
    expect(readFromCommand("sed -n '1,120p' src/routes/todos.js")).toEqual({ path: 'src/routes/todos.js', offset: 1, limit: 120 });
    expect(readFromCommand('cat src/db.js')).toEqual({ path: 'src/db.js' });
    expect(readFromCommand("cat 'a b.txt'")).toEqual({ path: 'a b.txt' });
    expect(readFromCommand('head -n 20 README.md')).toEqual({ path: 'README.md', offset: 1, limit: 20 });
    expect(readFromCommand('cat a.js | grep x')).toBeUndefined();
    expect(readFromCommand('cat a.js b.js')).toBeUndefined();
    expect(readFromCommand('npm test')).toBeUndefined();
  });
});

describe('Claude', () => {
  const claude = VOCABULARIES.claude;
  it('Read/Write/Edit/MultiEdit/Bash/Glob/Grep are intents with absolute paths back', () => {
    const c = ctx();
    expect(claude.parse('Read', { file_path: '/home/u/app/a.js', offset: 5, limit: 10 }, c)).toEqual({ kind: 'read', path: '/home/u/app/a.js', offset: 5, limit: 10 });
    expect(claude.parse('MultiEdit', { file_path: '/x', edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'c', new_string: 'd', replace_all: true }] }, c)).toEqual({
      kind: 'edit', path: '/x', edits: [{ old: 'a', new: 'b', all: undefined }, { old: 'c', new: 'd', all: true }],
    });
    expect(claude.render({ kind: 'read', path: 'src/a.js', offset: 1, limit: 80 }, c)).toEqual([{ name: 'Read', input: { file_path: '/home/u/app/src/a.js', offset: 1, limit: 80 } }]);
    // No MultiEdit in Claude Code 2.1.197: one Edit per replacement.
    expect(claude.render({ kind: 'edit', path: 'a', edits: [{ old: '1', new: '2' }, { old: '3', new: '4' }] }, c)!.map((x) => x.name)).toEqual(['Edit', 'Edit']);
    expect(claude.render({ kind: 'search', mode: 'content', pattern: 'TODO', glob: '*.js' }, c)).toEqual([{ name: 'Grep', input: { pattern: 'TODO', output_mode: 'content', glob: '*.js' } }]);
    expect(claude.render({ kind: 'shell', command: 'ls', cwd: '/tmp' }, c)).toEqual([{ name: 'Bash', input: { command: "cd /tmp && ls" } }]);
  });

  it('TaskCreate/TaskUpdate keep a numbered plan; a plan is never written as a Claude call', () => {
    const c = ctx();
    claude.parse('TaskCreate', { subject: 'one', description: '' }, c);
    claude.parse('TaskCreate', { subject: 'two', description: '' }, c);
    expect(claude.parse('TaskUpdate', { taskId: '2', status: 'in_progress' }, c)).toEqual({
      kind: 'plan', items: [{ id: '1', text: 'one', status: 'pending' }, { id: '2', text: 'two', status: 'in_progress' }],
    });
    expect(claude.parse('TaskUpdate', { taskId: '9', status: 'completed' }, c)).toBeUndefined();
    expect(claude.render({ kind: 'plan', items: [] }, c)).toBeUndefined();
  });

  it('Read results lose their line numbers and the reminder the client appends', () => {
    expect(claude.plainResult!('Read', "     1\t'use strict';\n     2\t\n     3\tconst x = 1;\n\n<system-reminder>\nWhenever you read a file…\n</system-reminder>\n")).toEqual({ text: "'use strict';\n\nconst x = 1;\n" });
    expect(claude.plainResult!('Bash', '     1\tnot a file')).toEqual({ text: '     1\tnot a file' });
  });
});

describe('Codex', () => {
  const codex = VOCABULARIES.codex;
  it('exec_command and shell argv: reads or commands; apply_patch: write, edit or patch', () => {
    const c = ctx();
    expect(codex.parse('exec_command', { cmd: 'npm test', workdir: '/home/u/app' }, c)).toEqual({ kind: 'shell', command: 'npm test', cwd: '/home/u/app' });
    expect(codex.parse('shell', { command: ['bash', '-lc', "sed -n '3,4p' a.js"], workdir: '/w' }, c)).toEqual({ kind: 'read', path: 'a.js', offset: 3, limit: 2 });
    expect(codex.parse('shell', { command: ['ls', '-la', 'my dir'] }, c)).toEqual({ kind: 'shell', command: "ls -la 'my dir'", cwd: undefined });
    expect(codex.parse('apply_patch', '*** Begin Patch\n*** Add File: n.txt\n+hi\n*** End Patch\n', c)).toEqual({ kind: 'write', path: 'n.txt', content: 'hi\n' });
    expect(codex.parse('apply_patch', '*** Begin Patch\n*** Delete File: n.txt\n*** End Patch\n', c)).toEqual({ kind: 'patch', files: [{ op: 'delete', path: 'n.txt' }] });
    expect(codex.parse('update_plan', { explanation: 'why', plan: [{ step: 's', status: 'in_progress' }] }, c)).toEqual({ kind: 'plan', explanation: 'why', items: [{ text: 's', status: 'in_progress' }] });
  });

  it('writes reads as sed/cat commands in the cwd, edits and writes as custom apply_patch calls with relative paths', () => {
    const c = ctx();
    expect(codex.render({ kind: 'read', path: '/home/u/app/src/a.js', offset: 10, limit: 5 }, c)).toEqual([{ name: 'exec_command', input: { cmd: "sed -n '10,14p' src/a.js", workdir: '/home/u/app', yield_time_ms: 10000 } }]);
    expect(codex.render({ kind: 'read', path: '/etc/hosts' }, c)![0].input).toMatchObject({ cmd: 'cat /etc/hosts' });
    const [edit] = codex.render({ kind: 'edit', path: '/home/u/app/a.js', edits: [{ old: 'a', new: 'b' }] }, c)!;
    expect(edit).toEqual({ name: 'apply_patch', custom: true, input: '*** Begin Patch\n*** Update File: a.js\n@@\n-a\n+b\n*** End Patch\n' });
  });

  it('exec output without the client header; a non-zero exit is an error', () => {
    const ok = 'Chunk ID: 378d0c\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 270\nOutput:\nhello\n';
    expect(codex.plainResult!('exec_command', ok)).toEqual({ text: 'hello\n' });
    const failed = 'Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 1\nOriginal token count: 3\nOutput:\ncat: x: No such file\n';
    expect(codex.plainResult!('exec_command', failed)).toEqual({ text: 'cat: x: No such file\n(exit code 1)', isError: true });
    expect(codex.plainResult!('apply_patch', 'Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM a.js\n')).toEqual({ text: 'Success. Updated the following files:\nM a.js\n' });
    expect(codex.plainResult!('shell', '{"output":"x","metadata":{"exit_code":2}}')).toEqual({ text: 'x\n(exit code 2)', isError: true });
  });
});

describe('Pi', () => {
  const pi = VOCABULARIES.pi;
  it('edit with edits[] (0.73) or oldText/newText (older files); bash timeouts in seconds', () => {
    const c = ctx();
    expect(pi.parse('edit', { path: 'a', edits: [{ oldText: 'x', newText: 'y' }] }, c)).toEqual({ kind: 'edit', path: 'a', edits: [{ old: 'x', new: 'y' }] });
    expect(pi.parse('edit', { path: 'a', oldText: 'x', newText: 'y' }, c)).toEqual({ kind: 'edit', path: 'a', edits: [{ old: 'x', new: 'y' }] });
    expect(pi.parse('bash', { command: 'sleep 1', timeout: 30 }, c)).toEqual({ kind: 'shell', command: 'sleep 1', timeoutMs: 30000 });
    expect(pi.render({ kind: 'shell', command: 'sleep 1', timeoutMs: 1500 }, c)).toEqual([{ name: 'bash', input: { command: 'sleep 1', timeout: 2 } }]);
  });

  it('a multi-file patch is one call per file; no plan tool, searches through bash', () => {
    const c = ctx();
    const calls = pi.render({ kind: 'patch', files: [{ op: 'add', path: '/home/u/app/n.md', content: 'x\n' }, { op: 'update', path: 'a.js', hunks: [{ old: '1', new: '2' }] }, { op: 'delete', path: 'old.js' }] }, c)!;
    expect(calls).toEqual([
      { name: 'write', input: { path: 'n.md', content: 'x\n' } },
      { name: 'edit', input: { path: 'a.js', edits: [{ oldText: '1', newText: '2' }] } },
      { name: 'bash', input: { command: 'rm old.js' } },
    ]);
    expect(pi.render({ kind: 'plan', items: [] }, c)).toBeUndefined();
    expect(pi.render({ kind: 'search', mode: 'content', pattern: 'a b', path: 'src' }, c)).toEqual([{ name: 'bash', input: { command: "rg -n 'a b' src" } }]);
  });
});

describe('Hermes', () => {
  const hermes = VOCABULARIES.hermes;
  it('patch in replace and patch mode, todo with merge, search_files', () => {
    const c = ctx();
    expect(hermes.parse('patch', { mode: 'replace', path: 'a', old_string: 'x', new_string: 'y' }, c)).toEqual({ kind: 'edit', path: 'a', edits: [{ old: 'x', new: 'y', all: undefined }] });
    expect(hermes.parse('patch', { mode: 'patch', patch: '*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch' }, c)).toEqual({ kind: 'edit', path: 'a', edits: [{ old: 'x', new: 'y' }] });
    hermes.parse('todo', { todos: [{ id: '1', content: 'one', status: 'in_progress' }, { id: '2', content: 'two', status: 'pending' }] }, c);
    expect(hermes.parse('todo', { merge: true, todos: [{ id: '1', status: 'completed' }] }, c)).toEqual({
      kind: 'plan', items: [{ id: '1', text: 'one', status: 'completed' }, { id: '2', text: 'two', status: 'pending' }],
    });
    expect(hermes.parse('search_files', { pattern: '*.js', target: 'files' }, c)).toEqual({ kind: 'search', mode: 'files', pattern: '*.js', path: undefined, glob: undefined });
    // Several replacements in one file: patch mode.
    expect(hermes.render({ kind: 'edit', path: 'a', edits: [{ old: '1', new: '2' }, { old: '3', new: '4' }] }, c)![0].input).toMatchObject({ mode: 'patch' });
  });

  it('results: JSON envelopes as plain text, read_file line numbers removed, errors kept as errors', () => {
    expect(hermes.plainResult!('read_file', JSON.stringify({ content: "1|'use strict';\n2|\n3|x", total_lines: 3 }))).toEqual({ text: "'use strict';\n\nx" });
    expect(hermes.plainResult!('terminal', JSON.stringify({ output: 'ok\n', exit_code: 0, error: null }))).toEqual({ text: 'ok\n', isError: undefined });
    expect(hermes.plainResult!('terminal', JSON.stringify({ output: 'fail', exit_code: 1, error: null }))).toEqual({ text: 'fail\n(exit code 1)', isError: true });
    expect(hermes.plainResult!('patch', JSON.stringify({ success: true, diff: '--- a\n+++ b\n' }))).toEqual({ text: '--- a\n+++ b\n' });
    expect(hermes.plainResult!('read_file', JSON.stringify({ error: 'File not found: x' }))).toEqual({ text: 'File not found: x', isError: true });
    expect(hermes.plainResult!('terminal', 'not json')).toEqual({ text: 'not json' });
  });
});

describe('subagents and the web', () => {
  it('Claude Agent ⇄ Hermes delegate_task, WebSearch ⇄ web_search; agents without them get none', () => {
    const c = ctx();
    const task = VOCABULARIES.claude.parse('Agent', { description: 'Survey acme-api layout', prompt: 'Survey this Node project.', subagent_type: 'Explore' }, c)!;
    expect(VOCABULARIES.hermes.render(task, c)).toEqual([{ name: 'delegate_task', input: { goal: 'Survey this Node project.' } }]);
    expect(VOCABULARIES.claude.render(VOCABULARIES.hermes.parse('delegate_task', { goal: 'Fix the test', context: 'npm test fails' }, c)!, c)).toEqual([
      { name: 'Agent', input: { description: 'Fix the test', prompt: 'Fix the test\n\nnpm test fails' } },
    ]);
    expect(VOCABULARIES.hermes.parse('delegate_task', { tasks: [{ goal: 'a' }, { goal: 'b' }] }, c)).toBeUndefined();
    const search = VOCABULARIES.hermes.parse('web_search', { query: 'node test runner' }, c)!;
    expect(VOCABULARIES.claude.render(search, c)).toEqual([{ name: 'WebSearch', input: { query: 'node test runner' } }]);
    // A WebFetch asks a question about the page: web_extract cannot, so it is rendered.
    expect(VOCABULARIES.hermes.render(VOCABULARIES.claude.parse('WebFetch', { url: 'https://x.test', prompt: 'title?' }, c)!, c)).toBeUndefined();
    for (const agent of ['codex', 'pi']) {
      expect(VOCABULARIES[agent].render(task, c)).toBeUndefined();
      expect(VOCABULARIES[agent].render(search, c)).toBeUndefined();
    }
  });
});

