// One parser per native tool: Claude's TodoWrite/TaskUpdate, Codex's apply_patch text (also Hermes's patch mode) and update_plan
// are read by capture-time derivation (adapters/codex/derive.ts) and by the relay vocabularies
// through the same code, so both paths agree on what a native input is — including when it is
// malformed (then capture derives nothing and the relay keeps the call as it is).
import { describe, expect, it } from 'vitest';
import { deriveEvents as deriveClaude, newTodoState } from '../lib/formats/claude-code/derive.js';
import { claudeVocabulary } from '../lib/formats/claude-code/vocabulary.js';
import { deriveEvents, newPlanState, type OpenCall } from '../adapters/codex/derive.js';
import { codexVocabulary } from '../adapters/codex/vocabulary.js';
import { hermesVocabulary } from '../adapters/hermes/vocabulary.js';
import { PlanState, type Intent } from '../lib/relay/vocabulary/types.js';

const CWD = '/work/project';
const SUCCESS = 'Success. Updated the following files:\nM a.txt';

function derivedEdits(patch: string): Array<{ path: string; kind: string }> {
  const call: OpenCall = { seq: 1, name: 'apply_patch', kind: 'custom_tool_call', input: patch, cwd: CWD };
  return deriveEvents(call, SUCCESS, newPlanState()).map((d) => ({ path: String(d.payload.path), kind: String(d.payload.kind) }));
}

/** The files an intent names, as capture would name its edits (absolute, and the kind of change). */
function intentEdits(intent: Intent | undefined): Array<{ path: string; kind: string }> | undefined {
  if (intent === undefined) return undefined;
  const abs = (path: string): string => (path.startsWith('/') ? path : `${CWD}/${path}`);
  if (intent.kind === 'write') return [{ path: abs(intent.path), kind: 'create' }];
  if (intent.kind === 'edit') return [{ path: abs(intent.path), kind: 'modify' }];
  if (intent.kind === 'patch') return intent.files.map((f) => ({ path: abs(f.path), kind: f.op === 'add' ? 'create' : f.op === 'delete' ? 'delete' : 'modify' }));
  return [];
}

const context = () => ({ cwd: CWD, plan: new PlanState() });

const PATCHES: Record<string, string> = {
  'several files': '*** Begin Patch\n*** Add File: new.txt\n+hello\n*** Update File: a.txt\n*** Move to: b.txt\n@@ def f\n-x\n+y\n*** Delete File: old.txt\n*** End Patch\n',
  'one added file': '*** Begin Patch\n*** Add File: src/n.ts\n+export const n = 1;\n*** End Patch',
  'one update with an end-of-file marker': '*** Begin Patch\n*** Update File: a.txt\n@@\n ctx\n-old\n+new\n*** End of File\n*** End Patch\n',
};

const MALFORMED: Record<string, string> = {
  'no End Patch': '*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n',
  'no Begin Patch': '*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch',
  'a line no hunk can hold': '*** Begin Patch\n*** Update File: a.txt\n@@\n?x\n*** End Patch',
  'an added file with a line not starting +': '*** Begin Patch\n*** Add File: a.txt\n+ok\noops\n*** End Patch',
  'no file at all': '*** Begin Patch\n*** End Patch',
  'text before the first file': '*** Begin Patch\nsome words\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch',
};

describe('apply_patch: capture and relay read a patch the same way', () => {
  for (const [name, patch] of Object.entries(PATCHES)) {
    it(`${name}: the same files, the same kinds of change`, () => {
      const derived = derivedEdits(patch);
      expect(derived.length).toBeGreaterThan(0);
      expect(intentEdits(codexVocabulary.parse('apply_patch', patch, context()))).toEqual(derived);
      // Hermes's patch mode takes the same text through the same parser.
      expect(intentEdits(hermesVocabulary.parse('patch', { mode: 'patch', patch }, context()))).toEqual(derived);
    });
  }
  for (const [name, patch] of Object.entries(MALFORMED)) {
    it(`malformed (${name}): capture derives no edit and the relay takes it as no patch`, () => {
      expect(derivedEdits(patch)).toEqual([]);
      expect(codexVocabulary.parse('apply_patch', patch, context())).toBeUndefined();
      expect(codexVocabulary.parse('apply_patch', { input: patch }, context())).toBeUndefined();
    });
  }
  it('the {input} and {patch} JSON spellings are read by both paths', () => {
    const patch = PATCHES['one added file'];
    for (const input of [{ input: patch }, { patch }]) {
      const call: OpenCall = { seq: 1, name: 'apply_patch', kind: 'function_call', input, cwd: CWD };
      const derived = deriveEvents(call, SUCCESS, newPlanState()).map((d) => ({ path: String(d.payload.path), kind: String(d.payload.kind) }));
      expect(intentEdits(codexVocabulary.parse('apply_patch', input, context()))).toEqual(derived);
    }
  });
});

describe('update_plan: capture and relay read a plan the same way', () => {
  const plans: Record<string, unknown> = {
    'a plan': { explanation: 'why', plan: [{ step: 'read', status: 'completed' }, { step: 'fix', status: 'in_progress' }, { step: 'test', status: 'pending' }] },
    'steps without text among them': { plan: [{ step: 'kept', status: 'pending' }, { status: 'pending' }, { step: 7 }, 'loose', null] },
    'no status': { plan: [{ step: 'only text' }] },
  };
  for (const [name, input] of Object.entries(plans)) {
    it(`${name}: the same steps in the same order`, () => {
      const derived = deriveEvents({ seq: 1, name: 'update_plan', kind: 'function_call', input }, 'Plan updated', newPlanState());
      const intent = codexVocabulary.parse('update_plan', input, context());
      expect(intent?.kind).toBe('plan');
      const items = intent?.kind === 'plan' ? intent.items : [];
      expect(items.map((i) => i.text)).toEqual(derived.map((d) => d.payload.content));
      expect(intent?.kind === 'plan' ? intent.explanation : undefined).toBe(derived[0]?.payload.explanation);
    });
  }
  it('an input with no plan: capture derives nothing, the relay takes no plan', () => {
    for (const input of [{}, { plan: 'text' }, 'plan', null]) {
      expect(deriveEvents({ seq: 1, name: 'update_plan', kind: 'function_call', input }, '', newPlanState())).toEqual([]);
      expect(codexVocabulary.parse('update_plan', input, context())).toBeUndefined();
    }
  });
});

describe('TodoWrite and TaskUpdate: capture and relay read the list the same way', () => {
  const lists: Record<string, unknown> = {
    'a list': [{ content: 'read', status: 'completed', activeForm: 'Reading' }, { content: 'fix', status: 'in_progress' }],
    'items without text among them': [{ content: 'kept', status: 'pending' }, { status: 'pending' }, { content: 3 }, 'loose', null],
  };
  for (const [name, todos] of Object.entries(lists)) {
    it(`${name}: the same items in the same order`, () => {
      const derived = deriveClaude({ name: 'TodoWrite', input: { todos }, content: 'ok', isError: false, structured: undefined }, newTodoState());
      const intent = claudeVocabulary.parse('TodoWrite', { todos }, context());
      expect(intent?.kind === 'plan' ? intent.items.map((i) => i.text) : undefined).toEqual(derived.map((d) => d.payload.content));
    });
  }
  it('a list that is no list: capture derives nothing, the relay takes no plan', () => {
    for (const todos of [undefined, 'a', { content: 'x' }]) {
      expect(deriveClaude({ name: 'TodoWrite', input: { todos }, content: 'ok', isError: false, structured: undefined }, newTodoState())).toEqual([]);
      expect(claudeVocabulary.parse('TodoWrite', { todos }, context())).toBeUndefined();
    }
  });
  it('a numeric task id names the same task on both paths', () => {
    const derived = deriveClaude({ name: 'TaskUpdate', input: { taskId: 1, status: 'completed' }, content: 'ok', isError: false, structured: undefined }, newTodoState());
    expect(derived.map((d) => d.payload.id)).toEqual(['1']);
    const ctx = context();
    claudeVocabulary.parse('TaskCreate', { subject: 'first' }, ctx);
    const intent = claudeVocabulary.parse('TaskUpdate', { taskId: 1, status: 'completed' }, ctx);
    expect(intent?.kind === 'plan' ? intent.items : undefined).toEqual([{ id: '1', text: 'first', status: 'completed' }]);
  });
});
