// The shared adapter contract suite on the OpenHands fixtures: a conversation is a folder of event
// files, so a record is an event file (injected as the next index; a broken one is reported as
// `<event file>:1`), and a copy grows one event file at a time.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { openhands } from '../../adapters/openhands/index.js';
import { testAdapter, type Grower } from '../contract/testAdapter.js';
import { CONV_A, CONV_B, HOME, addEventFile, copyConversation } from './support.js';

const marker = `sp-contract-marker-${process.pid}`;

/** A copy with base_state.json and no event file yet, given the fixture's files one per `add`. */
function grow(fixture: string, dir: string): Grower {
  const target = join(dir, basename(fixture));
  mkdirSync(join(target, 'events'), { recursive: true });
  copyFileSync(join(fixture, 'base_state.json'), join(target, 'base_state.json'));
  const names = readdirSync(join(fixture, 'events')).sort();
  let last = '';
  return {
    path: target,
    count: names.length,
    add(i) {
      copyFileSync(join(fixture, 'events', names[i]), join(target, 'events', names[i]));
      last = names[i];
      return { from: i, to: i };
    },
    truncate: () => rmSync(join(target, 'events', last)),
    rewrite: () => writeFileSync(join(target, 'events', last), readFileSync(join(fixture, 'events', last), 'utf8').replace('"timestamp":"2026', '"timestamp":"2027')),
  };
}

testAdapter(openhands, {
  fixtures: [CONV_A, CONV_B],
  home: HOME,
  copy: (fixture, dir) => copyConversation(fixture, dir),
  injectUnknown: (fixture, dir) => {
    const copy = copyConversation(fixture, dir);
    const path = addEventFile(copy, JSON.stringify({ kind: 'SpContractFutureEvent', id: 'e1', timestamp: '2026-11-30T17:00:00', source: 'environment', marker, nested: { kept: [1, 2, 3] } }));
    return { path, marker, line: 1 };
  },
  injectBroken: (fixture, dir) => {
    const copy = copyConversation(fixture, dir);
    const path = addEventFile(copy, '{"kind":"MessageEvent","llm_message":{"role":"user","content":[{"type":"text","text":"cut off');
    return { path, marker: 'cut off', line: 1 };
  },
  incremental: { grow },
  roundTrip: false,
});
