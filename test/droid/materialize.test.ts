// The Droid writer against hostile input: a session id or a cwd from events never chooses a path
// outside the home, a symlink planted in the home is refused, nothing is ever overwritten, and a
// dry run writes nothing. Plus what it writes: the records the client's loader needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { droid } from '../../adapters/droid/index.js';
import { materializeDroid } from '../../adapters/droid/materialize.js';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { captureAll } from '../contract/testAdapter.js';
import { SESSION, SESSION_ID } from './support.js';

type Json = Record<string, any>;
let work: string;
let events: SpEvent[];
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sp-droid-writer-'));
  events = (await captureAll(droid, SESSION)).events;
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const write = (evs: SpEvent[], options: MaterializeOptions) =>
  materializeDroid((async function* () {
    yield* evs;
  })(), options);

/** Every file under a folder, recursively. */
function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

function withStart(patch: Json): SpEvent[] {
  return events.map((e) => (e.type === 'session.start' ? { ...e, payload: { ...(e.payload as Json), ...patch } } : e));
}

describe('droid writer', () => {
  it('writes session_start then linear messages, a settings sidecar, private files; the resume command names the home', async () => {
    const home = join(work, 'plain', '.factory');
    const result = await write(events, { home, cwd: '/home/judy/acme-api' });
    expect(result.path).toBe(join(home, 'sessions', '-home-judy-acme-api', `${result.session_id}.jsonl`));
    const lines = readFileSync(result.path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Json);
    expect(lines[0]).toMatchObject({ type: 'session_start', id: result.session_id, owner: 'unknown', version: 2, cwd: '/home/judy/acme-api', title: 'Check the greeting in src/hello.js and write down what is wrong' });
    const messages = lines.slice(1);
    expect(messages.every((m) => m.type === 'message')).toBe(true);
    messages.forEach((m, i) => expect(m.parentId).toBe(i === 0 ? undefined : messages[i - 1].id));
    expect(messages.map((m) => m.message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(statSync(result.path).mode & 0o777).toBe(0o600);
    const settings = JSON.parse(readFileSync(result.path.replace(/\.jsonl$/, '.settings.json'), 'utf8')) as Json;
    expect(settings.model).toBe('custom:Mock-0');
    expect(result.resume_exec).toMatchObject({ argv: ['droid', '--resume', result.session_id], env: { FACTORY_HOME_OVERRIDE: join(work, 'plain') } });
  });

  it('a hostile cwd from events (relative, with ..) is made absolute: the project folder stays under the home', async () => {
    const home = join(work, 'cwd', '.factory');
    const result = await write(withStart({ cwd: '../../../../etc/x' }), { home });
    expect(result.path.startsWith(join(home, 'sessions') + '/')).toBe(true);
    expect(files(join(work, 'cwd')).every((f) => f.startsWith(home))).toBe(true);
  });

  it('--same-id with a native id that is a path: refused, nothing written', async () => {
    const home = join(work, 'sameid', '.factory');
    await expect(write(withStart({ native_id: '../../../evil' }), { home, cwd: '/p', sameId: true })).rejects.toThrow(UserError);
    expect(files(join(work, 'sameid'))).toEqual([]);
  });

  it('--same-id twice: the second write refuses and the first file is untouched (never overwritten)', async () => {
    const home = join(work, 'twice', '.factory');
    const first = await write(events, { home, cwd: '/p', sameId: true });
    expect(first.session_id).toBe(SESSION_ID);
    const before = readFileSync(first.path, 'utf8');
    await expect(write(events, { home, cwd: '/p', sameId: true })).rejects.toThrow(/exists already/);
    expect(readFileSync(first.path, 'utf8')).toBe(before);
  });

  it('a project folder in the home that is a symlink to elsewhere: refused, nothing written there', async () => {
    const home = join(work, 'link', '.factory');
    const outside = join(work, 'link-target');
    mkdirSync(join(home, 'sessions'), { recursive: true });
    mkdirSync(outside, { recursive: true });
    symlinkSync(outside, join(home, 'sessions', '-p'));
    await expect(write(events, { home, cwd: '/p' })).rejects.toThrow(/symlink/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('a dry run writes nothing and still reports the records', async () => {
    const home = join(work, 'dry', '.factory');
    const lines: string[] = [];
    const result = await write(events, { home, cwd: '/p', dryRun: true, onLine: (l) => lines.push(l) });
    expect(result.dry_run).toBe(true);
    expect(lines.length).toBe(result.records);
    expect(files(join(work, 'dry'))).toEqual([]);
  });
});
