// Broken and hostile task folders (docs/formats/cline-tasks.md §1, §2): truncated JSON, a
// non-array, missing files, task ids and links that lead out of the storage, oversized files and
// deep nesting. Each is reported clearly and the rest of the task survives where it safely can.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { clineVscode } from '../../adapters/cline-vscode/index.js';
import { roo } from '../../adapters/roo/index.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SessionRef } from '../../lib/adapter/interface.js';
import { runBin } from '../support/streams.js';
import { clineNative, rooV2, uiOnly, writeTask } from './build.js';
import { scratchStorage } from './support.js';
import { view } from './view.js';
import { captureAll, type Diagnostic } from '../contract/testAdapter.js';

const EXT = 'saoudrizwan.claude-dev';

async function list(options: Parameters<typeof clineVscode.discover>[0]): Promise<{ refs: SessionRef[]; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const refs: SessionRef[] = [];
  for await (const ref of clineVscode.discover({ ...options, onDiagnostic: (where, what) => diagnostics.push({ where, what }) })) refs.push(ref);
  return { refs, diagnostics };
}

describe('broken task files', () => {
  it('a truncated API history: reported at its line, kept as meta, the conversation read from the UI messages', async () => {
    const storage = scratchStorage('ct-broken', EXT);
    const api = clineNative(storage);
    const text = readFileSync(api, 'utf8');
    writeFileSync(api, text.slice(0, 200));
    const { events, diagnostics } = await captureAll(clineVscode, api);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0].where).toBe(`${api}:1`);
    expect(diagnostics[0].what).toMatch(/^not JSON \(.*\): the file is left out/);
    const views = events.map(view);
    expect(views[1]).toBe('meta cline-vscode.unparseable');
    expect(views).toContain('message.user@ui1 Fix the failing test in src/app.ts');
    expect(views).toContain('message.assistant@ui7 Fixed the operator in add.');
  });

  it('a truncated UI messages file next to a good API history: the conversation is whole, the loss reported', async () => {
    const storage = scratchStorage('ct-broken-ui', EXT);
    const api = clineNative(storage);
    const ui = join(dirname(api), 'ui_messages.json');
    writeFileSync(ui, '[{"ts":1,"type":"say",\n"say":"text","te');
    const { events, diagnostics } = await captureAll(clineVscode, api);
    expect(diagnostics.map((d) => d.where)).toEqual([`${ui}:2`]);
    expect(events.filter((e) => e.type === 'tool.call')).toHaveLength(4);
    expect(events.filter((e) => e.type === 'meta' && (e.payload as Record<string, unknown>).key === 'cline-vscode.unparseable')).toHaveLength(1);
  });

  it('an API history that is not a list: reported, the UI messages read instead', async () => {
    const storage = scratchStorage('ct-object', EXT);
    const api = clineNative(storage);
    writeFileSync(api, JSON.stringify({ role: 'user', content: 'one message, not a list' }));
    const { events, diagnostics } = await captureAll(clineVscode, api);
    expect(diagnostics).toEqual([{ where: `${api}:1`, what: 'not a list of messages (a JSON object): the file is left out, the rest of the task is captured' }]);
    expect(events.map(view)).toContain('message.user@ui1 Fix the failing test in src/app.ts');
  });

  it('a task folder with neither conversation file: open refuses it (exit 2), discovery skips it and says so', async () => {
    const storage = scratchStorage('ct-empty', EXT);
    clineNative(storage);
    const empty = join(storage, 'tasks', '1700000000000');
    mkdirSync(empty, { recursive: true });
    writeFileSync(join(empty, 'task_metadata.json'), '{}');
    await expect(clineVscode.open(empty)).rejects.toThrow(/neither api_conversation_history.json nor ui_messages.json/);
    const { refs, diagnostics } = await list({ home: storage });
    expect(refs.map((r) => r.native_id)).toEqual(['1764579600000']);
    expect(diagnostics).toEqual([{ where: empty, what: 'a task folder with neither api_conversation_history.json nor ui_messages.json: skipped' }]);
  });

  it('a record nested deeper than the canonical walks allow: a note without its body, reported', async () => {
    const storage = scratchStorage('ct-deep', EXT);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 1200; i += 1) deep = [deep];
    const api = writeTask(storage, '1700000000001', { api: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'text', text: 'x', nested: deep }] }] });
    const { events, diagnostics } = await captureAll(clineVscode, api);
    expect(diagnostics.map((d) => d.where)).toEqual([`${api}:2`]);
    expect(events.map(view)).toEqual(['session.start', 'message.user@api1 hi', 'meta@api2 cline-vscode.too-deep']);
  });
});

describe('hostile task folders', () => {
  const saved = process.env.SP_TASK_FILE_MAX_BYTES;
  afterEach(() => {
    if (saved === undefined) delete process.env.SP_TASK_FILE_MAX_BYTES;
    else process.env.SP_TASK_FILE_MAX_BYTES = saved;
  });

  it('a conversation file that is a symbolic link is not followed: what it points at never reaches the events', async () => {
    const storage = scratchStorage('ct-link-file', EXT);
    const api = clineNative(storage);
    const secret = join(mkdtempSync(join(tmpdir(), 'sp-outside-')), 'secret.json');
    writeFileSync(secret, JSON.stringify([{ role: 'user', content: 'OUTSIDE-SECRET-MARKER' }]));
    unlinkSync(api);
    symlinkSync(secret, api);
    const { events, diagnostics } = await captureAll(clineVscode, dirname(api));
    expect(JSON.stringify(events)).not.toContain('OUTSIDE-SECRET-MARKER');
    expect(diagnostics).toEqual([{ where: api, what: 'a symbolic link: not followed (a task file must be a plain file in its task folder)' }]);
    expect(events.map(view)).toContain('message.user@ui1 Fix the failing test in src/app.ts');
  });

  it('a task folder that is a symbolic link out of the storage is not listed', async () => {
    const storage = scratchStorage('ct-link-dir', EXT);
    clineNative(storage);
    const outside = scratchStorage('ct-outside', EXT);
    const foreign = uiOnly(outside, '1700000000002');
    symlinkSync(dirname(foreign), join(storage, 'tasks', '1700000000002'));
    const { refs, diagnostics } = await list({ home: storage });
    expect(refs.map((r) => r.native_id)).toEqual(['1764579600000']);
    expect(diagnostics).toEqual([{ where: join(storage, 'tasks', '1700000000002'), what: 'a symbolic link: not followed (a task folder must lie in the storage)' }]);
  });

  it('an id that is not a task id names no folder: find refuses it before looking; open refuses a folder so named', async () => {
    const storage = scratchStorage('ct-ids', EXT);
    clineNative(storage);
    for (const id of ['../1764579600000', '..', '1764579600000/../x', 'a\u0000b']) {
      await expect(clineVscode.find!(id, { home: storage }), id).rejects.toThrow(/is not a task id/);
    }
    const odd = join(storage, 'tasks', 'bad name!');
    mkdirSync(odd);
    writeFileSync(join(odd, 'ui_messages.json'), '[]');
    await expect(clineVscode.open(odd)).rejects.toBeInstanceOf(UserError);
    const { refs, diagnostics } = await list({ home: storage });
    expect(refs).toHaveLength(1);
    expect(diagnostics).toEqual([{ where: odd, what: 'not a task id: skipped' }]);
  });

  it('a file over the size limit is refused with a clear error, before it is read', async () => {
    const storage = scratchStorage('ct-huge', EXT);
    const api = clineNative(storage);
    process.env.SP_TASK_FILE_MAX_BYTES = '256';
    const ref = await clineVscode.open(api);
    const drain = async (): Promise<void> => {
      for await (const _ of clineVscode.capture(ref, {})) void _;
    };
    await expect(drain()).rejects.toThrow(/^is \d+ bytes, over the 256-byte limit for one task file \(SP_TASK_FILE_MAX_BYTES raises it\)$/);
  });

  it('the command line reports a bad task as one line and exit 2, never a stack trace', () => {
    const storage = scratchStorage('ct-cli', EXT);
    const folder = join(storage, 'tasks', '1700000000003');
    mkdirSync(folder, { recursive: true });
    const r = runBin('sp-capture', ['cline-vscode', '--path', folder]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^sp-capture: .*1700000000003: a task folder with neither api_conversation_history.json nor ui_messages.json \(as plain files\)\n$/);
  });
});

describe('every editor', () => {
  const saved = { xdg: process.env.XDG_CONFIG_HOME, home: process.env.SP_ROO_HOME };
  afterEach(() => {
    for (const [key, value] of [['XDG_CONFIG_HOME', saved.xdg], ['SP_ROO_HOME', saved.home]] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('without a home, lists the tasks of each editor\'s storage that exists, merged newest first', async () => {
    const base = mkdtempSync(join(tmpdir(), 'sp-editors-'));
    process.env.XDG_CONFIG_HOME = base;
    delete process.env.SP_ROO_HOME;
    const code = join(base, 'Code', 'User', 'globalStorage', 'rooveterinaryinc.roo-cline');
    const cursor = join(base, 'Cursor', 'User', 'globalStorage', 'rooveterinaryinc.roo-cline');
    const older = rooV2(code);
    const newer = uiOnly(cursor, 'a1b2c3d4-0000-4000-8000-000000000002');
    utimesSync(newer, 1_800_000_000, 1_800_000_000);
    const refs: SessionRef[] = [];
    for await (const ref of roo.discover({})) refs.push(ref);
    expect(refs.map((r) => [r.editor, r.path])).toEqual([
      ['Cursor', newer],
      ['Code', older],
    ]);
    expect(roo.defaultHome()).toBe(code);
    process.env.SP_ROO_HOME = cursor;
    const only: string[] = [];
    for await (const ref of roo.discover({})) only.push(ref.path);
    expect(only).toEqual([newer]);
  });

  it('with no storage anywhere, says where it looked and how to name one', async () => {
    process.env.XDG_CONFIG_HOME = mkdtempSync(join(tmpdir(), 'sp-no-editors-'));
    delete process.env.SP_ROO_HOME;
    await expect(async () => {
      for await (const _ of roo.discover({})) void _;
    }).rejects.toThrow(/^no Roo Code task storage found .*; set --home or SP_ROO_HOME$/);
  });
});
