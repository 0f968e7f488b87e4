// "Did you mean": the closest known name within an edit distance of 2, for unknown agents,
// commands, options and config keys.

/** Levenshtein distance, stopping early once it exceeds `limit`. */
export function editDistance(a: string, b: string, limit = 3): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, current[j]);
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length];
}

/** The known name nearest to `name` (distance ≤ 2, a tie goes to the first), or undefined. */
export function closest(name: string, known: Iterable<string>): string | undefined {
  let found: string | undefined;
  let distance = 3;
  for (const candidate of known) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase(), 2);
    if (d < distance) {
      found = candidate;
      distance = d;
    }
  }
  return found;
}

/** ` (did you mean "x"?)`, or '' when nothing is close. */
export function didYouMean(name: string, known: Iterable<string>, prefix = ''): string {
  const match = closest(name, known);
  return match === undefined ? '' : ` (did you mean "${prefix}${match}"?)`;
}
