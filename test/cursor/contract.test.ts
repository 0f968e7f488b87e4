// The shared adapter contract suite on Cursor: public transcripts (JSONL: the default injectors),
// and a CLI store.db and an IDE state.vscdb built from the documented layout.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cursor } from '../../adapters/cursor/index.js';
import { testAdapter } from '../contract/testAdapter.js';
import { buildIde, buildStore } from './support.js';

const work = mkdtempSync(join(tmpdir(), 'sp-cursor-contract-'));
const home = join(work, 'home');
const store = join(home, 'chats', '46d408964d3ec2a21d9a23d01b13d82c', 'c0ffee00-0000-4000-8000-000000000001', 'store.db');
buildStore(store, { cwd: '/home/u/proj' });
const { globalDb } = buildIde(join(home, 'ide'), 'table');
mkdirSync(join(home, 'projects'), { recursive: true });

testAdapter(cursor, {
  fixtures: ['fixtures/cursor/agent-sessions/test-session.jsonl', 'fixtures/cursor/agent-sessions/large.jsonl', 'fixtures/cursor/agent-sessions/schema_drift.jsonl', store, globalDb],
  home,
  incremental: false,
  // The (experimental) writer carries tool calls and thinking as assistant text, in one leaf per
  // turn: what must survive is every user request, in order (test/cursor/materialize.test.ts checks the rest).
  roundTrip: {
    fixtures: [store, 'fixtures/cursor/agent-sessions/large.jsonl'],
    options: (home) => ({ home, cwd: home }),
    view: (events) => events.filter((e) => e.type === 'message.user').map((e) => JSON.stringify((e.payload as { content: unknown }).content)),
  },
});
