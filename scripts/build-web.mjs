// The web viewer of sp serve and sp export html (web/app.ts, preact) bundled by esbuild into
// dist/web/app.js, with web/app.css beside it. One IIFE file, so it also runs inline in an
// exported page; minified, no source map (an exported file carries it whole).
import { copyFileSync, mkdirSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const out = new URL('dist/web/', root).pathname;
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [new URL('web/app.ts', root).pathname],
  outfile: `${out}app.js`,
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome111', 'firefox115', 'safari16'],
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(new URL('web/app.css', root).pathname, `${out}app.css`);
