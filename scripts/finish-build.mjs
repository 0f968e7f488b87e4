// After tsc: make the compiled bins executable (tsc keeps their shebang lines but not a mode), then
// generate what is derived from the binaries' own yargs definitions, once, at build time:
// dist/completion/sp.{bash,zsh,fish} (so `sp completion bash` only prints a file) and
// dist/man/<binary>.1 (installed by npm from "directories.man": `man sp-capture` after npm i -g).
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../', import.meta.url).pathname;
const dir = join(root, 'dist/bin');
for (const name of readdirSync(dir)) if (name.endsWith('.js')) chmodSync(join(dir, name), 0o755);
for (const name of readdirSync(join(root, 'dist/flows'))) if (name.endsWith('.js')) chmodSync(join(root, 'dist/flows', name), 0o755);

// The web viewer's bundle (sp serve, sp export html).
await import('./build-web.mjs');

const completion = await import(join(root, 'dist/lib/cli/completion.js'));
const { adapters } = await import(join(root, 'dist/adapters/index.js'));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const commands = completion.findCommands(dir, [join(root, 'dist/flows'), join(root, 'examples')]).filter((c) => c.name !== 'sp');
const specs = await completion.describeCommands(commands);
const agents = Object.keys(adapters).sort();
mkdirSync(join(root, 'dist/completion'), { recursive: true });
writeFileSync(join(root, 'dist/completion/sp.bash'), completion.bashCompletion(specs, agents));
writeFileSync(join(root, 'dist/completion/sp.zsh'), completion.zshCompletion(specs, agents));
writeFileSync(join(root, 'dist/completion/sp.fish'), completion.fishCompletion(specs, agents));

// Environment for the help runs: a fixed width (no terminal), no colour.
const env = { ...process.env, COLUMNS: '100', NO_COLOR: '1', SP_PROGRESS: '0' };
mkdirSync(join(root, 'dist/man'), { recursive: true });
const help = (file) => execFileSync(process.execPath, [file, '--help'], { env, encoding: 'utf8' });
for (const c of commands.filter((c) => c.kind === 'binary')) {
  writeFileSync(join(root, 'dist/man', `sp-${c.name}.1`), completion.manPage(`sp-${c.name}`, c.summary, help(c.file), version));
}
// The compiled flows (sp relay, sp handoff, …) have a page each too, named like the binaries' (man sp-handoff).
for (const c of commands.filter((c) => completion.isCompiledFlow(c))) {
  writeFileSync(join(root, 'dist/man', `sp-${c.name}.1`), completion.manPage(`sp-${c.name}`, c.summary, help(c.file), version));
}
writeFileSync(join(root, 'dist/man/sp.1'), completion.manPage('sp', 'one command for all of the sp binaries and flows', help(join(dir, 'sp.js')), version));

// sp usage's price table ships as JSON next to its compiled module (tsc copies only .ts output).
copyFileSync(new URL('../lib/usage/prices.json', import.meta.url), new URL('../dist/lib/usage/prices.json', import.meta.url));
