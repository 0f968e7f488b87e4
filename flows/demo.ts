// The bundled fixtures as agent homes, for the flows' --demo: every registered agent's recorded
// sessions (fixtures/<agent>/corpus) copied into a temporary folder, and the folders in the copy
// that the agent's own adapter recognizes as a home (it finds sessions there). Nothing is listed by
// hand: a new adapter with fixtures takes part in every demo without a change here.
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adapters } from '../adapters/index.js';
import type { Adapter } from '../lib/adapter/interface.js';
import { UserError } from '../lib/cli/diagnostics.js';
import { packageRoot } from '../lib/fs/paths.js';

async function hasSessions(adapter: Adapter, home: string): Promise<boolean> {
  try {
    for await (const _ of adapter.discover({ home, onDiagnostic: () => {} })) return true;
  } catch {
    // not a home of this agent
  }
  return false;
}

const folders = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir)
        .map((name) => join(dir, name))
        .filter((p) => statSync(p).isDirectory())
    : [];

/** Each agent's corpus copied into `into`, and the homes in the copy: { agent: [home, …] }. */
export async function fixtureHomes(into: string): Promise<Record<string, string[]>> {
  const fixtures = join(fileURLToPath(packageRoot()), 'fixtures');
  const homes: Record<string, string[]> = {};
  for (const id of Object.keys(adapters).sort()) {
    const corpus = join(fixtures, id, 'corpus');
    if (!existsSync(corpus)) continue;
    const copy = join(into, id);
    cpSync(corpus, copy, { recursive: true });
    // A home is the corpus folder itself, a scenario folder, or one level inside one (.claude, agent/ …).
    const candidates = [copy, ...folders(copy).flatMap((d) => [d, ...folders(d)])];
    const found: string[] = [];
    for (const candidate of candidates) {
      if (found.some((h) => candidate.startsWith(h + '/'))) continue;
      if (await hasSessions(adapters[id], candidate)) found.push(candidate);
    }
    // The innermost folder is the home when both it and its parent list sessions.
    const innermost = found.filter((h) => !found.some((o) => o !== h && o.startsWith(h + '/')));
    if (innermost.length > 0) homes[id] = innermost;
  }
  return homes;
}

/**
 * A temporary folder with the fixture homes for a flow's --demo, removed when the process exits
 * unless `keep`. An installation without the fixtures of the agents `need` names stops (exit 2).
 */
export async function demoHomes(flow: string, keep: boolean, need: string[] = []): Promise<{ work: string; homes: Record<string, string[]> }> {
  const work = mkdtempSync(join(tmpdir(), `sp-${flow}-demo-`));
  if (!keep) process.on('exit', () => rmSync(work, { recursive: true, force: true }));
  const homes = await fixtureHomes(join(work, 'homes'));
  const missing = Object.keys(homes).length === 0 ? ['any agent'] : need.filter((a) => !homes[a]);
  if (missing.length > 0) throw new UserError(`the bundled fixtures have no session of ${missing.join(', ')}; reinstall the package`, '--demo');
  return { work, homes };
}
