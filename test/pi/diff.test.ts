// Pi's numbered display diff (edit results' details.diff) → unified diff, and whole-file writes.
import { describe, expect, it } from 'vitest';
import { fromPiDisplayDiff, wholeFileDiff } from '../../adapters/pi/diff.js';

describe('fromPiDisplayDiff', () => {
  it('converts hunks with context, using old numbers for context/removed and new ones for added lines', () => {
    const display = ['   ...', ' 4 a', '-5 b', '+5 B', '+6 B2', ' 6 c', '   ...', '-9 x', ' 10 y'].join('\n');
    expect(fromPiDisplayDiff('src/f.js', display)).toEqual({
      diff: '--- a/src/f.js\n+++ b/src/f.js\n@@ -4,3 +4,4 @@\n a\n-b\n+B\n+B2\n c\n@@ -9,2 +10,1 @@\n-x\n y\n',
      added: 2,
      removed: 2,
    });
  });

  it('starts an insertion at the top of a file at line 1', () => {
    expect(fromPiDisplayDiff('f', '+1 new\n 1 old')?.diff).toBe('--- a/f\n+++ b/f\n@@ -1,1 +1,2 @@\n+new\n old\n');
    expect(fromPiDisplayDiff('f', '+1 only')?.diff).toBe('--- a/f\n+++ b/f\n@@ -0,0 +1,1 @@\n+only\n');
  });

  it('takes positions from the changed lines when an old client numbered the leading context wrongly', () => {
    // 0.30-era output: the three context lines before line 32 were numbered 2–4.
    const display = ['   ...', '   2 \t\tconst lines = [];', '   3 ', '   4 \t\tif (x) {', '- 32 \t\t\tlines.push(a);', '+ 32 \t\t\tlines.push(b);', '  33 \t\t}'].join('\n');
    expect(fromPiDisplayDiff('f.ts', display)?.diff).toBe('--- a/f.ts\n+++ b/f.ts\n@@ -29,5 +29,5 @@\n \t\tconst lines = [];\n \n \t\tif (x) {\n-\t\t\tlines.push(a);\n+\t\t\tlines.push(b);\n \t\t}\n');
  });

  it('refuses a diff whose changed lines do not add up, or that is not Pi\'s format', () => {
    expect(fromPiDisplayDiff('f', '-5 a\n+7 b')).toBeUndefined();
    expect(fromPiDisplayDiff('f', '@@ -1 +1 @@\n-a\n+b')).toBeUndefined();
    expect(fromPiDisplayDiff('f', '   ...')).toBeUndefined();
  });

  it('names files inside the cwd relative to it, others by their absolute path', () => {
    expect(fromPiDisplayDiff('/p/src/a.js', '-1 a\n+1 b', '/p')?.diff.split('\n').slice(0, 2)).toEqual(['--- a/src/a.js', '+++ b/src/a.js']);
    expect(fromPiDisplayDiff('/etc/hosts', '-1 a\n+1 b', '/p')?.diff.split('\n').slice(0, 2)).toEqual(['--- /etc/hosts', '+++ /etc/hosts']);
  });
});

describe('wholeFileDiff', () => {
  it('adds every line of a written file, marking a missing final newline', () => {
    expect(wholeFileDiff('CHANGELOG.md', '# x\n\ny\n')).toEqual({ diff: '--- /dev/null\n+++ b/CHANGELOG.md\n@@ -0,0 +1,3 @@\n+# x\n+\n+y\n', added: 3, removed: 0 });
    expect(wholeFileDiff('a', 'no newline').diff).toBe('--- /dev/null\n+++ b/a\n@@ -0,0 +1,1 @@\n+no newline\n\\ No newline at end of file\n');
    expect(wholeFileDiff('a', '')).toEqual({ diff: '--- /dev/null\n+++ b/a\n', added: 0, removed: 0 });
  });
});
