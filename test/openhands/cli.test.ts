// OpenHands through the binaries (npm test builds dist/ first): --list, --latest with --cwd,
// --session by id with dashes, --path an event file; bad input is one line and exit 2.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBin } from '../support/streams.js';
import { A, B, CONV_A, HOME, tempDir } from './support.js';

const lines = (text: string) => text.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));

describe('sp-capture openhands', () => {
  it('lists, picks the latest of a project, captures by id and by path', () => {
    const list = runBin('sp-capture', ['openhands', '--list', '--home', HOME]);
    expect(list.code, list.stderr).toBe(0);
    expect(lines(list.stdout).map((r) => r.native_id).sort()).toEqual([A, B].sort());
    const latest = runBin('sp-capture', ['openhands', '--latest', '--cwd', '/work/project-b', '--home', HOME]);
    expect(latest.code, latest.stderr).toBe(0);
    expect(lines(latest.stdout)[0].payload.native_id).toBe(B);
    expect(runBin('sp-verify', [], { input: latest.stdout }).code).toBe(0);
    const byId = runBin('sp-capture', ['openhands', '--session', '3f2a9c1e-8b7d-4e6f-a0c1-d2e3f4a5b6c7', '--home', HOME]);
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toBe(runBin('sp-capture', ['openhands', '--path', CONV_A]).stdout);
  });

  it('bad input: one clear line, exit 2', () => {
    const file = join(tempDir(), 'x.json');
    writeFileSync(file, '{}');
    for (const args of [['--session', '../../etc', '--home', HOME], ['--path', file], ['--latest', '--home', tempDir()]]) {
      const r = runBin('sp-capture', ['openhands', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^sp-capture: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
