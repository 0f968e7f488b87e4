// Each adapter's levelOf (the level its capture puts on an event of a type) against the fidelity
// table it declares (docs/design.md §3). The invariant: for every type the table lists, levelOf
// gives the table's level. The contract suite checks the events a capture emits; this checks the
// function for the types a fixture may never show (session.end, checkpoint …).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAdapter } from '../../adapters/registry.js';
import { levelsOf } from '../../lib/adapter/fidelity.js';

const root = new URL('../..', import.meta.url).pathname;

/** Every module that defines a levelOf, and the adapters whose events it levels. */
const MODULES: Record<string, string[]> = {
  'adapters/auggie/capture.ts': ['auggie'],
  'adapters/cline/capture.ts': ['cline'],
  'adapters/codex/fidelity.ts': ['codex'],
  'adapters/continue/capture.ts': ['continue'],
  'adapters/copilot/events.ts': ['copilot'],
  'adapters/droid/events.ts': ['droid'],
  'adapters/gemini/fidelity.ts': ['gemini'],
  'adapters/kimi/events.ts': ['kimi'],
  'adapters/pi/fidelity.ts': ['pi'],
  'adapters/qoder/fidelity.ts': ['qoder'],
  'adapters/qwen/fidelity.ts': ['qwen'],
  'adapters/vscode-copilot/capture.ts': ['vscode-copilot'],
  'lib/formats/claude-code/fidelity.ts': ['claude'],
  'lib/formats/cline-tasks/capture.ts': ['cline-vscode', 'kilo-vscode', 'roo'],
};

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

describe('levelOf agrees with the fidelity table', () => {
  it('levelsOf: the listed level; anything else native-only (2), names on Object.prototype included', () => {
    const levelOf = levelsOf({ 'message.user': { level: 0, capture: 'text', materialize: 'text' }, checkpoint: { level: 1, capture: 'c', materialize: 'c' } });
    expect([levelOf('message.user'), levelOf('checkpoint'), levelOf('session.end')]).toEqual([0, 1, 2]);
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) expect(levelOf(name)).toBe(2);
  });

  it('lists every module that defines a levelOf', () => {
    const found = [...sources('adapters'), ...sources('lib/formats')].filter((f) => /function levelOf\(|const levelOf = /.test(readFileSync(join(root, f), 'utf8')));
    expect(found.map((f) => relative('.', f)).sort()).toEqual(Object.keys(MODULES).sort());
  });

  for (const [module, ids] of Object.entries(MODULES)) {
    it(`${module}: the table's level for every type the table lists`, async () => {
      const { levelOf } = (await import(join(root, module))) as { levelOf: (type: string) => number };
      for (const id of ids) {
        const { fidelity } = await loadAdapter(id);
        const wrong = Object.entries(fidelity)
          .filter(([type, entry]) => levelOf(type) !== entry.level)
          .map(([type, entry]) => `${id} ${type}: levelOf ${levelOf(type)}, the table declares ${entry.level}`);
        expect(wrong).toEqual([]);
      }
    });
  }
});
