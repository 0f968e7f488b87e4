// The bundled fixtures as agent homes, for the flows' --demo: every registered agent's recorded
// sessions (fixtures/<agent>/corpus) copied into a temporary folder, and the folders in the copy
// that the agent's own adapter recognizes as a home (it finds sessions there). Nothing is listed
// by hand: a new adapter with fixtures takes part in every demo without a change here.
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;

/** The adapter registry of the built package. */
export async function registry() {
  const file = join(root, 'dist/adapters/index.js');
  if (!existsSync(file)) throw new Error('the project is not built: run npm ci (or npm run build) first');
  return (await import(file)).adapters;
}

async function hasSessions(adapter, home) {
  try {
    for await (const _ of adapter.discover({ home, onDiagnostic: () => {} })) return true;
  } catch {
    // not a home of this agent
  }
  return false;
}

const dirs = (dir) =>
  existsSync(dir)
    ? readdirSync(dir)
        .map((name) => join(dir, name))
        .filter((p) => statSync(p).isDirectory())
    : [];

/**
 * Copies each agent's corpus fixtures into `into` (a new temp folder by default) and returns
 * { work, homes: { agent: [home, …] } }: a home per recorded scenario, found by the adapter itself.
 */
export async function fixtureHomes(into = mkdtempSync(join(tmpdir(), 'sp-fixtures-'))) {
  const adapters = await registry();
  const homes = {};
  for (const id of Object.keys(adapters).sort()) {
    const corpus = join(root, 'fixtures', id, 'corpus');
    if (!existsSync(corpus)) continue;
    const copy = join(into, id);
    cpSync(corpus, copy, { recursive: true });
    // A home is the corpus folder itself, a scenario folder, or one level inside one (.claude, agent/ …).
    const candidates = [copy, ...dirs(copy).flatMap((d) => [d, ...dirs(d)])];
    const found = [];
    for (const candidate of candidates) {
      if (found.some((h) => candidate.startsWith(h + '/'))) continue;
      if (await hasSessions(adapters[id], candidate)) found.push(candidate);
    }
    // The innermost folder is the home when both it and its parent list sessions.
    homes[id] = found.filter((h) => !found.some((o) => o !== h && o.startsWith(h + '/')));
    if (homes[id].length === 0) delete homes[id];
  }
  return { work: into, homes };
}

/**
 * A temporary folder for a flow's --demo, removed when the process exits (the demos used to leave
 * 4–8 MB behind per run); `keep` (the flows' --keep) leaves it for a look afterwards.
 */
export function demoFolder(prefix, keep = false) {
  const work = mkdtempSync(join(tmpdir(), prefix));
  if (!keep) process.on('exit', () => rmSync(work, { recursive: true, force: true }));
  return work;
}

/**
 * fixtureHomes for a --demo: a flow without the bundled fixtures (an installation that lacks them)
 * stops with one line and exit 2 instead of running on nothing; `need` names agents it must have.
 */
export async function demoHomes(flow, into, need = []) {
  const found = existsSync(join(root, 'fixtures')) ? await fixtureHomes(into) : { work: into, homes: {} };
  const missing = Object.keys(found.homes).length === 0 ? ['any agent'] : need.filter((a) => !found.homes[a]);
  if (missing.length > 0) {
    process.stderr.write(`${flow}: --demo: the bundled fixtures (${join(root, 'fixtures')}) have no session of ${missing.join(', ')}; reinstall the package\n`);
    process.exit(2);
  }
  return found;
}
