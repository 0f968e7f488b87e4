// Start-up: a binary loads the adapters its command uses and no other. `--version` loads none, help
// that only names agents takes the names from adapters/registry.ts, and a command naming one agent
// loads that agent's adapter alone (the bench's start-up and incremental rows measure what this keeps).
// Each run records the ES modules it loads with a loader hook (node:module register).
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { root, tempDir } from './support/streams.js';

const work = tempDir('sp-startup-');
const hooks = join(work, 'hooks.mjs');
writeFileSync(hooks, "import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  appendFileSync(process.env.SP_TEST_MODULES, url + '\\n');\n  return next(url, context);\n}\n");
const register = join(work, 'register.mjs');
writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);

let runs = 0;
/** The adapter modules (dist/adapters/…, relative) a run of the binary loaded, and its exit code. */
function adaptersLoaded(bin: string, args: string[]): { code: number; adapters: string[]; modules: number } {
  const list = join(work, `modules-${(runs += 1)}.txt`);
  writeFileSync(list, '');
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, join(root, 'dist/bin', `${bin}.js`), ...args], {
    env: { ...process.env, SP_TEST_MODULES: list, SP_HOME: join(work, 'sp-home') },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const urls = readFileSync(list, 'utf8').split('\n').filter((u) => u.startsWith('file:'));
  const prefix = pathToFileURL(join(root, 'dist/adapters')).href + '/';
  return { code: r.status ?? -1, adapters: urls.filter((u) => u.startsWith(prefix)).map((u) => u.slice(prefix.length)), modules: urls.length };
}

const bins = Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin).filter((b) => b.startsWith('sp'));

describe('start-up: adapters loaded after parsing, only those used', () => {
  it('--version loads no adapter, in every binary', () => {
    for (const bin of bins) {
      const r = adaptersLoaded(bin, ['--version']);
      expect(r.code, bin).toBe(0);
      expect(r.adapters.filter((a) => a !== 'registry.js'), bin).toEqual([]);
    }
  }, 120_000);

  it('help that names agents takes the names from the registry', () => {
    for (const bin of ['sp-config', 'sp-doctor', 'sp-hooks', 'sp-show', 'sp-usage', 'sp-watch']) {
      const r = adaptersLoaded(bin, ['--help']);
      expect(r.code, bin).toBe(0);
      expect(r.adapters, bin).toEqual(r.adapters.includes('registry.js') ? ['registry.js'] : []);
    }
  }, 120_000);

  it('a command naming one agent loads that adapter alone (sp-capture --cursor, sp-show, sp-usage)', () => {
    const transcript = join(work, 'session.jsonl');
    copyFileSync(join(root, 'fixtures/claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl'), transcript);
    const commands: Array<[string, string[]]> = [
      ['sp-capture', ['claude', '--path', transcript, '--cursor', join(work, 'claude.cursor')]],
      ['sp-show', ['claude', '--path', transcript, '--no-pager', '--no-redact']],
      ['sp-usage', ['claude', '--home', join(root, 'fixtures/claude/corpus/S2-debug/.claude'), '--json']],
    ];
    for (const [bin, args] of commands) {
      const r = adaptersLoaded(bin, args);
      expect(r.code, bin).toBe(0);
      expect(r.adapters.filter((a) => a !== 'registry.js' && !a.startsWith('claude/')), bin).toEqual([]);
      expect(r.adapters, bin).toContain('claude/index.js');
    }
  }, 120_000);
});
