// A writer of a long session holds little (a turn, a step, the spool's positions), yet its RSS grew
// with the input: after each full collection V8 lets the old generation grow to about four times
// what survived before it collects again, and a writer makes garbage at the rate it reads (every
// event parsed from the spool, every record printed). Capping that factor at 1.5 collects the
// garbage sooner: peak RSS 259 → 185 MB for Gemini at a 150 MiB session (docs/design.md §5.1).
// The young generation is kept at its first size too: V8 doubles its semispaces up to 16 MB as
// the reads go on (three of them resident: 48 MB), though what a writer's read leaves alive is
// short-lived either way. Both flags are read as the heap runs (at each full collection, at each
// growth of the young generation), so setting them before the input is read is early enough: the
// relay and sp-materialize do, the writers again for callers that use them directly.
import { setFlagsFromString } from 'node:v8';

/** The old generation may grow by this percentage of what survived a full collection. */
export const HEAP_GROWING_PERCENT = 50;

let bounded = false;

/**
 * Bounds the heap's growth for the rest of the process: the old generation from the next full
 * collection, the young generation from now on (not shrunk if it grew already). Once is enough:
 * later calls do nothing.
 */
export function boundHeapGrowth(): void {
  if (bounded) return;
  bounded = true;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  // Growth by a factor of 1: the semispaces stay at their initial 1 MB.
  setFlagsFromString('--semi-space-growth-factor=1');
}
