// The shared adapter contract suite (test/contract/testAdapter.ts) on every Copilot fixture. A
// session's id is its folder name when line 1 is not there yet, so copies and the growing copy
// live in a folder named like the source's.
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { copilot } from '../../adapters/copilot/index.js';
import { testAdapter, type Grower } from '../contract/testAdapter.js';
import { ALL, ANTHROPIC, HOME, OPENAI } from './support.js';

function copy(fixture: string, dir: string): string {
  const folder = join(dir, basename(dirname(fixture)));
  mkdirSync(folder, { recursive: true });
  const path = join(folder, basename(fixture));
  copyFileSync(fixture, path);
  return path;
}

function lines(fixture: string): string[] {
  return readFileSync(fixture, 'utf8').split(/(?<=\n)/);
}

function grow(fixture: string, dir: string): Grower {
  const all = lines(fixture);
  const path = copy(fixture, dir);
  writeFileSync(path, '');
  let added = 0;
  return {
    path,
    count: all.length,
    add(i) {
      appendFileSync(path, all[i]);
      added = i + 1;
      return { from: i + 1, to: i + 1 };
    },
    truncate() {
      writeFileSync(path, all.slice(0, added - 1).join(''));
    },
    rewrite() {
      const last = all[added - 1].replace('"type"', '"type" ');
      writeFileSync(path, all.slice(0, added - 1).join('') + last);
    },
  };
}

testAdapter(copilot, {
  fixtures: ALL,
  home: HOME,
  copy,
  incremental: { fixtures: [OPENAI, ANTHROPIC], grow },
  // The recorded cwd (/home/judy/…) does not exist here; the writer records it as it is.
  roundTrip: { fixtures: [OPENAI, ANTHROPIC], options: (home) => ({ home }) },
});
