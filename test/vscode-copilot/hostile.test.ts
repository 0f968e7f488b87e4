// Hostile and broken input: ids that try to leave the home, links out of the storage, oversized and
// truncated files, log entries that reach for the prototype or outside the session.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { vscodeCopilot } from '../../adapters/vscode-copilot/index.js';
import { MAX_BYTES_ENV } from '../../adapters/vscode-copilot/read.js';
import type { SessionRef } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { captureAll } from '../contract/testAdapter.js';
import { AGENT_ID, agentLog, agentRequest, askFlat, logLines, scratchHome, workspace } from './build.js';

type P = Record<string, unknown>;

async function listed(home: string): Promise<{ refs: SessionRef[]; diagnostics: string[] }> {
  const refs: SessionRef[] = [];
  const diagnostics: string[] = [];
  for await (const ref of vscodeCopilot.discover({ home, onDiagnostic: (where, what) => diagnostics.push(`${where}: ${what}`) })) refs.push(ref);
  return { refs, diagnostics };
}

afterEach(() => {
  delete process.env[MAX_BYTES_ENV];
});

describe('vscode-copilot hostile input', () => {
  it('refuses ids that are not ids before looking anywhere', async () => {
    const home = scratchHome();
    agentLog(home);
    for (const id of ['../../etc/passwd', '..', 'a/b', 'x.json', '']) {
      await expect(vscodeCopilot.find!(id, { home })).rejects.toBeInstanceOf(UserError);
    }
  });

  it('does not follow links out of the storage: session files, chatSessions folders, workspace folders', async () => {
    const home = scratchHome();
    agentLog(home);
    const outside = scratchHome();
    const foreign = askFlat(outside);
    const chats = workspace(home, 'aaaa0000bbbb1111', 'file:///home/dev/linked');
    symlinkSync(foreign, join(chats, '11111111-2222-4333-8444-555555555555.json'));
    symlinkSync(join(outside, 'workspaceStorage', '11aa22bb33cc44dd55ee66ff77889900'), join(home, 'workspaceStorage', 'cccc2222dddd3333'));
    mkdirSync(join(home, 'workspaceStorage', 'eeee4444'));
    symlinkSync(join(outside, 'workspaceStorage', '11aa22bb33cc44dd55ee66ff77889900', 'chatSessions'), join(home, 'workspaceStorage', 'eeee4444', 'chatSessions'));
    const { refs, diagnostics } = await listed(home);
    expect(refs.map((r) => r.native_id)).toEqual([AGENT_ID]);
    expect(diagnostics).toHaveLength(3);
    for (const d of diagnostics) expect(d).toContain('symbolic link');
    await expect(vscodeCopilot.open(join(chats, '11111111-2222-4333-8444-555555555555.json'))).rejects.toThrow(/symbolic link/);
  });

  it('refuses a file over the size limit with a clear error before reading it', async () => {
    const home = scratchHome();
    const path = agentLog(home);
    process.env[MAX_BYTES_ENV] = '100';
    const error = await captureAll(vscodeCopilot, path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect(String((error as Error).message)).toMatch(/over the 100-byte limit/);
  });

  it('reports a truncated flat file at its last line and keeps it as meta', async () => {
    const home = scratchHome();
    const path = askFlat(home);
    const text = JSON.stringify({ version: 3, sessionId: 'x', requests: [{ message: 'hi' }] }, null, 2);
    writeFileSync(path, text.slice(0, text.length - 20));
    const { events, diagnostics } = await captureAll(vscodeCopilot, path);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'meta']);
    expect((events[1].payload as P).key).toBe('vscode-copilot.unparseable');
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0].where).toMatch(new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+$`));
  });

  it('keeps log entries that reach outside the session as meta, applies none of them, and replays the rest', async () => {
    const home = scratchHome();
    const chats = workspace(home, 'ffff5555', 'file:///home/dev/project');
    const path = join(chats, `${AGENT_ID}.jsonl`);
    writeFileSync(
      path,
      logLines([
        { kind: 1, k: ['customTitle'], v: 'before the start' },
        { kind: 0, v: { version: 3, sessionId: AGENT_ID, requests: [] } },
        { kind: 1, k: ['__proto__', 'polluted'], v: true },
        { kind: 1, k: ['constructor', 'prototype', 'polluted'], v: true },
        { kind: 2, k: ['requests'], v: [agentRequest()] },
        { kind: 1, k: ['requests', 5, 'response'], v: [] },
        { kind: 2, k: ['requests'], i: 99 },
        { kind: 1, k: ['requests', 0, 'response'], v: [{ value: 'kept' }] },
        { kind: 7, k: ['later'], v: 1 },
        { kind: 1, k: ['__proto__'], v: { polluted: true } },
      ]),
    );
    const { events, diagnostics } = await captureAll(vscodeCopilot, path);
    expect(diagnostics.map((d) => d.where)).toEqual([1, 3, 4, 6, 7, 10].map((n) => `${path}:${n}`));
    expect(({} as P).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    const keys = events.filter((e) => e.type === 'meta').map((e) => (e.payload as P).key);
    expect(keys).toEqual(['vscode-copilot.bad-entry', 'vscode-copilot.bad-entry', 'vscode-copilot.bad-entry', 'vscode-copilot.bad-entry', 'vscode-copilot.bad-entry', 'vscode-copilot.log-entry', 'vscode-copilot.bad-entry']);
    expect((events[0].payload as P).extra).toBeUndefined();
    const answer = events.find((e) => e.type === 'message.assistant');
    expect((answer?.payload as P).content).toEqual([{ type: 'text', text: 'kept' }]);
  });

  it('gives no cwd for a remote workspace and never turns its URI into a path', async () => {
    const home = scratchHome();
    const chats = workspace(home, 'abcd1234', 'vscode-remote://ssh-remote+box/home/dev/project');
    writeFileSync(join(chats, `${AGENT_ID}.json`), JSON.stringify({ version: 3, sessionId: AGENT_ID, requests: [] }));
    const { refs } = await listed(home);
    expect(refs[0].cwd).toBeUndefined();
    expect(refs[0].workspace).toBe('vscode-remote://ssh-remote+box/home/dev/project');
  });

  it('reports a missing or foreign home as a user error', async () => {
    const home = scratchHome();
    await expect(listed(join(home, 'nothing'))).rejects.toBeInstanceOf(UserError);
    await expect(listed(home)).rejects.toThrow(/not an editor's User folder/);
  });
});
