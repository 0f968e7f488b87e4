// Goose through the binaries (npm test builds dist/ first): --list, --latest with --cwd, --session,
// --path; bad input is one `sp-capture:` line and exit 2, never a stack trace.
import { describe, expect, it } from 'vitest';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runBin } from '../support/streams.js';
import { CWD_A, LEGACY, S1, S2, buildHome, dbOf, tempDir } from './support.js';

const lines = (text: string) => text.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
const home = buildHome();

describe('sp-capture goose', () => {
  it('lists, picks the latest of a project, captures by id and by locator', () => {
    const list = runBin('sp-capture', ['goose', '--list', '--home', home]);
    expect(list.code, list.stderr).toBe(0);
    expect(lines(list.stdout).map((r) => r.native_id).sort()).toEqual([LEGACY, S1, S2].sort());
    const latest = runBin('sp-capture', ['goose', '--latest', '--cwd', CWD_A, '--home', home]);
    expect(latest.code, latest.stderr).toBe(0);
    expect(lines(latest.stdout)[0].payload.native_id).toBe(S1);
    expect(runBin('sp-verify', [], { input: latest.stdout }).code).toBe(0);
    const byId = runBin('sp-capture', ['goose', '--session', S1, '--home', home]);
    expect(byId.stdout).toBe(runBin('sp-capture', ['goose', '--path', `${dbOf(home)}#${S1}`]).stdout);
  });

  it('bad input: one clear line, exit 2', () => {
    const corrupt = tempDir();
    mkdirSync(join(corrupt, 'sessions'));
    writeFileSync(join(corrupt, 'sessions', 'sessions.db'), 'this is not a database at all, just text padded out '.repeat(100));
    for (const args of [['--latest', '--home', corrupt], ['--session', '../../etc/passwd', '--home', home], ['--path', `${dbOf(home)}#../x`]]) {
      const r = runBin('sp-capture', ['goose', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^sp-capture: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
