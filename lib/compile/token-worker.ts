// A worker thread that loads one encoding (encoding.ts) and counts the texts posted to it. Loading
// an encoding (0.3–0.8 s of CPU for o200k_base) then overlaps with reading the input on the main
// thread. The caller blocks on a shared Int32Array until the answer is there (tokens.ts), so counting
// stays a plain synchronous call: [0] = 0 while waiting, 1 when answered; [1] = the count;
// [2] = 1 ok, 2 failed.
import { setFlagsFromString } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { loadEncoding, type EncodingName } from './encoding.js';

const { encoding, shared, flags } = workerData as { encoding: EncodingName; shared: SharedArrayBuffer; flags?: string };
// The V8 flags the parent set (tokens.ts keepYoungGenerationSmall), which this thread's start undid.
if (flags) setFlagsFromString(flags);
const state = new Int32Array(shared);
let count: ((text: string) => number) | undefined;
try {
  count = loadEncoding(encoding);
} catch {
  count = undefined; // every request is answered "failed": the caller counts in its own thread
}

parentPort!.on('message', (text: string) => {
  try {
    if (!count) throw new Error('no encoder');
    state[1] = count(text);
    state[2] = 1;
  } catch {
    state[2] = 2;
  }
  Atomics.store(state, 0, 1);
  Atomics.notify(state, 0);
});
