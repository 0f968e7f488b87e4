// The shared adapter contract suite (test/contract/testAdapter.ts) on every Qwen Code fixture.
import { join } from 'node:path';
import { qwen } from '../../adapters/qwen/index.js';
import { testAdapter } from '../contract/testAdapter.js';
import { ALL, CORPUS, HOME } from './support.js';

testAdapter(qwen, {
  fixtures: ALL,
  home: HOME,
  // The public fixture holds a rewound branch the writer leaves out (one linear history), so the
  // round trip is on the recorded sessions; the branch is covered in capture.test.ts.
  roundTrip: { fixtures: CORPUS, options: (home) => ({ home, cwd: join(home, 'project') }) },
});
