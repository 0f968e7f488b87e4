// A pinned agent client that needs a newer Node than this one: its tests skip with one clear line
// instead of failing (the runtime itself supports Node 20.19+; some dev-only clients want 22).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url).pathname;

/** The lowest Node version a `>=X.Y.Z` engines range asks for, as [major, minor, patch]. */
function lowest(range: string): number[] | undefined {
  const m = />=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(range);
  return m ? [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] : undefined;
}

/**
 * undefined when this Node runs the package's client; else why not (one line). A client whose
 * engines ask for a newer Node but that starts here anyway (`probe --version` exits 0) runs: its
 * declared range is printed, and the tests prove what it does on this Node.
 */
export function clientNeedsNewerNode(pkg: string, probe?: string, node = process.versions.node): string | undefined {
  const why = declaredNewer(pkg, node);
  if (!why || !probe) return why;
  const run = spawnSync(probe, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  if (run.status === 0) {
    process.stderr.write(`${why}: it starts on this Node, so its tests run\n`);
    return undefined;
  }
  return `${why}, and does not start here (${(run.stderr || run.error?.message || `exit ${run.status}`).trim().split('\n')[0]})`;
}

function declaredNewer(pkg: string, node: string): string | undefined {
  let engines: string | undefined;
  let version = '';
  try {
    const json = JSON.parse(readFileSync(`${root}node_modules/${pkg}/package.json`, 'utf8')) as { version: string; engines?: { node?: string } };
    engines = json.engines?.node;
    version = json.version;
  } catch {
    return `${pkg} is not installed (npm ci installs the pinned clients)`;
  }
  const want = engines ? lowest(engines) : undefined;
  if (!want) return undefined;
  const have = node.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if (have[i] > want[i]) return undefined;
    if (have[i] < want[i]) return `${pkg} ${version} needs Node ${engines}; this is Node ${node}`;
  }
  return undefined;
}
