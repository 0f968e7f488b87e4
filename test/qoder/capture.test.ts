// Golden tests of the Qoder CLI capture (fixtures/qoder/README.md) and writer: the Claude Code
// transcript read as Qoder's (agent, actor, session ids, qoder.<type> meta for its own records),
// and a written transcript with Qoder's head line, version, tier-alias models and leaf pointer.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { qoder } from '../../adapters/qoder/index.js';
import { canonicalSessionId, type SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { SessionBuilder, from } from '../support/canonical.js';
import { ASSEMBLED, BROKEN_CHAIN, MINIMAL } from './support.js';

type Json = Record<string, any>;
function counts(events: SpEvent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) out[e.type] = (out[e.type] ?? 0) + 1;
  return out;
}

describe('qoder capture', () => {
  it('golden counts per fixture', async () => {
    const golden: Array<[string, Record<string, number>]> = [
      [ASSEMBLED, { 'session.start': 1, meta: 4, 'message.user': 1, 'message.thinking': 1, 'tool.call': 1, 'tool.result': 1, 'file.read': 1, 'message.assistant': 1 }],
      [MINIMAL, { 'session.start': 1, meta: 2, 'message.user': 1, 'tool.call': 1, 'tool.result': 1, 'command.run': 1, 'message.assistant': 1 }],
      [BROKEN_CHAIN, { 'session.start': 1, meta: 1, 'message.user': 1, 'tool.call': 1, 'tool.result': 1, 'command.run': 1, 'message.assistant': 1 }],
    ];
    for (const [file, expected] of golden) {
      const { events, diagnostics } = await captureAll(qoder, file);
      expect(diagnostics, file).toEqual([]);
      expect(counts(events), file).toEqual(expected);
    }
  });

  it('events are Qoder’s: agent, actor, session id, qoder.<type> meta with the raw record', async () => {
    const { events } = await captureAll(qoder, ASSEMBLED);
    const id = '7c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5';
    expect(new Set(events.map((e) => e.session))).toEqual(new Set([canonicalSessionId('qoder', id)]));
    expect(events.every((e) => e.agent === 'qoder' && e.origin?.agent === 'qoder')).toBe(true);
    expect(events.filter((e) => e.actor === 'agent:claude')).toEqual([]);
    const keys = events.filter((e) => e.type === 'meta').map((e) => (e.payload as Json).key);
    expect(keys).toEqual(['qoder.runtime-config', 'qoder.workspace-directories', 'qoder.active-leaf', 'qoder.last-prompt']);
    expect((events[0].payload as Json)).toMatchObject({ native_id: id, cwd: '/home/ivan/probe', version: '1.1.23' });
    const thinking = events.find((e) => e.type === 'message.thinking')!.payload as Json;
    expect(thinking).toMatchObject({ visibility: 'redacted', opaque: 'QE:bW9jay1yZWFzb25pbmctcGF5bG9hZA==' });
  });
});

describe('qoder writer', () => {
  it('a Claude Code transcript with Qoder’s runtime-config head, version, tier-alias model and active-leaf', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sp-qoder-write-'));
    const b = new SessionBuilder('claude');
    b.user('List the files');
    b.assistant('Listing.', 'm1');
    b.call('toolu_1', 'Bash', { command: 'ls' }, 'm1');
    b.result('toolu_1', 'a.js');
    b.assistant('One file.', 'm2');
    const result = await qoder.materialize!(from(b.events), { home, cwd: '/tmp/sp-qoder-project' });
    expect(result.path).toBe(join(home, 'projects', '-tmp-sp-qoder-project', `${result.session_id}.jsonl`));
    expect(result.resume).toBe(`cd /tmp/sp-qoder-project && QODER_CONFIG_DIR=${home} qodercli --resume ${result.session_id}`);
    const lines = readFileSync(result.path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Json);
    expect(lines[0]).toMatchObject({ type: 'runtime-config', sessionId: result.session_id, model: 'auto' });
    const messages = lines.filter((l) => typeof l.uuid === 'string');
    expect(messages.every((m) => m.version === '1.1.52' && m.sessionId === result.session_id)).toBe(true);
    expect(messages.filter((m) => m.type === 'assistant').every((m) => m.message.model === 'auto')).toBe(true);
    const leaf = lines.find((l) => l.type === 'active-leaf')!;
    expect(leaf.leafUuid).toBe(messages.at(-1)!.uuid);
    expect(result.records).toBe(lines.length);
  });
});
