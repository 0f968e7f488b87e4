// The README cannot rot: every ```sh runnable block runs, in order, in one scratch folder, with the
// binaries on PATH (as after `npm link`), `fixtures/` linked in, the agents' homes pointed at copies
// of the fixtures and SP_HOME in the scratch folder. A block passes when bash -euo pipefail exits 0.
// The first lines are checked too: the two set-up commands and the first relay.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The fenced blocks whose info string is `sh runnable`, with the line each starts on. */
export function runnableBlocks(text: string): Array<{ line: number; code: string }> {
  const blocks: Array<{ line: number; code: string }> = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^```sh\s+runnable\s*$/.test(lines[i])) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
    blocks.push({ line: start, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

const blocks = runnableBlocks(readme);
const work = mkdtempSync(join(tmpdir(), 'sp-readme-'));
const bin = join(work, 'bin');
const env: Record<string, string> = {
  PATH: `${bin}:${process.env.PATH}`,
  HOME: join(work, 'home'),
  SP_HOME: join(work, 'sp-home'),
  CLAUDE_CONFIG_DIR: join(work, 'homes/claude'),
  CODEX_HOME: join(work, 'homes/codex'),
  PI_CODING_AGENT_DIR: join(work, 'homes/pi'),
  HERMES_HOME: join(work, 'homes/hermes'),
  SP_PROGRESS: '0',
  LANG: 'C.UTF-8',
  GIT_AUTHOR_NAME: 'sp readme',
  GIT_AUTHOR_EMAIL: 'readme@example.invalid',
  GIT_COMMITTER_NAME: 'sp readme',
  GIT_COMMITTER_EMAIL: 'readme@example.invalid',
};

function run(code: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', code], { cwd: join(work, 'scratch'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ code: status, stdout, stderr }));
  });
}

beforeAll(() => {
  mkdirSync(bin, { recursive: true });
  mkdirSync(join(work, 'home'));
  mkdirSync(join(work, 'scratch'));
  // The binaries as `npm link` would put them on PATH: sp and sp-* from package.json "bin".
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  for (const [name, file] of Object.entries(pkg.bin)) symlinkSync(join(root, file), join(bin, name));
  symlinkSync(join(root, 'fixtures'), join(work, 'scratch', 'fixtures'));
  // Commands that name no --home read the agents' own homes: copies of the fixtures.
  cpSync(join(root, 'fixtures/claude/corpus/S1-feature/.claude'), env.CLAUDE_CONFIG_DIR, { recursive: true });
  cpSync(join(root, 'fixtures/codex/corpus/S2-debug'), env.CODEX_HOME, { recursive: true });
  cpSync(join(root, 'fixtures/pi/corpus/S1-feature/agent'), env.PI_CODING_AGENT_DIR, { recursive: true });
  mkdirSync(env.HERMES_HOME, { recursive: true });
  cpSync(join(root, 'fixtures/hermes/corpus/state.db'), join(env.HERMES_HOME, 'state.db'));
});

describe('README.md', () => {
  it('opens with the two set-up commands and the one-command first relay', () => {
    const commands = readme
      .split('\n')
      .slice(0, 8)
      .filter((l) => /^ {4}\S/.test(l))
      .map((l) => l.trim().split(/\s+#/)[0].trim());
    expect(commands).toEqual(['npm ci', 'npm test', 'npm run demo']);
  });

  it('has runnable blocks, and each names only binaries that exist', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    const binaries = new Set(readdirSync(join(root, 'dist/bin')).map((f) => f.replace(/\.js$/, '')));
    for (const block of blocks) {
      for (const m of block.code.matchAll(/(?:^|[|;&(]\s*|\$\(\s*)(sp(?:-[a-z]+)?)\b/gm)) expect(binaries, `README line ${block.line}: ${m[1]}`).toContain(m[1]);
    }
  });

  it.each(blocks.map((b) => [b.line, b.code] as const))('the block at line %i runs', async (line, code) => {
    const r = await run(code);
    expect(r.code, `README.md line ${line}:\n${code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`).toBe(0);
    expect(r.stderr).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/); // never a stack trace
  }, 300_000); // a block is a few commands: seconds, but a loaded 2-core machine can make it a minute

  it('the commands in the console excerpts still exist', () => {
    for (const m of readme.matchAll(/^\$ (sp-[a-z]+)/gm)) expect(readdirSync(join(root, 'dist/bin'))).toContain(`${m[1]}.js`);
  });
});
