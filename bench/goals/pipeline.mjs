// Issue #22, the pipeline rows: capture | redact | verify against a bare parse and against ccusage.
// Read from the rows bench/run.mjs writes (section 'pipeline' and 'capture'); "100 MB" is the
// 100k-line native session (80–100 MB) the bench scales each agent's recorded session to.

const AGENTS = ['claude', 'codex', 'pi'];
const agentOf = (row) => row.input.split(' ')[0];
const isLarge = (row) => row.mb !== null && row.mb >= 60; // the 100k-line inputs and the 1 GB ones
const pipelineRows = (results) => results.rows.filter((r) => r.section === 'pipeline' && r.pass === 'capture|redact|verify' && AGENTS.includes(agentOf(r)) && isLarge(r));

function ratioGoal(results, big) {
  const rows = pipelineRows(results).filter((r) => (big ? r.mb >= 500 : r.mb < 500) && r.ratio_bare !== null);
  if (rows.length === 0) return undefined;
  const worst = Math.min(...rows.map((r) => r.ratio_bare));
  const each = rows.map((r) => `${agentOf(r)} ${r.ratio_bare.toFixed(2)}× (CPU ${r.ratio_bare_cpu?.toFixed(2) ?? '?'}×, ${Math.round(r.peak_rss_mb ?? 0)} MB)`).join(', ');
  const missing = AGENTS.filter((a) => !rows.some((r) => agentOf(r) === a));
  return { value: each + (missing.length ? `; not run: ${missing.join(', ')}` : ''), met: worst >= 0.5 && missing.length === 0 };
}

export default [
  {
    measure: 'capture|redact|verify, Claude/Codex/Pi, 100 MB',
    today: '0.07–0.18× bare parse',
    goal: '≥ 0.5× (2 cores)',
    value: (results) => ratioGoal(results, false),
  },
  {
    measure: 'capture|redact|verify, Claude/Codex/Pi, 1 GB',
    today: '0.07–0.18× bare parse',
    goal: '≥ 0.5× (2 cores)',
    value: (results) => ratioGoal(results, true),
  },
  {
    measure: 'capture|redact|verify vs ccusage 17 daily --offline --json, same Claude home',
    today: '1.36× faster',
    goal: '≥ 3× faster, peak RSS < 150 MB',
    value: (results) => {
      const pairs = [];
      for (const cc of results.rows.filter((r) => r.section === 'pipeline' && r.pass.startsWith('ccusage'))) {
        const sp = pipelineRows(results).find((r) => r.input === cc.input);
        if (sp) pairs.push({ input: cc.input, speedup: cc.seconds / sp.seconds, rss: sp.peak_rss_mb ?? Infinity, ccRss: cc.peak_rss_mb });
      }
      if (pairs.length === 0) return undefined;
      return {
        value: pairs.map((p) => `${p.input}: ${p.speedup.toFixed(2)}× faster, sp ${Math.round(p.rss)} MB (ccusage ${Math.round(p.ccRss ?? 0)} MB)`).join('; '),
        met: pairs.every((p) => p.speedup >= 3 && p.rss < 150),
      };
    },
  },
  {
    measure: 'sp-capture claude, 1 GB',
    today: '215 MB RSS',
    goal: '< 150 MB',
    value: (results) => {
      const row = results.rows.find((r) => r.section === 'capture' && r.pass === 'sp-capture claude' && r.mb >= 500);
      if (!row || !row.peak_rss_mb) return undefined;
      return { value: `${Math.round(row.peak_rss_mb)} MB (${row.seconds.toFixed(1)} s, ${row.ratio_bare?.toFixed(2)}× bare)`, met: row.peak_rss_mb < 150 };
    },
  },
];
