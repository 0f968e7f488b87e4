// The shared adapter contract suite on the ATIF fixtures. A trajectory is one JSON document, so the
// injectors work on its structure: an unknown root field (passes through as meta, no diagnostic)
// and a step that breaks the schema (reported at its line, kept as meta). No incremental test: a
// trajectory is captured whole (--cursor is refused).
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { atif } from '../../adapters/atif/index.js';
import { testAdapter, type Injected } from '../contract/testAdapter.js';
import { FIXTURES } from './support.js';

/** A copy with `mutate` applied, pretty-printed as Harbor writes (one field per line). */
function mutated(fixture: string, dir: string, mutate: (doc: Record<string, unknown>) => void): string {
  const doc = JSON.parse(readFileSync(fixture, 'utf8')) as Record<string, unknown>;
  mutate(doc);
  const path = join(dir, basename(fixture));
  writeFileSync(path, JSON.stringify(doc, null, 2) + '\n');
  return path;
}

testAdapter(atif, {
  fixtures: FIXTURES,
  home: 'fixtures/atif',
  copy: (fixture, dir) => mutated(fixture, dir, () => undefined),
  injectUnknown: (fixture, dir): Injected => {
    const marker = `sp-contract-marker-${process.pid}`;
    const path = mutated(fixture, dir, (doc) => (doc.sp_future_field = { marker, nested: { kept: [1, 2, 3] } }));
    return { path, marker, line: 0 };
  },
  injectBroken: (fixture, dir): Injected => {
    let steps = 0;
    const path = mutated(fixture, dir, (doc) => {
      const list = doc.steps as unknown[];
      list.push({ step_id: list.length + 1, source: 'robot', message: 'cut off' });
      steps = list.length;
    });
    // The line the appended step starts on: the `{` after the previous step.
    const text = readFileSync(path, 'utf8').split('\n');
    const at = text.findIndex((l, i) => /^ {4}\{$/.test(l) && text.slice(i, i + 4).some((x) => x.includes(`"step_id": ${steps}`)));
    return { path, marker: '/source', line: at + 1 };
  },
  incremental: false,
  roundTrip: { options: (home) => ({ home, sameId: true }) },
});
