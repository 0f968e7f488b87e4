// The issues' goal tables, checked against one bench run. Every module in bench/goals/ exports
// default an array of { measure, today, goal, value(results) }, where `results` is what bench/run.mjs
// writes to bench/out/results.json ({ machine, rows, goals, rss }) and value() returns
// { value: string, met: boolean }, or undefined when the run did not measure it (a partial --only run).
//
//   node bench/goals.mjs [bench/out/results.json]    prints the Goals table of a finished run
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { outDir, root, table } from './lib.mjs';

/** Rows { measure, today, goal, value, met, from } for every goal of every module, measured or not. */
export async function goalRows(results) {
  const dir = join(root, 'bench', 'goals');
  const rows = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.mjs')).sort()) {
    const list = (await import(pathToFileURL(join(dir, name)).href)).default;
    if (!Array.isArray(list)) throw new Error(`bench/goals/${name}: export default is not an array of goals`);
    for (const g of list) {
      let measured;
      try {
        measured = g.value(results);
      } catch (err) {
        measured = { value: `error: ${err.message}`, met: false };
      }
      rows.push({ measure: g.measure, today: g.today, goal: g.goal, value: measured?.value ?? 'not measured in this run', met: measured ? Boolean(measured.met) : null, from: name });
    }
  }
  return rows;
}

const verdict = (met) => (met === null ? '–' : met ? 'met' : 'NOT met');

/** The Goals table as text (for the terminal). */
export function goalsText(rows) {
  return table([['measure', 'today', 'goal', 'this run', ''], ...rows.map((r) => [r.measure, r.today, r.goal, r.value, verdict(r.met)])]);
}

/** The Goals table as Markdown (for bench/RESULTS.md). */
export function goalsMarkdown(rows) {
  const cell = (c) => String(c).replace(/\|/g, '\\|');
  return [
    '| measure | today | goal | this run | |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${cell(r.measure)} | ${cell(r.today)} | ${cell(r.goal)} | ${cell(r.value)} | ${r.met === null ? '–' : r.met ? '**met**' : '**not met**'} |`),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2] ?? join(outDir, 'results.json');
  const results = JSON.parse(readFileSync(file, 'utf8'));
  process.stdout.write(`Goals (${file}):\n${goalsText(await goalRows(results))}\n`);
}
