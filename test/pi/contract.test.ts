// The shared adapter contract suite (test/contract/testAdapter.ts) on every Pi fixture.
import { pi } from '../../adapters/pi/index.js';
import { testAdapter } from '../contract/testAdapter.js';
import { ALL, PI, S1, S2, S3 } from './support.js';

testAdapter(pi, {
  fixtures: ALL,
  home: `${PI}corpus/S1-feature/agent`,
  // Line by line from an empty file: the session id is in the header, so this needs files the client
  // named `<time>_<id>.jsonl` (an empty small.jsonl has no id yet). The pi-mono sessions (2,000 lines,
  // named otherwise) are covered by the golden tests.
  incremental: { fixtures: [S1, S2, S3] },
  // The recorded cwds (/home/carol/…, /Users/badlogic/…) do not exist here: write into the temporary home.
  roundTrip: { options: (home) => ({ home, cwd: home }) },
});
