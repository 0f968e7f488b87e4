// The resume-safety pass (plan.ts) for writers whose format has no tool calls (Aider's Markdown
// history, Cursor's text leaves): calls and results are carried as text, and still paired the one
// way every writer pairs them, so the same damaged stream gives the same loss codes — an unanswered
// call is followed by a stub result (`stubbed stub-result`), a result that answers no call is not
// written (`dropped orphan-result`). With safety off everything is written as it came.
import type { SpEvent } from '../core/event.js';
import { pairCalls, reportOrphan, reportStub, type PlanReport } from './plan.js';

/** What a stub result says in a text-only history. */
export const TEXT_STUB_RESULT = 'no result was recorded for this call';

export interface TextCallPlan {
  /** Positions (in the events planned) of results not to write: they answer no call. */
  skipped: Set<number>;
  /** Positions of calls to follow with a stub result (TEXT_STUB_RESULT). */
  stubbed: Set<number>;
}

/** Pairs the calls and results of `events` (in stream order) and reports what the pass changes. */
export function planTextCalls(events: readonly SpEvent[], report: PlanReport, options: { safety?: boolean; wrote: string }): TextCallPlan {
  const plan: TextCallPlan = { skipped: new Set(), stubbed: new Set() };
  if (options.safety === false) return plan;
  const pairing = pairCalls(events);
  for (const [at, why] of pairing.skipped) {
    plan.skipped.add(at);
    reportOrphan(report, events[at], why, 'not written');
  }
  events.forEach((event, at) => {
    if (event.type !== 'tool.call' || (event.derived_from !== undefined && event.derived_from !== null) || pairing.resultOf.has(at)) return;
    plan.stubbed.add(at);
    reportStub(report, event, options.wrote);
  });
  return plan;
}
