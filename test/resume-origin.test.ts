// Default path mapping for every agent: capture records the origin URL of the checkout a session
// ran in (session.start git_origin, credentials dropped), so `sp resume` on another machine finds
// that repository's checkout by its remote — here a Claude Code session recorded in a checkout at
// path A, resumed with the checkout at path B and no --map-cwd. And what must not happen: no origin
// for a cwd that does not exist here (the fixtures' captures stay as they were), none for a folder
// that is not a checkout.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORPUS, root } from './support/store.js';
import { runBin, tempDir } from './support/streams.js';
import { withoutCredentials } from '../lib/capture/git-origin.js';

const RECORDED = '/home/alice/acme-api';

function checkout(dir: string, origin: string): string {
  mkdirSync(dir, { recursive: true });
  const git = (...a: string[]) => expect(spawnSync('git', ['-C', dir, ...a]).status).toBe(0);
  git('init', '-q');
  git('remote', 'add', 'origin', origin);
  return realpathSync(dir);
}

const parse = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });

describe('the origin of the checkout, recorded at capture', () => {
  it('a Claude session recorded in a checkout at path A is resumed into the checkout at path B with no --map-cwd: every path mapped', () => {
    const base = realpathSync(tempDir('sp-resume-origin-'));
    // Machine A: Alice's checkout, its origin with a token in it (which must not be recorded).
    const pathA = checkout(join(base, 'a', 'acme-api'), 'https://alice:ghp_notarealtoken000000000000000000000000@github.com/acme/acme-api.git');
    const claudeA = join(base, 'claude-a');
    const transcript = join(claudeA, 'projects', pathA.replace(/[^A-Za-z0-9]/g, '-'), '9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl');
    mkdirSync(join(transcript, '..'), { recursive: true });
    writeFileSync(transcript, readFileSync(join(root, CORPUS.claudeDebug), 'utf8').replaceAll(RECORDED, pathA));
    const spHome = join(base, 'sp');
    const captured = runBin('sp-capture', ['claude', '--path', transcript]);
    expect(captured.code, captured.stderr).toBe(0);
    const start = parse(captured.stdout).find((e) => e.type === 'session.start')!;
    expect(start.payload.cwd).toBe(pathA);
    expect(start.payload.git_origin).toBe('https://github.com/acme/acme-api.git');
    expect(captured.stdout).not.toContain('ghp_notarealtoken');
    const ingested = runBin('sp-sync', ['ingest', '-'], { input: captured.stdout, env: { SP_HOME: spHome, SP_PROGRESS: '0' } });
    expect(ingested.code, ingested.stderr).toBe(0);

    // Machine B: path A is gone; the same repository is cloned elsewhere, its origin in SSH form.
    renameSync(join(base, 'a'), join(base, 'gone'));
    const work = join(base, 'b', 'work');
    checkout(join(work, 'other'), 'https://github.com/acme/other-repo.git');
    const pathB = checkout(join(work, 'acme-api'), 'git@github.com:acme/acme-api.git');
    const claudeB = join(base, 'claude-b');
    const r = runBin('sp-resume', ['9a1dc580', '--in', 'claude', '--home', claudeB, '--json'], { cwd: work, env: { SP_HOME: spHome, SP_PROGRESS: '0', CLAUDE_CONFIG_DIR: '' } });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { cwd: string; path_mapped: Record<string, { events: number }> };
    expect(result.cwd).toBe(pathB);
    expect(result.path_mapped['session.start'].events).toBe(1);
    expect(Object.values(result.path_mapped).reduce((n, c) => n + c.events, 0)).toBeGreaterThan(1);
    const written: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.jsonl') && written.push(join(d, e.name));
    };
    walk(join(claudeB, 'projects'));
    expect(written).toHaveLength(1);
    const text = readFileSync(written[0], 'utf8');
    expect(text).toContain(pathB);
    expect(text).not.toContain(pathA);
  });

  it('records nothing for a cwd that does not exist here or is not a checkout', () => {
    const fixture = runBin('sp-capture', ['claude', '--path', join(root, CORPUS.claudeDebug)]);
    expect(fixture.code, fixture.stderr).toBe(0);
    expect(parse(fixture.stdout).find((e) => e.type === 'session.start')!.payload.git_origin).toBeUndefined();

    const plain = realpathSync(tempDir('sp-origin-plain-'));
    const transcript = join(plain, 'session.jsonl');
    writeFileSync(transcript, readFileSync(join(root, CORPUS.claudeDebug), 'utf8').replaceAll(RECORDED, plain));
    const captured = runBin('sp-capture', ['claude', '--path', transcript]);
    expect(captured.code, captured.stderr).toBe(0);
    const start = parse(captured.stdout).find((e) => e.type === 'session.start')!;
    expect(start.payload.cwd).toBe(plain);
    expect(start.payload.git_origin).toBeUndefined();
  });

  it('drops credentials from remote URLs and refuses what is not one', () => {
    expect(withoutCredentials('https://user:pass@example.com/org/repo.git\n')).toBe('https://example.com/org/repo.git');
    expect(withoutCredentials('https://x-access-token:abc@github.com/org/repo')).toBe('https://github.com/org/repo');
    expect(withoutCredentials('ssh://git@github.com/org/repo.git')).toBe('ssh://github.com/org/repo.git');
    expect(withoutCredentials('git@github.com:org/repo.git')).toBe('git@github.com:org/repo.git');
    expect(withoutCredentials('/srv/git/repo.git')).toBe('/srv/git/repo.git');
    expect(withoutCredentials('https://example.com/a\u0007b')).toBeUndefined();
    expect(withoutCredentials('')).toBeUndefined();
    expect(withoutCredentials('https://' + 'a'.repeat(3000))).toBeUndefined();
  });
});
