// A worker thread that loads one tiktoken encoding and counts the texts posted to it. Loading an
// encoding (0.2–0.8 s of CPU for o200k_base) then overlaps with reading the input on the main
// thread. The caller blocks on a shared Int32Array until the answer is there (tokens.ts), so counting
// stays a plain synchronous call: [0] = 0 while waiting, 1 when answered; [1] = the count;
// [2] = 1 ok, 2 failed.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

interface Encoder {
  encode_ordinary(text: string): Uint32Array;
}

const { encoding, shared } = workerData as { encoding: 'o200k_base' | 'cl100k_base'; shared: SharedArrayBuffer };
const state = new Int32Array(shared);
let encoder: Encoder | undefined;
try {
  const tiktoken = createRequire(import.meta.url)('tiktoken') as { get_encoding(name: string): Encoder };
  encoder = tiktoken.get_encoding(encoding);
} catch {
  encoder = undefined; // every request is answered "failed": the caller counts in its own thread
}

parentPort!.on('message', (text: string) => {
  try {
    if (!encoder) throw new Error('no encoder');
    state[1] = encoder.encode_ordinary(text).length;
    state[2] = 1;
  } catch {
    state[2] = 2;
  }
  Atomics.store(state, 0, 1);
  Atomics.notify(state, 0);
});
