// Issue #19: no function in the toolkit's code is longer than 150 lines. A function that grows past
// that is split into named steps; this test measures every function, method, getter and arrow in
// bin/, lib/, adapters/, flows/ and web/ with the TypeScript parser (from its first to its last line).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const FOLDERS = ['bin', 'lib', 'adapters', 'flows', 'web'];
const MAX_LINES = 150;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (/\.m?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Every function-like node with a body in `text`: where it starts, its name and its length in lines. */
export function functionLengths(file: string, text: string): Array<{ where: string; lines: number }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ where: string; lines: number }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const named = (node as { name?: ts.Node }).name ?? (node.parent as { name?: ts.Node }).name;
      found.push({ where: `${file}:${first + 1} ${named ? named.getText(source) : '(anonymous)'}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function length', () => {
  it('measures functions, methods and arrows, nested ones too (the measure itself)', () => {
    const body = (n: number) => Array.from({ length: n }, (_, k) => `  const v${k} = ${k};`).join('\n');
    const text = `function outer() {\n${body(3)}\n  const inner = () => {\n${body(2)}\n  };\n}\nclass A {\n  m() {\n${body(4)}\n  }\n}\n`;
    expect(functionLengths('x.ts', text)).toEqual([
      { where: 'x.ts:1 outer', lines: 9 },
      { where: 'x.ts:5 inner', lines: 4 },
      { where: 'x.ts:11 m', lines: 6 },
    ]);
  });

  it(`no function in ${FOLDERS.join(', ')} is longer than ${MAX_LINES} lines`, () => {
    const long = FOLDERS.flatMap((folder) => sources(join(ROOT, folder)))
      .flatMap((path) => functionLengths(relative(ROOT, path), readFileSync(path, 'utf8')))
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${f.where}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });
});
