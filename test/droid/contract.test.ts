// The shared adapter contract suite (test/contract/testAdapter.ts) on the Droid corpus session.
import { droid } from '../../adapters/droid/index.js';
import { testAdapter } from '../contract/testAdapter.js';
import { ALL, HOME } from './support.js';

testAdapter(droid, {
  fixtures: ALL,
  home: HOME,
  // The recorded cwd (/home/judy/…) does not exist here; the writer records it as it is.
  roundTrip: { options: (home) => ({ home }) },
});
