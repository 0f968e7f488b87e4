// Issue #22, the sp-compile row: a 100k-event working session (bench/inputs.mjs workFile) compiled
// for codex, for claude and with --render, redaction on (the default). The goal is wall time on an
// idle machine: the run's load at start is shown next to the figure, since on a loaded machine the
// wall time says little (CPU seconds are shown too, which load inflates less).

const PASSES = ['sp-compile --for codex', 'sp-compile --for claude', 'sp-compile --for codex --render'];

export default [
  {
    measure: 'sp-compile 100k events (codex, claude, --render; redaction on)',
    today: '2.6–2.8 CPU-s, 2.6–3.4 s wall at load 4–6; 125–134 MB',
    goal: '< 1.5 s wall on an idle machine, < 150 MB',
    value: (results) => {
      const rows = PASSES.map((pass) => results.rows.find((r) => r.section === 'compile' && r.pass === pass && r.events >= 100_000));
      if (rows.every((r) => !r)) return undefined;
      const each = PASSES.map((pass, i) => {
        const r = rows[i];
        return r ? `${pass.replace('sp-compile ', '')} ${r.seconds.toFixed(2)} s wall, ${r.cpu_seconds?.toFixed(2) ?? '?'} CPU-s, ${Math.round(r.peak_rss_mb ?? 0)} MB` : `${pass.replace('sp-compile ', '')} not run`;
      }).join('; ');
      const met = rows.every((r) => r && r.seconds < 1.5 && r.peak_rss_mb !== null && r.peak_rss_mb < 150);
      return { value: `${each} (load at start ${results.machine?.load_at_start ?? '?'})`, met };
    },
  },
];
