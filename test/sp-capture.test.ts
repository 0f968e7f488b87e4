// sp-capture through the compiled binary (npm test builds first): selectors, --list, errors and
// exit codes, cursors across runs, --follow, and that nothing is ever written under the home.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { canonicalSessionId } from '../lib/core/event.js';
import { adapters } from '../adapters/index.js';
import { root, runBin } from './support/streams.js';

const F = join(root, 'fixtures/claude');
const CORPUS = join(F, 'corpus');
const IDS = {
  s1: 'e05d2652-6a94-447f-8b60-cded66e4199a',
  s2: '9a1dc580-54f5-46ea-bece-7461fb46da3a',
  s3: 'fedfe4e3-0d75-4e8a-ae44-125dd06bbf71',
};
const PROJECT = 'projects/-home-alice-acme-api';

type Json = Record<string, any>;
const lines = (text: string): Json[] => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Json);

/** Every file under `dir` with its size and mtime: a home must look the same after any capture. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const s = statSync(path);
        out[relative(dir, path)] = `${s.size}:${s.mtimeMs}`;
      }
    }
  };
  walk(dir);
  return out;
}

let work: string;
/** One home with all three corpus sessions, mtimes S1 < S2 < S3 (so S3 is the latest). */
let home: string;
let homeBefore: Record<string, string>;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-capture-cli-'));
  home = join(work, 'home');
  for (const scenario of ['S1-feature', 'S2-debug', 'S3-long']) cpSync(join(CORPUS, scenario, '.claude'), home, { recursive: true });
  const t = Date.parse('2026-11-30T06:00:00Z') / 1000;
  utimesSync(join(home, PROJECT, `${IDS.s1}.jsonl`), t, t);
  utimesSync(join(home, PROJECT, `${IDS.s2}.jsonl`), t + 60, t + 60);
  utimesSync(join(home, PROJECT, `${IDS.s3}.jsonl`), t + 120, t + 120);
  homeBefore = snapshot(home);
});

afterAll(() => {
  // Whatever ran, the agent's home was only read.
  expect(snapshot(home)).toEqual(homeBefore);
  rmSync(work, { recursive: true, force: true });
});

describe('sp-capture: usage', () => {
  it('has help with real examples', () => {
    const r = runBin('sp-capture', ['--help']);
    expect(r.code).toBe(0);
    for (const text of ['sp-capture claude --list', '--latest --cwd .', '--cursor', '--follow', '--raw', '--artifacts', 'CLAUDE_CONFIG_DIR']) {
      expect(r.stdout).toContain(text);
    }
  });

  it('names the known agents for an unknown one (exit 2, one line, no stack)', () => {
    const r = runBin('sp-capture', ['windsurf', '--latest']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`sp-capture: unknown agent "windsurf"; known agents: ${Object.keys(adapters).sort().join(', ')}; nor is sp-adapter-windsurf on PATH (docs/external-adapters.md)\n`);
    expect(Object.keys(adapters)).toContain('claude');
    expect(r.stdout).toBe('');
  });

  it('asks for a selector, and for only one', () => {
    let r = runBin('sp-capture', ['claude', '--home', home]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^sp-capture: say which sessions: --list, --session ID, --path FILE, --latest or --all/);
    r = runBin('sp-capture', ['claude', '--latest', '--all', '--home', home]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('choose one of --latest, --all');
    r = runBin('sp-capture', ['claude', '--list', '--cursor', join(work, 'c.json'), '--home', home]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--cursor has no effect with --list');
  });

  it('reports an unreadable home and a missing session in one line (exit 2)', () => {
    let r = runBin('sp-capture', ['claude', '--latest', '--home', join(work, 'nowhere')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`sp-capture: ${join(work, 'nowhere')}: cannot read the Claude home: ENOENT (set --home or CLAUDE_CONFIG_DIR)\n`);
    // A home without projects/ yet simply has no sessions.
    const fresh = mkdtempSync(join(work, 'fresh-home-'));
    r = runBin('sp-capture', ['claude', '--list', '--home', fresh]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    r = runBin('sp-capture', ['claude', '--latest', '--home', fresh]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`sp-capture: no Claude Code sessions under ${fresh}\n`);
    r = runBin('sp-capture', ['claude', '--session', 'deadbeef', '--home', home]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`sp-capture: no Claude session "deadbeef" under ${join(home, 'projects')} (sp-capture claude --list shows the sessions)\n`);
    r = runBin('sp-capture', ['claude', '--path', join(work, 'missing.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`sp-capture: ${join(work, 'missing.jsonl')}: cannot read: ENOENT\n`);
  });
});

describe('sp-capture: listing and selecting', () => {
  it('--list prints one line per session, newest first, with prompt, title, times and counts', () => {
    const r = runBin('sp-capture', ['claude', '--list', '--home', home]);
    expect(r.code).toBe(0);
    const list = lines(r.stdout);
    expect(list.map((s) => s.native_id)).toEqual([IDS.s3, IDS.s2, IDS.s1]);
    expect(list[2]).toMatchObject({
      agent: 'claude',
      path: join(home, PROJECT, `${IDS.s1}.jsonl`),
      cwd: '/home/alice/acme-api',
      first_prompt: 'Add a DELETE /todos/:id endpoint with a test.',
      title: 'Add DELETE endpoint for todos',
      first_ts: Date.parse('2026-11-30T05:14:39.576Z') / 1000,
      tool_calls: 18,
    });
    expect(list[2].last_ts).toBeGreaterThan(list[2].first_ts);
    expect(list[1].first_prompt).toBe('测试失败了，帮我看看 test/todos.test.js 为什么报错');
    expect(list[0].subagents).toBe(1);
  });

  it('--cwd keeps one project (by the client\'s folder name or the recorded cwd)', () => {
    expect(lines(runBin('sp-capture', ['claude', '--list', '--cwd', '/home/alice/acme-api', '--home', home]).stdout)).toHaveLength(3);
    const other = runBin('sp-capture', ['claude', '--list', '--cwd', '/home/alice/other', '--home', home]);
    expect(other.code).toBe(0);
    expect(other.stdout).toBe('');
    const none = runBin('sp-capture', ['claude', '--latest', '--cwd', '/home/alice/other', '--home', home]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no Claude Code sessions under');
  });

  it('--latest captures the newest session; CLAUDE_CONFIG_DIR names the home', () => {
    const r = runBin('sp-capture', ['claude', '--latest'], { env: { CLAUDE_CONFIG_DIR: home } });
    expect(r.code).toBe(0);
    const events = lines(r.stdout);
    expect(events[0]).toMatchObject({ type: 'session.start', seq: 0, payload: { native_id: IDS.s3 } });
    expect(new Set(events.map((e) => e.session))).toEqual(
      new Set([canonicalSessionId('claude', IDS.s3), canonicalSessionId('claude', `${IDS.s3}/agent-a4fb297860875671f`)]),
    );
    const verify = runBin('sp-verify', ['-'], { input: r.stdout });
    expect(verify.code, verify.stdout).toBe(0);
  });

  it('--session takes a unique prefix; --path takes a file anywhere', () => {
    const bySession = runBin('sp-capture', ['claude', '--session', IDS.s2.slice(0, 8), '--home', home]);
    expect(bySession.code).toBe(0);
    const byPath = runBin('sp-capture', ['claude', '--path', join(CORPUS, 'S2-debug/.claude', PROJECT, `${IDS.s2}.jsonl`)]);
    expect(byPath.code).toBe(0);
    const strip = (text: string) => lines(text).map(({ payload, checksum: _c, ...rest }) => ({ ...rest, payload: { ...payload, source_path: undefined } }));
    expect(strip(bySession.stdout)).toEqual(strip(byPath.stdout));
    expect(lines(byPath.stdout)).toHaveLength(46);
  });

  it('--all captures every session, oldest first, in one stream that verifies', () => {
    const r = runBin('sp-capture', ['claude', '--all', '--home', home, '--raw']);
    expect(r.code).toBe(0);
    const starts = lines(r.stdout).filter((e) => e.type === 'session.start').map((e) => e.payload.native_id);
    expect(starts).toEqual([IDS.s1, IDS.s2, IDS.s3, `${IDS.s3}/agent-a4fb297860875671f`]);
    const verify = runBin('sp-verify', ['-'], { input: r.stdout });
    expect(verify.code, verify.stdout).toBe(0);
    expect(verify.stdout).toContain('4 sessions');
  });

  it('--artifacts stores the image outside the home and references it', () => {
    const dir = join(work, 'artifacts');
    const r = runBin('sp-capture', ['claude', '--session', IDS.s2, '--home', home, '--artifacts', dir]);
    expect(r.code).toBe(0);
    const prompt = lines(r.stdout).find((e) => e.type === 'message.user')!;
    const ref: string = prompt.payload.content[1].artifact;
    expect(ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(existsSync(join(dir, ref.slice(7)))).toBe(true);
  });
});

describe('sp-capture: bad lines, cursors and follow', () => {
  let dir: string;
  let file: string;
  const original = readFileSync(join(CORPUS, 'S2-debug/.claude', PROJECT, `${IDS.s2}.jsonl`), 'utf8');
  const originalLines = original.split('\n').filter((l) => l !== '');

  beforeAll(() => {
    dir = mkdtempSync(join(work, 'grow-'));
    file = join(dir, `${IDS.s2}.jsonl`);
  });

  it('reports a bad line as file:line: what: excerpt and goes on (exit 0)', () => {
    const path = join(dir, 'bad', `${IDS.s2}.jsonl`);
    cpSync(join(CORPUS, 'S2-debug/.claude', PROJECT, `${IDS.s2}.jsonl`), path);
    appendFileSync(path, '{"type":"user","message":{"content":"half\n');
    appendFileSync(path, originalLines[originalLines.length - 1] + '\n');
    const r = runBin('sp-capture', ['claude', '--path', path]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^sp-capture: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:39: invalid JSON \\(.*\\): \\{"type":"user","message":\\{"content":"half\\n$`));
    const events = lines(r.stdout);
    expect(events.filter((e) => e.payload.key === 'unparseable')).toHaveLength(1);
    expect(events[events.length - 1].payload.key).toBe('claude.mode');
  });

  it('--cursor emits only what was appended, continues seq and chain, and stops at a rewrite (exit 2)', () => {
    const cursor = join(dir, 'cursor.json');
    writeFileSync(file, originalLines.slice(0, 20).join('\n') + '\n');
    const first = runBin('sp-capture', ['claude', '--path', file, '--cursor', cursor]);
    expect(first.code, first.stderr).toBe(0);
    const stored = JSON.parse(readFileSync(cursor, 'utf8'));
    expect(stored.version).toBe(1);
    expect(stored.cursors[IDS.s2].sources[file]).toMatchObject({ offset: statSync(file).size, line: 20 });

    const nothing = runBin('sp-capture', ['claude', '--path', file, '--cursor', cursor]);
    expect(nothing.code).toBe(0);
    expect(nothing.stdout).toBe('');

    // The rest, with its last line still being written: it waits for its newline.
    const rest = originalLines.slice(20);
    appendFileSync(file, rest.slice(0, -1).join('\n') + '\n' + rest[rest.length - 1].slice(0, 10));
    const second = runBin('sp-capture', ['claude', '--path', file, '--cursor', cursor]);
    expect(second.code).toBe(0);
    appendFileSync(file, rest[rest.length - 1].slice(10) + '\n');
    const third = runBin('sp-capture', ['claude', '--path', file, '--cursor', cursor]);
    expect(third.code).toBe(0);
    expect(lines(third.stdout).map((e) => e.origin.native_seq)).toEqual([38]);

    // Three runs make one stream: seq continues, the chain verifies, and it equals a one-shot capture.
    const joined = first.stdout + second.stdout + third.stdout;
    const verify = runBin('sp-verify', ['-'], { input: joined });
    expect(verify.code, verify.stdout).toBe(0);
    const whole = runBin('sp-capture', ['claude', '--path', file]);
    const view = (text: string) => lines(text).map((e) => (e.type === 'session.start' ? e.type : e));
    expect(view(joined).slice(1)).toEqual(view(whole.stdout).slice(1));

    // Rewriting what the cursor read is detected, not mis-read.
    truncateSync(file, statSync(file).size - 5);
    const truncated = runBin('sp-capture', ['claude', '--path', file, '--cursor', cursor]);
    expect(truncated.code).toBe(2);
    expect(truncated.stdout).toBe('');
    expect(truncated.stderr).toMatch(new RegExp(`^sp-capture: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: was truncated since the cursor was stored: it has \\d+ bytes, but the cursor already consumed \\d+; not continuing`));
    // Same length, but the last line read is not the same any more.
    writeFileSync(file, original.replace('"type":"mode","mode":"normal"', '"type":"mode","mode":"normax"'));
    const rewritten = runBin('sp-capture', ['claude', '--path', file, '--cursor', cursor]);
    expect(rewritten.code).toBe(2);
    expect(rewritten.stderr).toContain('was rewritten since the cursor was stored');
  });

  it('--follow emits appended lines within moments, waits for a partial line, and stops cleanly on SIGTERM', async () => {
    const followed = join(dir, 'follow', `${IDS.s2}.jsonl`);
    cpSync(join(CORPUS, 'S2-debug/.claude', PROJECT, `${IDS.s2}.jsonl`), followed);
    writeFileSync(followed, originalLines.slice(0, 10).join('\n') + '\n');
    const cursor = join(dir, 'follow-cursor.json');
    const child = spawn(process.execPath, [join(root, 'dist/bin/sp-capture.js'), 'claude', '--path', followed, '--follow', '--cursor', cursor], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const arrivals: Array<{ at: number; line: Json }> = [];
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      let at: number;
      while ((at = out.indexOf('\n')) !== -1) {
        arrivals.push({ at: Date.now(), line: JSON.parse(out.slice(0, at)) });
        out = out.slice(at + 1);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const waitFor = async (predicate: () => boolean, ms = 5000) => {
      const until = Date.now() + ms;
      while (!predicate()) {
        if (Date.now() > until) throw new Error(`timed out; stderr: ${err}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    try {
      await waitFor(() => arrivals.some((a) => a.line.origin?.native_seq === 10));
      const before = arrivals.length;
      // Half a line: nothing may come out of it.
      appendFileSync(followed, originalLines[10].slice(0, 40));
      await new Promise((r) => setTimeout(r, 300));
      expect(arrivals.length).toBe(before);
      const written = Date.now();
      appendFileSync(followed, originalLines[10].slice(40) + '\n');
      await waitFor(() => arrivals.some((a) => a.line.origin?.native_seq === 11));
      const latency = arrivals.find((a) => a.line.origin?.native_seq === 11)!.at - written;
      // 100 ms is the goal (fs.watch + a 50 ms poll); a busy CI machine gets some slack.
      expect(latency).toBeLessThan(1000);
      child.kill('SIGTERM');
      const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      expect(code).toBe(0);
      expect(err).toBe('');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    // The cursor was stored on the way out: the next run starts after line 11.
    const next = runBin('sp-capture', ['claude', '--path', followed, '--cursor', cursor]);
    expect(next.code).toBe(0);
    expect(next.stdout).toBe('');
    appendFileSync(followed, originalLines[11] + '\n');
    const after = lines(runBin('sp-capture', ['claude', '--path', followed, '--cursor', cursor]).stdout);
    expect(after.map((e) => e.origin.native_seq)).toEqual(after.map(() => 12));
    expect(after[0].seq).toBe(arrivals[arrivals.length - 1].line.seq + 1);
  });
});
