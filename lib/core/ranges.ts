// Inclusive integer ranges [first, last], kept sorted and merged: the seqs an origin holds, the
// archived rows an incremental capture has reported.

/** Merges spans already sorted by their first number: overlapping or adjacent spans become one. */
export function mergeSortedSpans(spans: Array<[number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [a, b] of spans) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}
