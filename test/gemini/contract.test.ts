// The shared adapter contract suite (test/contract/testAdapter.ts) on every Gemini CLI fixture.
import { join } from 'node:path';
import { gemini } from '../../adapters/gemini/index.js';
import type { SpEvent } from '../../lib/core/event.js';
import { incrementalView, testAdapter } from '../contract/testAdapter.js';
import { ALL, HOME } from './support.js';

testAdapter(gemini, {
  fixtures: ALL,
  home: HOME,
  incremental: {
    // A file read from empty has no session id yet (the name holds only its first 8 characters), so
    // its canonical session id differs from a whole capture's; everything else must be the same.
    view: (event: SpEvent) => {
      const { session: _session, ...rest } = incrementalView(event) as Record<string, unknown>;
      const origin = rest.origin as Record<string, unknown> | undefined;
      if (origin) {
        const { native_id: _nativeId, ...o } = origin;
        rest.origin = o;
      }
      return rest;
    },
  },
  // The recorded project roots (/home/erin/…) do not exist here: write into the temporary home.
  roundTrip: { options: (home) => ({ home, cwd: join(home, 'project') }) },
});
