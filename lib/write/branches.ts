// The branches of a session (one implementation: the relay, and every writer that writes one linear
// history under `--branch active`, choose the active branch here). For a linear target. A tree target (Pi) takes the whole tree; a target
// whose sessions are one line (Claude Code's resume, Codex, Hermes) gets the ACTIVE branch — the
// path from the root to the last message — and, with `--branches all`, each other branch as a
// session of its own: the same prefix up to the branch point, then that branch.
//
// The tree is built over the conversation's own steps (user and assistant messages, thinking, tool
// calls). A tool result belongs to its call, a derived event (file.edit …) to the call it came from,
// so parallel calls and their results never look like branches. A step's parent is its parent_seq
// where capture set one, else the step before it; a new root (parent_seq null, e.g. after a
// compaction) continues from the step before too, so a compacted session stays one branch.
import type { SpEvent } from '../core/event.js';
import { isObject } from '../core/json.js';
import { LOSS, type PlanReport } from './plan.js';

const STEPS = new Set(['message.user', 'message.assistant', 'message.thinking', 'tool.call']);

const isStep = (e: SpEvent): boolean => STEPS.has(e.type) && (e.derived_from === undefined || e.derived_from === null);
const callIdOf = (e: SpEvent): string | undefined => (isObject(e.payload) && typeof e.payload.call_id === 'string' ? e.payload.call_id : undefined);

export interface Branch {
  /** The last step of the branch (its leaf). */
  leafSeq: number;
  /** The last step it shares with the active branch (undefined: nothing shared). */
  forkSeq?: number;
  /** The session's events on this branch, in input order (steps, their results, everything off the tree). */
  events: SpEvent[];
  /** Steps only this branch has (not on the active branch). */
  own: Set<number>;
}

export interface Branches {
  active: Branch;
  /** The other branches, in the order their leaves appear. */
  others: Branch[];
  /** Steps (and their results) not on the active branch. */
  offActive: SpEvent[];
}

/** The parent step of every step (by index into `events`), -1 for the root. */
function stepParents(events: SpEvent[]): Map<number, number> {
  const indexOfSeq = new Map<number, number>();
  events.forEach((e, i) => indexOfSeq.set(e.seq, i));
  const callIndex = new Map<string, number>();
  const parents = new Map<number, number>();
  let previousStep = -1;
  // The step an event stands for: itself, its call (a result), the call it derives from, else the
  // step that came before it in the stream.
  const stepAt = new Map<number, number>();
  events.forEach((e, i) => {
    if (isStep(e)) {
      let parent = previousStep;
      if (typeof e.parent_seq === 'number') {
        const at = indexOfSeq.get(e.parent_seq);
        if (at !== undefined && at < i) parent = stepAt.get(at) ?? previousStep;
      }
      parents.set(i, parent);
      stepAt.set(i, i);
      previousStep = i;
      if (e.type === 'tool.call') {
        const id = callIdOf(e);
        if (id !== undefined) callIndex.set(id, i);
      }
      return;
    }
    const id = e.type === 'tool.result' ? callIdOf(e) : undefined;
    const derived = typeof e.derived_from === 'number' ? indexOfSeq.get(e.derived_from) : undefined;
    const owner = (id !== undefined ? callIndex.get(id) : undefined) ?? (derived !== undefined ? stepAt.get(derived) : undefined);
    stepAt.set(i, owner ?? previousStep);
  });
  return parents;
}

/** Splits a session into its active branch and the others (see the file comment). */
export function splitBranches(events: SpEvent[]): Branches {
  const parents = stepParents(events);
  const children = new Map<number, number>();
  for (const parent of parents.values()) children.set(parent, (children.get(parent) ?? 0) + 1);
  const leaves = [...parents.keys()].filter((i) => !children.has(i));
  const activeLeaf = leaves.length ? Math.max(...leaves) : -1;

  const pathOf = (leaf: number): Set<number> => {
    const path = new Set<number>();
    for (let at = leaf; at >= 0 && !path.has(at); at = parents.get(at) ?? -1) path.add(at);
    return path;
  };
  const activePath = pathOf(activeLeaf);

  // What belongs to a path: its steps, the results of its calls and what derives from them, and
  // every event that is no part of the tree (session.start, meta, todo state …).
  const owners = new Map<number, number>();
  const indexOfSeq = new Map<number, number>();
  const callIndex = new Map<string, number>();
  events.forEach((e, i) => {
    indexOfSeq.set(e.seq, i);
    if (isStep(e) && e.type === 'tool.call') {
      const id = callIdOf(e);
      if (id !== undefined) callIndex.set(id, i);
    }
    if (e.type === 'tool.result' && !isStep(e)) {
      const id = callIdOf(e);
      const call = id !== undefined ? callIndex.get(id) : undefined;
      if (call !== undefined) owners.set(i, call);
    } else if (typeof e.derived_from === 'number') {
      const at = indexOfSeq.get(e.derived_from);
      if (at !== undefined) owners.set(i, owners.get(at) ?? at);
    }
  });
  const onPath = (path: Set<number>, i: number): boolean => {
    if (parents.has(i)) return path.has(i);
    const owner = owners.get(i);
    return owner === undefined || path.has(owner);
  };
  const branch = (leaf: number): Branch => {
    const path = leaf === activeLeaf ? activePath : pathOf(leaf);
    let fork: number | undefined;
    for (const at of path) if (activePath.has(at) && (fork === undefined || at > fork)) fork = at;
    const own = new Set<number>();
    const kept: SpEvent[] = [];
    events.forEach((e, i) => {
      if (!onPath(path, i)) return;
      kept.push(e);
      if (!onPath(activePath, i)) own.add(e.seq);
    });
    return { leafSeq: leaf >= 0 ? events[leaf].seq : -1, forkSeq: fork !== undefined ? events[fork].seq : undefined, events: kept, own };
  };

  const active = branch(activeLeaf);
  const others = leaves.filter((leaf) => leaf !== activeLeaf).sort((a, b) => a - b).map(branch);
  const offActive = events.filter((_, i) => !onPath(activePath, i));
  return { active, others, offActive };
}

/** How a writer reports a change (LossLedger.report). */
export type BranchReport = PlanReport;

/**
 * `--branch active` for a writer of one linear history: the events of the active branch (see
 * splitBranches); every step or result off it is reported `dropped other-branch`. Derived events of
 * an off-branch call go with it unreported (a writer never writes them: their call carries them).
 */
export function activeBranch(events: SpEvent[], report: BranchReport, reason = 'not on the active branch (--branch active): not written'): SpEvent[] {
  const { active, offActive } = splitBranches(events);
  for (const event of offActive) if (event.derived_from === undefined || event.derived_from === null) report('dropped', LOSS.otherBranch, reason, event);
  return active.events;
}
