// The shared adapter contract suite on the OpenHands fixtures: a conversation is a folder of event
// files, so a record is an event file (injected as the next index; a broken one is reported as
// `<event file>:1`). Conversations are read whole: the grow test does not apply.
import { openhands } from '../../adapters/openhands/index.js';
import { testAdapter } from '../contract/testAdapter.js';
import { CONV_A, CONV_B, HOME, addEventFile, copyConversation } from './support.js';

const marker = `sp-contract-marker-${process.pid}`;

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
  incremental: false,
  roundTrip: false,
});
