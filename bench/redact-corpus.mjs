#!/usr/bin/env node
// node bench/redact-corpus.mjs [--out FILE] [--profile public] [DIR..]
// Captures every session file of every agent under fixtures/ (and the given folders, e.g.
// /work/shared/corpus laid out as <agent>/…) with `sp-capture --raw`, then runs sp-redact over the
// lot and prints the per-rule counts, and checks that the redacted stream still verifies.
// The look-alike guarantee of the rule set is that the clean corpus yields no finding at all.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { root } from './lib.mjs';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { out: { type: 'string' }, from: { type: 'string' }, profile: { type: 'string', default: 'default' } } });
const AGENTS = ['aider', 'claude', 'codex', 'copilot', 'cursor', 'gemini', 'hermes', 'opencode', 'pi', 'qoder', 'qwen'];
const SESSION_FILE = /\.(?:jsonl|json|db|md|vscdb)$/;
const bin = (name) => join(root, 'dist', 'bin', `sp-${name}.js`);

function files(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) out.push(...files(path));
    else if (SESSION_FILE.test(name) && st.size > 0) out.push(path);
  }
  return out.sort();
}

const roots = [join(root, 'fixtures'), ...positionals];
let stream = '';
let sessions = 0;
const seen = new Set(); // fixtures/<agent>/corpus mirrors the shared corpus: each session once
if (values.from) stream = readFileSync(values.from, 'utf8');
for (const base of values.from ? [] : roots) {
  for (const agent of AGENTS) {
    let list;
    try {
      list = files(join(base, agent));
    } catch {
      continue;
    }
    for (const path of list) {
      const r = spawnSync(process.execPath, [bin('capture'), agent, '--path', path, '--raw', '-q'], { encoding: 'utf8', maxBuffer: 1 << 30 });
      if (r.status !== 0 || r.stdout.trim() === '') continue; // not a session file of this agent
      const ids = new Set(r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l).session));
      if ([...ids].some((id) => seen.has(id))) continue;
      for (const id of ids) seen.add(id);
      stream += r.stdout;
      sessions++;
    }
  }
}
const dir = mkdtempSync(join(tmpdir(), 'sp-redact-corpus-'));
const all = values.out ?? join(dir, 'all.ndjson');
writeFileSync(all, stream);
const report = join(dir, 'report.json');
const env = { ...process.env, SP_HOME: join(dir, 'home') };
const red = spawnSync(process.execPath, [bin('redact'), '--profile', values.profile, '--report', report, all], { encoding: 'utf8', maxBuffer: 1 << 30, env });
const counts = JSON.parse(readFileSync(report, 'utf8'));
const verify = spawnSync(process.execPath, [bin('verify'), '-q', '-'], { input: red.stdout, encoding: 'utf8', maxBuffer: 1 << 30 });
console.log(`${values.from ? 'given' : sessions} sessions, ${counts.events} events (${all})`);
console.log(`profile ${values.profile}: ${counts.findings} finding(s) in ${counts.events_touched} event(s)`);
for (const [rule, n] of Object.entries(counts.rules).sort((a, b) => b[1] - a[1])) console.log(`  ${rule}\t${n}`);
console.log(`sp-verify after sp-redact: exit ${verify.status}${verify.status ? `: ${verify.stdout}${verify.stderr}` : ''}`);
process.exitCode = red.status === 0 && verify.status === 0 ? 0 : 1;
