// The Gemini CLI and Qwen Code tool vocabularies (lib/relay/vocabulary/gemini.ts, qwen.ts): every
// call of their corpus sessions reads as an intent and writes back as the same call; every corpus
// session of the first four agents relays to them with each call either in their vocabulary or
// rendered as text, and every Gemini/Qwen session relays to Claude Code in Claude's tools; shell
// output loses the clients' wrappers, a failing command stays an error.
import { describe, expect, it } from 'vitest';
import { gemini } from '../adapters/gemini/index.js';
import { qwen } from '../adapters/qwen/index.js';
import type { LossEntry } from '../lib/adapter/interface.js';
import type { SpEvent } from '../lib/core/event.js';
import { isObject, type Json } from '../lib/core/json.js';
import { relayTransform } from '../lib/relay/translate.js';
import { VOCABULARIES } from './support/vocabularies.js';
import { PlanState } from '../lib/relay/vocabulary/types.js';
import { captureAll } from './contract/testAdapter.js';
import { SOURCES } from './support/matrix.js';
import * as G from './gemini/support.js';
import * as Q from './qwen/support.js';

const payload = (e: SpEvent): Json => (isObject(e.payload) ? e.payload : {});

async function relayed(events: SpEvent[], target: string): Promise<{ out: SpEvent[]; losses: LossEntry[] }> {
  const losses: LossEntry[] = [];
  const out: SpEvent[] = [];
  async function* from(): AsyncGenerator<SpEvent> {
    yield* events.map((e) => structuredClone(e));
  }
  for await (const e of relayTransform(from(), { target, onLoss: (l) => losses.push(l), now: new Date('2026-11-30T10:00:00Z') })) out.push(e);
  return { out, losses };
}

describe('gemini and qwen vocabularies on their own corpus calls', () => {
  for (const [agent, adapter, files, expected] of [
    ['gemini', gemini, G.ALL, ['write_todos', 'read_file', 'replace', 'write_file', 'run_shell_command']],
    ['qwen', qwen, Q.CORPUS, ['todo_write', 'read_file', 'edit', 'write_file', 'run_shell_command']],
  ] as const) {
    it(`${agent}: every call parses to an intent and renders back to the same call`, async () => {
      const vocabulary = VOCABULARIES[agent];
      const names = new Set<string>();
      for (const file of files) {
        const { events } = await captureAll(adapter, file);
        const cwd = String(payload(events[0]).cwd ?? '/home/erin/acme-api');
        for (const call of events.filter((e) => e.type === 'tool.call')) {
          const { name, input } = payload(call) as { name: string; input: Json };
          names.add(name);
          const context = { cwd, plan: new PlanState() };
          const intent = vocabulary.parse(name, input, context);
          expect(intent, `${name} ${JSON.stringify(input).slice(0, 80)}`).toBeDefined();
          const back = vocabulary.render(intent!, { cwd, plan: new PlanState() })!;
          expect(back).toHaveLength(1);
          expect(back[0].name).toBe(name);
          // What the call says survives (the replace instruction is the model's own words: not kept).
          const { instruction: _i, description: _d, ...kept } = input;
          expect(back[0].input).toMatchObject(kept);
        }
      }
      for (const name of expected) expect(names.has(name), name).toBe(true);
    });
  }

  it('shell results: the wrappers go, a non-zero exit code is an error', () => {
    const g = VOCABULARIES.gemini.plainResult!('run_shell_command', '<untrusted_context>\nOutput: npm error Missing script: "lint"\nExit Code: 1\nProcess Group PGID: 25402\n</untrusted_context>');
    expect(g).toEqual({ text: 'npm error Missing script: "lint"', isError: true });
    const q = VOCABULARIES.qwen.plainResult!('run_shell_command', 'Command: npm test\nDirectory: (root)\nOutput: ok 1\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)');
    expect(q).toEqual({ text: 'ok 1' });
    expect(VOCABULARIES.qwen.render({ kind: 'read', path: 'src/a.js', offset: 10, limit: 5 }, { cwd: '/p', plan: new PlanState() })).toEqual([{ name: 'read_file', input: { file_path: '/p/src/a.js', offset: 9, limit: 5 } }]);
    expect(VOCABULARIES.gemini.render({ kind: 'read', path: 'src/a.js', offset: 10, limit: 5 }, { cwd: '/p', plan: new PlanState() })).toEqual([{ name: 'read_file', input: { file_path: '/p/src/a.js', start_line: 10, end_line: 14 } }]);
  });
});

describe('relays into and out of gemini and qwen', () => {
  for (const target of ['gemini', 'qwen']) {
    it(`every corpus session of claude, codex, pi, hermes → ${target}: calls in ${target}'s tools or rendered, each in the ledger`, async () => {
      const vocabulary = VOCABULARIES[target];
      let translated = 0;
      for (const source of SOURCES) {
        const events = await source.capture();
        const { out, losses } = await relayed(events, target);
        for (const call of out.filter((e) => e.type === 'tool.call' && e.session === events[0].session)) {
          expect(vocabulary.tools.has(String(payload(call).name)), `${source.agent} ${source.name}: ${String(payload(call).name)}`).toBe(true);
        }
        translated += losses.filter((l) => l.action === 'translated' && l.type === 'tool.call').length;
      }
      expect(translated).toBeGreaterThan(50);
    });
  }

  for (const [agent, adapter, files] of [['gemini', gemini, G.CORPUS], ['qwen', qwen, Q.CORPUS]] as const) {
    it(`${agent} corpus → claude: every call but the plan becomes a Claude tool; the plan is rendered (the Claude vocabulary writes none)`, async () => {
      for (const file of files) {
        const { events } = await captureAll(adapter, file);
        const { out, losses } = await relayed(events, 'claude');
        const calls = out.filter((e) => e.type === 'tool.call');
        expect(calls.length).toBeGreaterThan(0);
        for (const call of calls) expect(['Read', 'Write', 'Edit', 'Bash', 'TodoWrite']).toContain(payload(call).name);
        const rendered = losses.filter((l) => l.action === 'rendered' && l.type === 'tool.call').map((l) => l.from);
        expect(rendered.every((name) => name === 'write_todos' || name === 'todo_write'), rendered.join()).toBe(true);
      }
    });
  }
});

describe('web search', () => {
  it('google_web_search (gemini) and web_search (qwen) are the same intent as Claude WebSearch', () => {
    const context = { cwd: '/p', plan: new PlanState() };
    const intent = VOCABULARIES.claude.parse('WebSearch', { query: 'node test runner' }, context)!;
    expect(VOCABULARIES.gemini.render(intent, context)).toEqual([{ name: 'google_web_search', input: { query: 'node test runner' } }]);
    expect(VOCABULARIES.qwen.render(intent, context)).toEqual([{ name: 'web_search', input: { query: 'node test runner' } }]);
    expect(VOCABULARIES.gemini.parse('google_web_search', { query: 'q' }, context)).toEqual({ kind: 'web-search', query: 'q' });
  });
});
