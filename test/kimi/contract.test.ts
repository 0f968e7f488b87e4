// The shared adapter contract suite (test/contract/testAdapter.ts) on Kimi CLI sessions built from
// the client's source (test/kimi/support.ts): JSONL capture, unknown records, broken lines,
// discovery and incremental capture line by line.
import { kimi } from '../../adapters/kimi/index.js';
import { testAdapter } from '../contract/testAdapter.js';
import { buildHome } from './support.js';

const { home, session, legacy } = buildHome();

testAdapter(kimi, {
  fixtures: [session, legacy],
  home,
  // The grown copy is `<scratch>/<name>`: only the flat `<uuid>.jsonl` keeps its session id there
  // (a context.jsonl is named by its folder); capture.test.ts grows one in its own folder.
  incremental: { fixtures: [legacy] },
  roundTrip: false,
});
