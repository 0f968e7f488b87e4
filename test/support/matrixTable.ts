// The relay matrix as markdown tables (rows: source agent, columns: target), one per mode, and the
// loss-ledger totals per pair. Used by the acceptance test (printed, and written for `npm run matrix`).
import type { CellResult, Mode } from './matrix.js';

const order = (list: string[]): string[] => [...new Set(list)];

function cell(results: CellResult[]): string {
  if (results.length === 0) return '—';
  const failed = results.filter((r) => !r.pass);
  if (failed.length === 0) return `pass (${results.length})`;
  const first = failed[0];
  return `**fail** ${failed.length}/${results.length} — ${first.session}: ${first.reason.replace(/\|/g, '\\|')}`;
}

export function matrixTable(results: CellResult[], mode: Mode): string {
  const rows = order(results.map((r) => r.source));
  const cols = order(results.map((r) => r.target));
  const inMode = results.filter((r) => r.mode === mode);
  const lines = [`| ${mode} mode: source ↓ / target → | ${cols.join(' | ')} |`, `| --- | ${cols.map(() => '---').join(' | ')} |`];
  for (const source of rows) {
    const sessions = order(inMode.filter((r) => r.source === source).map((r) => r.session));
    lines.push(`| ${source} (${sessions.join(', ')}) | ${cols.map((target) => cell(inMode.filter((r) => r.source === source && r.target === target))).join(' | ')} |`);
  }
  const passed = inMode.filter((r) => r.pass).length;
  const pairs = rows.flatMap((s) => cols.map((t) => inMode.filter((r) => r.source === s && r.target === t))).filter((l) => l.length > 0);
  lines.push('', `${mode} mode: ${pairs.filter((l) => l.every((r) => r.pass)).length}/${pairs.length} pairs, ${passed}/${inMode.length} sessions pass.`);
  return lines.join('\n');
}

/** Ledger totals per pair, summed over the sessions: carried/translated/rendered/transformed/stubbed/dropped (summarized). */
export function ledgerTable(results: CellResult[], mode: Mode): string {
  const rows = order(results.map((r) => r.source));
  const cols = order(results.map((r) => r.target));
  const lines = [
    `| ${mode}: carried/translated/rendered/transformed/stubbed/dropped${mode === 'context' ? ' (summarized)' : ''} | ${cols.join(' | ')} |`,
    `| --- | ${cols.map(() => '---').join(' | ')} |`,
  ];
  for (const source of rows) {
    const cells = cols.map((target) => {
      const list = results.filter((r) => r.mode === mode && r.source === source && r.target === target && r.totals);
      if (list.length === 0) return '—';
      const sum = (k: 'carried' | 'translated' | 'rendered' | 'transformed' | 'stubbed' | 'dropped' | 'summarized') => list.reduce((n, r) => n + (r.totals![k] ?? 0), 0);
      return `${sum('carried')}/${sum('translated')}/${sum('rendered')}/${sum('transformed')}/${sum('stubbed')}/${sum('dropped')}${mode === 'context' ? ` (${sum('summarized')})` : ''}`;
    });
    lines.push(`| ${source} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

export function matrixReport(results: CellResult[], wallMs: number, concurrency: number): string {
  const modes = order(results.map((r) => r.mode)) as Mode[];
  const parts = modes.flatMap((m) => [matrixTable(results, m), '']);
  parts.push('Loss ledger totals per pair (source events, summed over the sessions):', '');
  for (const m of modes) parts.push(ledgerTable(results, m), '');
  const failures = results.filter((r) => !r.pass);
  if (failures.length) {
    parts.push('Failing cells:', ...failures.map((r) => `- ${r.mode} ${r.source}/${r.session} → ${r.target}: ${r.reason}`), '');
  }
  parts.push(`${results.length} cells in ${(wallMs / 1000).toFixed(0)} s wall time (${concurrency} at a time).`);
  return parts.join('\n');
}
