// Issue #22's store, compile, Hermes, incremental and follow goals, read from one bench run's
// results (bench/out/results.json: { rows }). Each `value` returns undefined when the run did not
// measure that row (a section left out with --only), so the Goals table can say "not measured".

/** The rows of a results object (or the rows themselves). */
const rowsOf = (results) => (Array.isArray(results) ? results : (results?.rows ?? []));
const find = (results, section, pass) => rowsOf(results).find((r) => r.section === section && (typeof pass === 'string' ? r.pass === pass : pass.test(r.pass)));
const measured = (row) => row && Number.isFinite(row.seconds) && Number.isFinite(row.baseline_seconds);

export default [
  {
    measure: 'capture|redact|`sp-sync ingest`, a Claude session',
    today: '0.06× bare parse',
    goal: '≥ 0.3× bare parse; 1 GB of history < 1 min',
    value(results) {
      const row = find(results, 'ingest', 'capture|redact|sp-sync ingest');
      if (!measured(row) || !row.mb) return undefined;
      const ratio = row.baseline_seconds / row.seconds;
      const gbMinutes = (row.seconds * (1024 / row.mb)) / 60;
      return { value: `${ratio.toFixed(2)}× bare; 1 GB ≈ ${gbMinutes.toFixed(1)} min`, met: ratio >= 0.3 && gbMinutes < 1 };
    },
  },
  {
    measure: '`sp-compile` 100k events',
    today: '4.1–4.7 CPU-s',
    goal: '< 1.5 s wall, < 150 MB',
    value(results) {
      const row = find(results, 'compile', 'sp-compile --for codex');
      if (!row || !Number.isFinite(row.seconds)) return undefined;
      const rss = row.peak_rss_mb ?? NaN;
      return { value: `${row.seconds.toFixed(2)} s wall (${(row.cpu_seconds ?? NaN).toFixed(2)} CPU-s), ${rss.toFixed(0)} MB`, met: row.seconds < 1.5 && rss < 150 };
    },
  },
  {
    measure: 'Hermes `--all` on 100k messages',
    today: '3.5 s (bare SELECT 0.9 s)',
    goal: '≤ 1.5× the bare SELECT',
    value(results) {
      const row = find(results, 'hermes', 'sp-capture hermes --all');
      if (!measured(row)) return undefined;
      const times = row.seconds / row.baseline_seconds;
      return { value: `${row.seconds.toFixed(2)} s, ${times.toFixed(2)}× bare SELECT (${row.baseline_seconds.toFixed(2)} s)`, met: times <= 1.5 };
    },
  },
  {
    measure: 'incremental capture, one new record',
    today: '230–450 ms',
    goal: "< 50 ms beyond `node -e ''`",
    value(results) {
      // Every incremental row the run has (one session, --all): the goal holds for the worst.
      const list = rowsOf(results).filter((r) => (r.section === 'hermes' || r.section === 'incremental') && /\(1 new row\)$/.test(r.pass) && measured(r));
      if (list.length === 0) return undefined;
      const beyond = Math.max(...list.map((r) => r.seconds - r.baseline_seconds));
      return { value: `${Math.round(beyond * 1000)} ms beyond node -e '' (worst of ${list.length})`, met: beyond < 0.05 };
    },
  },
  {
    measure: '`--follow` latency, append → event on stdout',
    today: '180–310 ms',
    goal: 'p95 < 100 ms',
    value(results) {
      // Every agent the run followed (Claude, Codex): the goal holds for the worst.
      const list = rowsOf(results).filter((r) => r.section === 'follow' && Number.isFinite(r.p95_ms));
      if (list.length === 0) return undefined;
      const worst = Math.max(...list.map((r) => r.p95_ms));
      return { value: list.map((r) => `${r.pass.split(' ')[1]} p95 ${Math.round(r.p95_ms)} ms`).join(', ') + ` (bare fs.watch p95 ≤ ${Math.round(Math.max(...list.map((r) => r.bare_p95_ms ?? 0)))} ms)`, met: worst < 100 };
    },
  },
];
