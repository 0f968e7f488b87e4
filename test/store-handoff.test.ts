// sp-materialize records a handoff when its source session is in the store: a `handoff` event, a
// signed receipt that sp-verify accepts, and the owner moved to the receiving agent.
import { describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS, capture, parseLines, sp, tempDir } from './support/store.js';

vi.setConfig({ testTimeout: 180_000 });

describe('sp-materialize and the store', () => {
  it('records the handoff of a stored session, and nothing for a dry run or an unstored one', () => {
    const home = tempDir();
    const events = capture('claude', CORPUS.claudeDebug);
    const id = parseLines(events)[0].session as string;
    expect(sp('sp-sync', ['ingest', '-q'], { home, input: events }).status).toBe(0);
    const codexHome = tempDir('sp-codex-');

    const dry = sp('sp-materialize', ['codex', '--home', codexHome, '--dry-run'], { home, input: events });
    expect(dry.status, dry.stderr).toBe(0);
    expect(parseLines(sp('sp-sync', ['log', id], { home }).stdout).pop()!.type).not.toBe('handoff');

    // Without --handoff the write is a copy: no event, no receipt, the owner stays.
    const copy = sp('sp-materialize', ['codex', '--home', tempDir('sp-codex-')], { home, input: events });
    expect(copy.status, copy.stderr).toBe(0);
    expect(copy.stderr).toMatch(/handoff: none: this is a copy/);
    expect(JSON.parse(copy.stdout.split('\n')[0]).handoff).toBe(false);
    expect(parseLines(sp('sp-sync', ['log', id], { home }).stdout).pop()!.type).not.toBe('handoff');
    expect(JSON.parse(readFileSync(join(home, 'store/sessions', id, 'manifest.json'), 'utf8')).current_owner).toMatchObject({ agent: 'claude' });
    expect(sp('sp-materialize', ['codex', '--home', tempDir('sp-codex-'), '--expect', 'x'], { home, input: events }).status).toBe(2);

    const r = sp('sp-materialize', ['codex', '--home', codexHome, '--handoff', '--expect', 'fix the failing todo test'], { home, input: events });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.split('\n')[0]).handoff).toBe(true);
    const target = JSON.parse(r.stdout.split('\n')[0]).session_id as string;
    const receiptPath = /handoff: recorded in the store: (\S+)/.exec(r.stderr)?.[1];
    expect(receiptPath, r.stderr).toBeTruthy();
    const last = parseLines(sp('sp-sync', ['log', id], { home }).stdout).pop()!;
    expect(last).toMatchObject({ type: 'handoff', payload: { from_agent: 'claude', to_agent: 'codex', target_session: target, expect: 'fix the failing todo test' } });
    expect(JSON.parse(readFileSync(receiptPath!, 'utf8'))).toMatchObject({ expect: 'fix the failing todo test', event_key: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const manifest = JSON.parse(readFileSync(join(home, 'store/sessions', id, 'manifest.json'), 'utf8'));
    expect(manifest.current_owner).toMatchObject({ agent: 'codex' });
    expect(sp('sp-verify', [receiptPath!, '--store', join(home, 'store')], { home }).status).toBe(0);
    expect(sp('sp-verify', ['--store', join(home, 'store')], { home }).status).toBe(0);

    // A session that is not stored: the write goes ahead, no store is created.
    const other = tempDir();
    const plain = sp('sp-materialize', ['codex', '--home', tempDir('sp-codex-'), '--handoff'], { home: other, input: events });
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stderr).not.toMatch(/handoff: recorded/);
  });
});
