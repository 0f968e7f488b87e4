// Kilo Code writes Roo's task folders (docs/formats/kilo-vscode.md): the shared reader names every
// event, meta key and actor as Kilo's, and finds the storage under Kilo's extension id.
import { describe, expect, it } from 'vitest';
import { kiloVscode } from '../../adapters/kilo-vscode/index.js';
import { ROO_ID, rooV2 } from '../cline-tasks/build.js';
import { scratchStorage } from '../cline-tasks/support.js';
import { view } from '../cline-tasks/view.js';
import { captureAll } from '../contract/testAdapter.js';

describe('kilo-vscode capture', () => {
  it('reads Roo\'s versioned file as Kilo\'s', async () => {
    const storage = scratchStorage('kilo-golden', 'kilocode.kilo-code');
    const { events, diagnostics } = await captureAll(kiloVscode, rooV2(storage));
    expect(diagnostics).toEqual([]);
    expect(events.map(view).slice(0, 4)).toEqual(['session.start', 'meta@ui1 kilo-vscode.ui.say.text', 'message.user@api1 List the TODOs', 'meta@api1 kilo-vscode.environment_details']);
    expect(events[0].payload).toMatchObject({ native_id: ROO_ID, extension: 'kilocode.kilo-code', mode: 'code' });
    expect(new Set(events.filter((e) => e.type === 'tool.call').map((e) => e.actor))).toEqual(new Set(['agent:kilo-vscode']));
    expect(events.every((e) => e.agent === 'kilo-vscode' && e.session === events[0].session)).toBe(true);
  });
});
