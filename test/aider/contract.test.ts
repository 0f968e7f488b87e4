// The shared adapter contract suite on the Aider fixtures (Markdown: its own injectors).
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { aider } from '../../adapters/aider/index.js';
import { testAdapter, type Injected } from '../contract/testAdapter.js';

const SMALL = 'fixtures/aider/agentsview/myrepo/.aider.chat.history.md';

/** A copy with `line` inserted right after the first session header (line 2 of the fixture). */
function insertAfterHeader(fixture: string, dir: string, line: string | Buffer, marker: string): Injected {
  const bytes = readFileSync(fixture);
  const at = bytes.indexOf('\n', bytes.indexOf('# aider chat started at')) + 1;
  const path = join(dir, basename(fixture));
  writeFileSync(path, Buffer.concat([bytes.subarray(0, at), Buffer.isBuffer(line) ? line : Buffer.from(line), Buffer.from('\n'), bytes.subarray(at)]));
  return { path, marker, line: bytes.subarray(0, at).toString('latin1').split('\n').length };
}

testAdapter(aider, {
  fixtures: [SMALL, 'fixtures/aider/aider-ai/.aider.chat.history.md'],
  home: 'fixtures/aider',
  injectUnknown: (fixture, dir) => insertAfterHeader(fixture, dir, `# sp-contract-marker-${process.pid} a heading no Aider writes`, `sp-contract-marker-${process.pid}`),
  injectBroken: (fixture, dir) => insertAfterHeader(fixture, dir, Buffer.concat([Buffer.from('#### cut off '), Buffer.from([0xff, 0xfe])]), 'cut off'),
  incremental: false,
  // Aider keeps no call ids and merges same-role neighbours: the trip keeps the user lines.
  roundTrip: {
    fixtures: [SMALL],
    options: (home) => ({ home, cwd: home }),
    // The first session (the writer's default): its user lines.
    view: (events) =>
      events
        .filter((e) => e.session === events[0]?.session && e.type === 'message.user')
        .flatMap((e) => ((e.payload as { content: { text: string }[] }).content[0].text.split('\n')))
        .filter((line) => line !== ''),
  },
});
