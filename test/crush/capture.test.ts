// Golden tests of the Crush capture on databases built from the source's schema (support.ts: shapes,
// not recordings): every item type of a message's `parts`, the project found through projects.json,
// the cwd filter; broken input (a crush.db that is not SQLite, a projects.json cut off) and hostile
// input (a relative or climbing data_dir, a session id that climbs, a crush.db symlinked elsewhere).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crush } from '../../adapters/crush/index.js';
import { closeReadConnections } from '../../lib/capture/sqlite.js';
import type { SessionRef } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { CHILD, MAIN, OLDER, buildHome, buildProject } from './support.js';

type Json = Record<string, any>;
const p = (e: SpEvent): Json => e.payload as Json;
let work: string;
let project: string;
let db: string;
let home: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-crush-capture-'));
  project = join(work, 'shop');
  db = buildProject(project);
  home = join(work, 'global');
  buildHome(home, project);
});
afterAll(() => {
  closeReadConnections();
  rmSync(work, { recursive: true, force: true });
});

async function list(options: Json): Promise<SessionRef[]> {
  const out: SessionRef[] = [];
  for await (const ref of crush.discover(options)) out.push(ref);
  return out;
}

describe('crush capture', () => {
  it('lists the sessions of every project in projects.json, newest first, with the project as cwd', async () => {
    const refs = await list({ home, details: true });
    expect(refs.map((r) => [r.native_id, r.cwd, r.parent_native_id])).toEqual([[MAIN, project, undefined], [CHILD, project, MAIN], [OLDER, project, undefined]]);
    expect(refs[0]).toMatchObject({ title: 'Fix the sum test', first_prompt: 'Fix the failing test in src/sum.go', messages: 5, tool_calls: 2, model: 'claude-sonnet-4-5' });
    expect(await list({ home, cwd: join(work, 'elsewhere') })).toEqual([]);
    expect((await list({ home: join(project, '.crush') })).map((r) => [r.native_id, r.cwd])[0]).toEqual([MAIN, project]);
  });

  it('maps every item type of the main session', async () => {
    const { events, diagnostics } = await captureAll(crush, `${db}#${MAIN}`);
    expect(diagnostics).toEqual([]);
    expect(events.map((e) => (e.type === 'meta' ? `meta:${p(e).key}` : e.type))).toEqual([
      'session.start',
      'message.user', 'message.thinking', 'message.assistant', 'tool.call', 'meta:crush.part.finish',
      'tool.result', 'tool.call', 'meta:crush.part.finish', 'tool.result', 'command.run',
      'message.assistant', 'meta:crush.part.hologram', 'meta:crush.part.finish', 'meta:crush.message.system',
      'meta:crush.todos', 'meta:crush.files',
    ]);
    expect(p(events[0])).toMatchObject({ native_id: MAIN, cwd: project, title: 'Fix the sum test', model: 'claude-sonnet-4-5', provider: 'anthropic' });
    expect(p(events[1]).content).toEqual([{ type: 'text', text: 'Fix the failing test in src/sum.go' }, { type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=', path: '/home/ada/shop/shot.png' }]);
    expect(p(events[2])).toMatchObject({ text: 'Look at the test first.', signature: 'sig-1' });
    expect(p(events[3])).toMatchObject({ stop_reason: 'tool_use', model: 'claude-sonnet-4-5' });
    expect(p(events[4])).toMatchObject({ call_id: 'toolu_01', name: 'view', input: { file_path: '/home/ada/shop/src/sum_test.go' } });
    expect(p(events[6])).toMatchObject({ call_id: 'toolu_01', content: 'package sum\n', structured: { metadata: { file_path: '/home/ada/shop/src/sum_test.go' } } });
    expect(p(events[9])).toMatchObject({ call_id: 'toolu_02', is_error: true });
    expect(p(events[10])).toMatchObject({ cmd: 'git status', exit_code: 0, stdout_head: 'On branch main' });
    expect(p(events[11]).content[0].text).toContain('修好了');
    expect(p(events[12]).raw).toEqual({ beam: 1 });
    expect(events.map((e) => e.origin?.native_seq)).toEqual([0, 1, 2, 2, 2, 2, 3, 4, 4, 5, 6, 7, 7, 7, 8, 9, 9]);
    expect(events[1].ts).toBe(1796200001);
  });

  it('a child session points at its parent', async () => {
    const { events } = await captureAll(crush, `${db}#${CHILD}`);
    expect(p(events[0]).parent_native_id).toBe(MAIN);
    expect(p(events[0]).parent_session).toMatch(/./);
  });
});

describe('crush capture: broken and hostile input', () => {
  it('a crush.db that is not SQLite and a projects.json cut off are clear errors', async () => {
    const dir = join(work, 'corrupt', '.crush');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'crush.db'), 'not a database '.repeat(200));
    await expect(list({ home: dir })).rejects.toMatchObject({ message: 'not a SQLite database', exitCode: 2 });
    const cut = join(work, 'cut');
    mkdirSync(cut, { recursive: true });
    writeFileSync(join(cut, 'projects.json'), '{"projects": [{"path": "/x", "data_');
    await expect(list({ home: cut })).rejects.toMatchObject({ message: expect.stringMatching(/^not a Crush projects list/), exitCode: 2 });
  });

  it('projects.json entries with a relative data_dir are skipped with a diagnostic, never resolved against the cwd', async () => {
    const hostile = join(work, 'hostile');
    buildHome(hostile, project, [{ path: 'x', data_dir: '../shop/.crush' }, { path: '/y', data_dir: 42 }]);
    const seen: string[] = [];
    const refs = await list({ home: hostile, onDiagnostic: (where: string, what: string) => seen.push(`${where}: ${what}`) });
    expect(refs.map((r) => r.native_id)).toEqual([MAIN, CHILD, OLDER]);
    expect(seen).toEqual([`${join(hostile, 'projects.json')}:2: a project without an absolute data_dir: skipped`, `${join(hostile, 'projects.json')}:3: a project without an absolute data_dir: skipped`]);
  });

  it('a session id that climbs names no session', async () => {
    await expect(crush.open(`${db}#../../etc/passwd`)).rejects.toThrow(/no session \.\.\/\.\.\/etc\/passwd in this database/);
    await expect(crush.find!('../', { home })).rejects.toThrow(/no Crush session/);
  });

  it('a crush.db symlinked out of the data dir is read in place, never written', async () => {
    const linked = join(work, 'linked', '.crush');
    mkdirSync(linked, { recursive: true });
    symlinkSync(db, join(linked, 'crush.db'));
    expect((await list({ home: linked })).map((r) => r.native_id)).toEqual([MAIN, CHILD, OLDER]);
    expect(crush.materialize).toBeUndefined();
  });
});
