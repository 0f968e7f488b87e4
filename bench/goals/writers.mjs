// The writer rows of issue #22's goals table, read from the bench results (bench/writers.mjs rows
// in the "writers" section of bench/run.mjs): every writer under 200 MB peak RSS and flat
// (RSS(full) / RSS(quarter) ≤ 1.25) on the largest input measured.
import { FLAT_RATIO, GOAL_MB } from '../writers.mjs';

const writerRows = (results) => (results?.rows ?? []).filter((r) => r.section === 'writers' && typeof r.rss_mb === 'number');

export default [
  {
    measure: 'every writer, 1 GB input (sp-materialize <agent>: peak RSS, flatness)',
    today: 'up to 1.87 GB RSS (346–515 MB at 60 MB)',
    goal: `< ${GOAL_MB} MB, flat`,
    value(results) {
      const rows = writerRows(results);
      if (rows.length === 0) return undefined;
      const mb = Math.max(...rows.map((r) => r.mb));
      const largest = rows.filter((r) => r.mb === mb);
      const worst = largest.reduce((a, b) => (b.rss_mb > a.rss_mb ? b : a));
      const missed = largest.filter((r) => !(r.rss_mb < GOAL_MB && r.flatness <= FLAT_RATIO && !r.note));
      return {
        value: `at ${mb} MB: worst ${worst.writer} ${worst.rss_mb} MB (flatness ${worst.flatness}); ${largest.length - missed.length}/${largest.length} met${missed.length ? ` (not: ${missed.map((r) => r.writer).join(', ')})` : ''}`,
        met: mb >= 1000 && missed.length === 0,
      };
    },
  },
];
