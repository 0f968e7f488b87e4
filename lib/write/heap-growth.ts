// A writer of a long session holds little (a turn, a step, the spool's positions), yet its RSS grew
// with the input: after each full collection V8 lets the old generation grow to about four times
// what survived before it collects again, and a writer makes garbage at the rate it reads (every
// event parsed from the spool, every record printed). Capping that factor at 1.5 collects the
// garbage sooner: peak RSS 259 → 185 MB for Gemini at a 150 MiB session (docs/design.md §5.1).
import { setFlagsFromString } from 'node:v8';

/** The old generation may grow by this percentage of what survived a full collection. */
export const HEAP_GROWING_PERCENT = 50;

let bounded = false;

/**
 * Bounds the heap's growth for the rest of the process (V8 reads the flag at every full
 * collection, so it takes effect from the next one). Once is enough: later calls do nothing.
 */
export function boundHeapGrowth(): void {
  if (bounded) return;
  bounded = true;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
