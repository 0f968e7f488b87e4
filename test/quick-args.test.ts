// The quick argument parser (lib/cli/quick-args.ts) against yargs, on every binary's own option
// builder: whatever command line the quick parser accepts, it must give the object yargs gives;
// whatever it declines, yargs parses (with its messages). And the command lines of scripts and
// hooks — the reason it exists — must be the ones it accepts.
import { describe, expect, it, vi } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CliSpec } from '../lib/cli/cli.js';
import { root } from './support/streams.js';

const specs = new Map<string, CliSpec<unknown>>();

// Importing a binary runs its `await runCli(spec)` (the others export it): keep the spec instead of running it.
vi.mock('../lib/cli/cli.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../lib/cli/cli.js')>();
  return {
    ...real,
    runCli: async (spec: CliSpec<unknown>) => {
      specs.set(spec.name, spec);
    },
  };
});

const { parseArguments, parseWithYargs, COMMON_OPTIONS } = await import('../lib/cli/cli.js');
const { quickParse } = await import('../lib/cli/quick-args.js');

const binaries = readdirSync(join(root, 'bin'))
  .filter((f) => f.endsWith('.ts') && f !== 'sp.ts')
  .map((f) => f.replace(/\.ts$/, ''));
// A binary reads process.argv at top level (sp-mcp with no arguments serves MCP on stdin): give them one that only reaches runCli.
const argv = process.argv;
process.argv = [argv[0], 'sp-test', '--version'];
try {
  for (const name of binaries) {
    // The stages of `sp run` export their spec and run it only as the program itself.
    const module = (await import(`../bin/${name}.ts`)) as { spec?: CliSpec<unknown> };
    if (module.spec) specs.set(module.spec.name, module.spec);
  }
} finally {
  process.argv = argv;
}
// What the option builders read (every adapter, for sp-compile, sp-materialize, sp-resume): runCli
// loads it before parsing, and so must a test that calls a builder itself.
for (const spec of specs.values()) await spec.prepare?.();

/** The object without undefined values, keys sorted: how the run handler sees it. */
const plain = (args: unknown) => JSON.parse(JSON.stringify(args, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v)));

/** What a parse gave, or the message it failed with. */
const outcome = (parsing: Promise<unknown>) => parsing.then(plain, (err: Error) => ({ error: err.message }));

/** Long options of a spec, by type, as the recorder of the quick parser would see them. */
function declaredOptions(spec: CliSpec<unknown>): Array<{ name: string; type: unknown; alias?: unknown }> {
  const found: Array<{ name: string; type: unknown; alias?: unknown }> = COMMON_OPTIONS.map(([name, c]) => ({ name, type: c.type, alias: c.alias }));
  const recorder: Record<string, unknown> = new Proxy(
    {},
    {
      get: (_t, method) => (...args: unknown[]) => {
        if (method === 'option' && typeof args[0] === 'string') {
          const c = (args[1] ?? {}) as { type?: unknown; alias?: unknown };
          found.push({ name: args[0], type: c.type, alias: c.alias });
        }
        return recorder;
      },
    },
  );
  spec.options(recorder as never);
  return found;
}

/** Command lines built from a spec's options: each alone, pairs, values that look like other things. */
function commandLines(spec: CliSpec<unknown>): string[][] {
  const options = declaredOptions(spec);
  const lines: string[][] = [[], ['claude'], ['a', 'b'], ['a', 'b', 'c'], ['123'], [''], ['-'], ['--'], ['--help'], ['-h'], ['--unknown'], ['-x'], ['--no-json'], ['--json=true'], ['--json', 'true'], ['--json', 'false'], ['-qq']];
  for (const o of options) {
    const flag = `--${o.name}`;
    if (o.type === 'boolean') lines.push([flag], [flag, 'file.ndjson'], ['claude', flag], [flag, flag], [flag, 'true']);
    else lines.push([flag, 'v'], [flag, '42'], [flag, ''], [flag, '-v'], [flag], ['claude', flag, 'x y'], [flag, 'a', flag, 'b'], [flag, 'v', 'file']);
    if (typeof o.alias === 'string' && o.alias.length === 1) lines.push([`-${o.alias}`], [`-${o.alias}`, 'x'], ['x', `-${o.alias}`]);
  }
  const strings = options.filter((o) => o.type === 'string').map((o) => o.name);
  const booleans = options.filter((o) => o.type === 'boolean').map((o) => o.name);
  for (const s of strings) for (const b of booleans) lines.push(['claude', `--${s}`, '/tmp/x', `--${b}`], [`--${b}`, `--${s}`, 'v', 'w']);
  return lines;
}

describe('the quick argument parser', () => {
  it('finds every binary built on runCli', () => {
    expect([...specs.keys()].sort()).toEqual(binaries.sort());
  });

  for (const name of binaries) {
    it(`${name}: gives what yargs gives for every command line it accepts`, async () => {
      const spec = specs.get(name)!;
      let accepted = 0;
      for (const argv of commandLines(spec)) {
        const quick = quickParse(spec.name, COMMON_OPTIONS, spec.options as (y: never) => unknown, argv);
        if (quick === undefined) continue;
        accepted += 1;
        // Through the functions runCli calls (a bad --color value is the same error either way).
        expect(await outcome(parseArguments(spec, argv)), `${name} ${argv.join(' ')}`).toEqual(await outcome(parseWithYargs(spec, argv)));
      }
      // A builder the quick parser does not model (subcommands, conflicts, choices …) declines every line.
      if (quickParse(spec.name, COMMON_OPTIONS, spec.options as (y: never) => unknown, []) !== undefined) expect(accepted).toBeGreaterThan(5);
    });
  }

  it.each([
    ['sp-capture', ['claude', '--path', '/tmp/s.jsonl', '--cursor', '/tmp/c.cursor']],
    ['sp-capture', ['codex', '--latest', '--follow', '--json']],
    ['sp-capture', ['hermes', '--all', '--home', '/tmp/h', '--cursor', '/tmp/h.cursor']],
    ['sp-redact', ['-q']],
    ['sp-redact', ['--quiet', 'a.ndjson', 'b.ndjson']],
    ['sp-verify', ['-q']],
    ['sp-verify', ['-q', 'a.ndjson']],
  ])('%s %j: parsed without yargs, as yargs parses it', async (name, argv) => {
    const spec = specs.get(name)!;
    const quick = quickParse(spec.name, COMMON_OPTIONS, spec.options as (y: never) => unknown, argv);
    expect(quick).toBeDefined();
    expect(await outcome(parseArguments(spec, argv))).toEqual(await outcome(parseWithYargs(spec, argv)));
  });

  it.each([
    ['sp-capture', ['claude', '--path']],
    ['sp-capture', ['claude', '--bogus']],
    ['sp-capture', ['claude', 'codex', '--latest']],
    ['sp-capture', ['claude', '--path', 'a', '--path', 'b']],
    ['sp-verify', ['--no-schema', 'a.ndjson']],
    ['sp-verify', ['--receipt', 'r.json']],
    ['sp-redact', ['--help']],
  ])('%s %j: left to yargs', (name, argv) => {
    const spec = specs.get(name)!;
    expect(quickParse(spec.name, COMMON_OPTIONS, spec.options as (y: never) => unknown, argv)).toBeUndefined();
  });
});
