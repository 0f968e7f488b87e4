// The sp umbrella: sp <name> runs sp-<name> with the exit status passed through, sp --help lists
// what is there, and the completion scripts know the commands, the agents of the registry and
// each binary's options.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../adapters/index.js';
import { flowOptions, parseHelp, summaryOf } from '../lib/cli/completion.js';
import { compileTargets } from '../lib/compile/targets.js';

const root = new URL('..', import.meta.url).pathname;
const sp = join(root, 'dist/bin/sp.js');
const run = (args: string[], input?: string) => spawnSync(process.execPath, [sp, ...args], { encoding: 'utf8', input, env: { ...process.env, SP_PROGRESS: '0' } });
const binaries = readdirSync(join(root, 'dist/bin'))
  .filter((f) => /^sp-.*\.js$/.test(f))
  .map((f) => f.slice(3, -3));
const claudeFixture = join(root, 'fixtures/claude/corpus/S1-feature/.claude');

describe('sp <command>', () => {
  it('--help lists every binary and flow with the first sentence of its header comment', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    for (const name of binaries) {
      const summary = summaryOf(join(root, 'dist/bin', `sp-${name}.js`));
      expect(summary.length).toBeGreaterThan(10);
      expect(r.stdout).toContain(`  ${name}`);
      expect(r.stdout).toContain(summary);
    }
    for (const flow of readdirSync(join(root, 'examples')).filter((f) => f.endsWith('.mjs'))) {
      const text = readFileSync(join(root, 'examples', flow), 'utf8');
      const name = flow.slice(0, -4);
      if (text.startsWith('#!')) expect(r.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
      else expect(r.stdout).not.toMatch(new RegExp(`^  ${name} `, 'm'));
    }
    // The TypeScript flows (dist/flows): listed with their summary; their helper modules (no shebang) are not.
    expect(r.stdout).toContain(`  relay        ${summaryOf(join(root, 'dist/flows/relay.js'))}`);
    expect(r.stdout).not.toMatch(/^ {2}demo\.js|^ {2}demo {2,}The bundled/m);
    expect(run([]).status).toBe(2);
  });

  it('runs the binary with its arguments, stdin and exit status', () => {
    const list = run(['capture', 'claude', '--list', '--home', claudeFixture]);
    expect(list.status).toBe(0);
    const sessions = list.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(sessions.length).toBeGreaterThan(0);
    expect(sessions[0].agent).toBe('claude');

    const captured = run(['capture', 'claude', '--latest', '--home', claudeFixture]);
    expect(captured.status).toBe(0);
    expect(run(['verify'], captured.stdout).status).toBe(0);
    // A damaged stream: the verify exit status 1 comes through, and its own diagnostics name it.
    const lines = captured.stdout.trim().split('\n');
    lines.splice(3, 1);
    const damaged = run(['verify'], lines.join('\n') + '\n');
    expect(damaged.status).toBe(1);
    expect(damaged.stdout).toMatch(/deleted/);

    const usage = run(['capture', 'nosuchagent', '--list']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/^sp-capture: unknown agent "nosuchagent"; known agents: /m);
    expect(run(['verify', '--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('an unknown command is exit 2 and names the commands', () => {
    const r = run(['frobnicate']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('sp: unknown command "frobnicate"');
    for (const name of binaries) expect(r.stderr).toContain(name);
  });
});

describe('sp completion', () => {
  let bash = '';
  let zsh = '';
  beforeAll(() => {
    const b = run(['completion', 'bash']);
    expect(b.status, b.stderr).toBe(0);
    bash = b.stdout;
    const z = run(['completion', 'zsh']);
    expect(z.status, z.stderr).toBe(0);
    zsh = z.stdout;
  }, 300_000);

  // Runs the bash completion function on a command line (the cursor after the last word).
  function complete(line: string): string[] {
    const dir = mkdtempSync(join(tmpdir(), 'sp-complete-'));
    writeFileSync(join(dir, 'sp.bash'), bash);
    const words = line.split(' ');
    const script = `source ${dir}/sp.bash
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_sp_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = spawnSync('bash', ['-c', script], { encoding: 'utf8', cwd: dir });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout.split('\n').filter(Boolean).sort();
  }

  it('bash: commands, the registry\'s agents, options, choices', () => {
    expect(spawnSync('bash', ['-n'], { input: bash }).status).toBe(0);
    const commands = complete('sp ');
    for (const name of binaries) expect(commands).toContain(name);
    expect(commands).toContain('completion');
    expect(complete('sp capture ')).toEqual(Object.keys(adapters).sort());
    expect(complete('sp materialize c').every((a) => a.startsWith('c'))).toBe(true);
    expect(complete('sp capture claude --l')).toEqual(['--latest', '--list']);
    // Every registered agent with a compile profile, and markdown.
    expect(complete('sp compile --for ')).toEqual(Object.keys(compileTargets()).sort());
    expect(complete('sp compile --for ')).toEqual(expect.arrayContaining(['claude', 'codex', 'kimi', 'markdown']));
    expect(complete('sp materialize codex --branch ')).toEqual(['active', 'all']);
    // The binaries themselves complete too.
    expect(complete('sp-capture ')).toEqual(Object.keys(adapters).sort());
    expect(complete('sp completion ')).toEqual(['bash', 'fish', 'zsh']);
    // Flows complete their options too (read from their help text, never by running them).
    expect(complete('sp archive --')).toEqual(expect.arrayContaining(['--store', '--agents', '--home', '--verbose', '--demo', '--help']));
    expect(complete('sp handoff --to-')).toEqual(['--to-cwd', '--to-home']);
  });

  it('zsh: a #compdef script with each command, agent and option', () => {
    expect(zsh.startsWith('#compdef sp ')).toBe(true);
    for (const name of binaries) expect(zsh).toContain(`_sp_${name.replace(/-/g, '_')}() {`);
    expect(zsh).toContain(`'1:agent:(${Object.keys(adapters).sort().join(' ')})'`);
    expect(zsh).toContain(`'--for[for]:for:(${Object.keys(compileTargets()).join(' ')})'`);
    expect(zsh).toContain(`'(-q --quiet)'{-q,--quiet}'[quiet]'`);
  });

  it('an unknown shell is exit 2', () => {
    const r = run(['completion', 'tcsh']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('sp completion bash');
  });

  it('flowOptions reads the option lines of a help text: values, aliases, flags', () => {
    const help = 'const HELP = `x\n  --store DIR        the store\n  --agents a,b       agents\n  --verbose, -v      talk\n  -h, --help         this\n  --demo             a demo`;';
    expect(flowOptions(help).options).toEqual([
      { name: 'store', alias: undefined, boolean: false },
      { name: 'agents', alias: undefined, boolean: false },
      { name: 'verbose', alias: 'v', boolean: true },
      { name: 'help', alias: 'h', boolean: true },
      { name: 'demo', alias: undefined, boolean: true },
    ]);
  });

  it('parseHelp reads wrapped yargs option lines, choices and subcommands', () => {
    const help = `sp-sync <command> [options]

Commands:
  sp-sync ingest [FILE..]  add events to the store
  sp-sync push             push to a remote

Options:
      --version  Show version number                                                     [boolean]
      --store    the store directory                                                      [string]
  -q, --quiet    no progress                                            [boolean] [default: false]
      --format   output
                                              [string] [choices: "text", "json"] [default: "text"]
`;
    const parsed = parseHelp(help, 'sp-sync');
    expect(parsed.subcommands).toEqual(['ingest', 'push']);
    expect(parsed.agentArgument).toBe(false);
    expect(parsed.options).toEqual([
      { name: 'store', alias: undefined, boolean: false },
      { name: 'quiet', alias: 'q', boolean: true },
      { name: 'format', alias: undefined, boolean: false, choices: ['text', 'json'] },
    ]);
  });
});
