// Golden capture of Roo Code task folders built from the format (test/cline-tasks/build.ts): the
// versioned AI SDK file, the older Anthropic array with times, history_item.json, subtasks.
import { describe, expect, it } from 'vitest';
import { roo } from '../../adapters/roo/index.js';
import { ROO_ID, ROO_LEGACY_ID, rooLegacy, rooV2 } from '../cline-tasks/build.js';
import { scratchStorage } from '../cline-tasks/support.js';
import { view } from '../cline-tasks/view.js';
import { captureAll } from '../contract/testAdapter.js';

const storage = scratchStorage('roo-golden', 'rooveterinaryinc.roo-cline');
const V2 = rooV2(storage);
const LEGACY = rooLegacy(storage);

describe('roo capture', () => {
  it('the versioned file: AI SDK parts, tool messages, encrypted reasoning; UI messages placed by time', async () => {
    const { events, diagnostics } = await captureAll(roo, V2);
    expect(diagnostics).toEqual([]);
    expect(events.map(view)).toEqual([
      'session.start',
      'meta@ui1 roo.ui.say.text',
      'message.user@api1 List the TODOs',
      'meta@api1 roo.environment_details',
      'message.thinking@api2 encrypted Search for TODO. opaque=gAAAA-opaque',
      'meta@ui2 roo.ui.say.api_req_started',
      'message.thinking@api3 visible grep is enough',
      'tool.call@api3 call_1 search_files {"path":".","regex":"TODO"}',
      'tool.result@api4 call_1 src/a.ts:3: // TODO tidy',
      'tool.call@api5 call_2 execute_command {"command":"false"}',
      'tool.result@api6 call_2 error exit code 1',
      'meta@ui3 roo.ui.say.completion_result',
      'message.assistant@api7 One TODO, in src/a.ts.',
    ]);
    expect(events[0].payload).toMatchObject({
      native_id: ROO_ID,
      cwd: '/home/dev/project',
      title: 'List the TODOs',
      mode: 'code',
      parent_native_id: ROO_LEGACY_ID,
      extension: 'rooveterinaryinc.roo-cline',
      api_history_header: { version: 2 },
    });
    // Roo's own message fields are kept; the message times are the events' times.
    expect(events[12].payload).toMatchObject({ extra: { isSummary: false } });
    expect(events[12].ts).toBe(1764579605);
  });

  it('the older array: apply_diff and new_task calls with their results', async () => {
    const { events } = await captureAll(roo, LEGACY);
    expect(events.map(view)).toEqual([
      'session.start',
      'meta@ui1 roo.ui.say.text',
      'message.user@api1 Tidy src/a.ts',
      'tool.call@api2 toolu_r1 apply_diff {"path":"src/a.ts","diff":"<<<<<<< SEARCH\\n:start_line:3\\n-------\\n// TODO tidy\\n=======\\n// tidy\\n>>>>>>> REPLACE"}',
      'tool.result@api3 toolu_r1 Changes applied',
      'tool.call@api4 toolu_r2 new_task {"mode":"code","message":"List the TODOs"}',
      'tool.result@api5 toolu_r2 Subtask finished',
    ]);
  });

  it('lists the subtask with its parent', async () => {
    const refs = [];
    for await (const ref of roo.discover({ home: storage })) refs.push(ref);
    expect(refs.map((r) => [r.native_id, r.parent_native_id, r.title])).toEqual([
      [ROO_ID, ROO_LEGACY_ID, 'List the TODOs'],
      [ROO_LEGACY_ID, undefined, 'Tidy src/a.ts'],
    ]);
  });
});
