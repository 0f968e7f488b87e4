// The Cline CLI writer: what it writes (the client's own shapes), never overwriting, and ids and
// paths from events treated as hostile data.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cline } from '../../adapters/cline/index.js';
import type { LossEntry } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { captureAll } from '../contract/testAdapter.js';
import { SessionBuilder, from } from '../support/canonical.js';
import { SUMMARY, readDocument } from './support.js';

const root = mkdtempSync(join(tmpdir(), 'sp-cline-write-'));
let n = 0;
const scratch = (): string => mkdtempSync(join(root, `${n++}-`));
afterAll(() => rmSync(root, { recursive: true, force: true }));
type Json = Record<string, any>;

describe('cline materialize', () => {
  it('writes the client shapes: wrapped user text, one result message per call, a manifest, private files', async () => {
    const home = scratch();
    const { events } = await captureAll(cline, SUMMARY);
    const losses: LossEntry[] = [];
    const result = await cline.materialize!(from(events), { home, cwd: home, onLoss: (l) => losses.push(l) });
    expect(result.session_id).toMatch(/^[0-9]{13}_[a-z0-9]{5}$/);
    expect(result.session_id).not.toBe('1796190077287_76d81');
    expect(result.resume).toContain(`cline --id ${result.session_id}`);
    const doc = readDocument(result.path);
    const source = readDocument(SUMMARY);
    expect(doc).toMatchObject({ version: 1, agent: 'lead', sessionId: result.session_id, system_prompt: source.system_prompt });
    const shape = (m: Json) => [m.role, m.content.map((b: Json) => b.type === 'text' ? `text:${b.text}` : b.type === 'tool_use' ? `tool_use:${b.id}:${b.name}` : `${b.type}:${b.tool_use_id}`)];
    expect(doc.messages.map(shape)).toEqual(source.messages.map(shape));
    const manifest = readDocument(result.path.replace(/\.messages\.json$/, '.json'));
    expect(manifest).toMatchObject({ session_id: result.session_id, cwd: home, provider: 'anthropic', model: 'claude-sonnet-4-5', status: 'completed', messages_path: result.path });
    expect(statSync(result.path).mode & 0o777).toBe(0o600);
    expect(losses.filter((l) => l.action !== 'carried')).toEqual([]);
    // --same-id keeps the id; a second write of it is refused and changes nothing.
    const same = await cline.materialize!(from(events), { home, cwd: home, sameId: true });
    expect(same.session_id).toBe('1796190077287_76d81');
    const before = statSync(same.path).mtimeMs;
    await expect(cline.materialize!(from(events), { home, cwd: home, sameId: true })).rejects.toBeInstanceOf(UserError);
    expect(statSync(same.path).mtimeMs).toBe(before);
  });

  it('a native id that would climb out of the home is refused with --same-id, and nothing is written', async () => {
    const home = scratch();
    for (const evil of ['../../escape_aaaaa', '1796190077287_76d81/../../x', '/tmp/abs', '1796190077287_7']) {
      const b = new SessionBuilder('cline', evil, { cwd: home });
      b.user('hello');
      b.assistant('hi', 'msg_1');
      await expect(cline.materialize!(from(b.events), { home, cwd: home, sameId: true })).rejects.toBeInstanceOf(UserError);
    }
    expect(existsSync(join(home, 'data'))).toBe(false);
    expect(readdirSync(root).some((name) => name.startsWith('escape'))).toBe(false);
  });

  it('a sessions folder that is a symlink out of the home is refused', async () => {
    const home = scratch();
    const elsewhere = scratch();
    mkdirSync(join(home, 'data'), { recursive: true });
    symlinkSync(elsewhere, join(home, 'data', 'sessions'));
    const b = new SessionBuilder('claude', 'c1', { cwd: home });
    b.user('hello');
    await expect(cline.materialize!(from(b.events), { home, cwd: home })).rejects.toThrow(/outside the home/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('from another agent: unsigned reasoning is dropped and reported, tool ids made valid, the mode wrapper added', async () => {
    const home = scratch();
    const b = new SessionBuilder('claude', 'sess_other', { cwd: home });
    b.user('Fix it.');
    b.thinking('Look first.');
    b.call('bad id!', 'Bash', { command: 'ls' }, 'msg_1');
    b.result('bad id!', 'a.txt');
    b.assistant('Done.', 'msg_2');
    const losses: LossEntry[] = [];
    const result = await cline.materialize!(from(b.events as SpEvent[]), { home, cwd: home, onLoss: (l) => losses.push(l) });
    const doc = readDocument(result.path);
    expect(doc.messages[0].content[0].text).toBe('<user_input mode="act">Fix it.</user_input>');
    const use = doc.messages[1].content.find((c: Json) => c.type === 'tool_use');
    expect(use.id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(doc.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: use.id, content: 'a.txt' });
    expect(losses.map((l) => l.code)).toEqual(expect.arrayContaining(['reasoning', 'tool-id']));
    expect(doc.system_prompt).toBeUndefined();
  });
});
