// Where the package's own files are, whether running from the TypeScript sources (lib/) or from
// the compiled output (dist/lib/).
import { existsSync } from 'node:fs';

let root: URL | undefined;

export function packageRoot(): URL {
  if (root) return root;
  for (const up of ['../', '../../']) {
    const candidate = new URL(up, import.meta.url);
    if (existsSync(new URL('package.json', candidate))) return (root = candidate);
  }
  throw new Error('cannot find the sp package root');
}
