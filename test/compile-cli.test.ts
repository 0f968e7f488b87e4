// sp-compile as a command: output modes (events, --render, --out files and instructions-file
// sections), determinism, special tokens, and the errors a user can make (each one line naming
// file:line or the option, exit status 2, no stack trace).
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalize } from '../lib/core/jcs.js';
import { Chainer } from '../lib/core/chain.js';
import type { SpEvent } from '../lib/core/event.js';
import { AGENTS_MD_BEGIN, AGENTS_MD_END } from '../lib/compile/render.js';
import { SessionBuilder } from './support/canonical.js';
import { CORPUS, captureFile, measureTokens, parseLines } from './support/compile.js';
import { FAKE } from './support/fakeSecrets.js';
import { root, runBin, tempDir, writeLines } from './support/streams.js';

const chained = (events: SpEvent[]) => {
  const chainer = new Chainer();
  return events.map((e) => canonicalize(chainer.chain(e)));
};

/** A small session: a request with a constraint, a failing then passing command, an edit, a reply. */
function small(session = 'sess_cli', extra: (b: SessionBuilder) => void = () => {}): SpEvent[] {
  const b = new SessionBuilder('claude', session);
  b.user('Fix the failing date test. Never touch the deploy/ folder.');
  const c1 = b.call('toolu_1', 'Bash', { command: 'npm test' });
  b.result('toolu_1', 'Exit code 1\n✖ parses dates\n  TypeError: Cannot read properties of undefined (reading "getTime")', { is_error: true });
  b.add('command.run', { cmd: 'npm test', exit_code: 1, stdout_head: '✖ parses dates\n  TypeError: Cannot read properties of undefined (reading "getTime")' }, { derived_from: c1.seq });
  const c2 = b.call('toolu_2', 'Edit', { file_path: '/tmp/sp-test-project/src/date.js' });
  b.result('toolu_2', 'ok');
  b.add('file.edit', { path: '/tmp/sp-test-project/src/date.js', kind: 'modify', added: 2, removed: 1, diff: '@@ -1 +1,2 @@\n-old\n+new\n+more\n' }, { derived_from: c2.seq });
  const c3 = b.call('toolu_3', 'Bash', { command: 'npm test' });
  b.result('toolu_3', 'ℹ tests 4\nℹ pass 4\nℹ fail 0');
  b.add('command.run', { cmd: 'npm test', exit_code: 0, stdout_head: 'ℹ tests 4\nℹ pass 4\nℹ fail 0' }, { derived_from: c3.seq });
  b.assistant('Fixed: `parseDate` returned undefined for ISO strings. Decision: keep moment out of it because the project has no dependencies.');
  extra(b);
  return b.events;
}

/**
 * sp-compile with `args` and a FIFO as its input, `data` written into the FIFO by this process (and
 * the FIFO closed): what a `<(…)` process substitution or a `mkfifo` pipeline gives it. Killed after 30 s
 * (a compile that opens the FIFO a second time waits for a writer that never comes).
 */
async function throughFifo(args: string[], data: Buffer): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const fifo = join(tempDir('sp-compile-fifo-'), 'events.fifo');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const child = spawn(process.execPath, [join(root, 'dist', 'bin', 'sp-compile.js'), ...args, fifo], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => {
    child.on('close', (c) => resolve(c));
    const writer = createWriteStream(fifo);
    writer.on('error', () => undefined); // the reader went away: the exit code tells
    writer.end(data);
  });
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** A diagnostic, not a crash: it starts with the program's name and shows no stack frames. */
function noStack(stderr: string, oneLine = true): void {
  expect(stderr).not.toMatch(/^\s+at .*:\d+:\d+\)?$/m);
  expect(stderr).not.toContain('internal error');
  if (oneLine) expect(stderr.trim().split('\n').length).toBe(1);
  expect(stderr.startsWith('sp-compile: ')).toBe(true);
}

describe('sp-compile output', () => {
  it('writes the input events unchanged, then one chained context.compiled event that sp-verify accepts', () => {
    const file = writeLines(chained(small()));
    const r = runBin('sp-compile', ['--for', 'codex', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith(readFileSync(file, 'utf8'))).toBe(true);
    const last = parseLines(r.stdout).pop()!;
    expect(last).toMatchObject({ type: 'context.compiled', session: 'sess_cli', seq: 12, actor: 'system', level: 1 });
    expect(last.payload).toMatchObject({ target: 'codex', format: 'message', tokenizer: 'o200k_base', budget: 24_000 });
    expect(last.payload.tokens).toBe(measureTokens('o200k_base', last.payload.text as string));
    const out = join(tempDir(), 'out.ndjson');
    writeFileSync(out, r.stdout);
    expect(runBin('sp-verify', [out]).code).toBe(0);
  });

  it('reads stdin like a file, and the same input gives byte-identical output', () => {
    const file = writeLines(chained(small()));
    const a = runBin('sp-compile', ['--for', 'claude', file]);
    const b = runBin('sp-compile', ['--for', 'claude'], { input: readFileSync(file) });
    const c = runBin('sp-compile', ['--for', 'claude', '-'], { input: readFileSync(file) });
    expect(a.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(c.stdout).toBe(a.stdout);
    for (const session of CORPUS.filter((s) => s.scenario === 'S3-long')) {
      const first = runBin('sp-compile', ['--for', 'pi', '--budget', '2500', captureFile(session)]);
      const again = runBin('sp-compile', ['--for', 'pi', '--budget', '2500', captureFile(session)]);
      expect(first.code).toBe(0);
      expect(again.stdout).toBe(first.stdout);
    }
  });

  it('reads several files as one stream, and --tokenizer overrides the target\'s', () => {
    const lines = chained(small());
    const whole = writeLines(lines);
    const first = writeLines(lines.slice(0, 5), { name: 'a.ndjson' });
    const second = writeLines(lines.slice(5), { name: 'b.ndjson' });
    const one = runBin('sp-compile', ['--for', 'claude', whole]);
    const two = runBin('sp-compile', ['--for', 'claude', first, second]);
    expect(two.code, two.stderr).toBe(0);
    expect(two.stdout).toBe(one.stdout);
    const o200k = runBin('sp-compile', ['--for', 'claude', '--tokenizer', 'o200k_base', whole]);
    const payload = parseLines(o200k.stdout).pop()!.payload;
    expect(payload.tokenizer).toBe('o200k_base');
    expect(payload.tokens).toBe(measureTokens('o200k_base', payload.text as string));
  });

  it('redacts file inputs as it reads them: copied as they are until a line changes or drops, then spooled; equal to stdin', () => {
    const lines = chained(small());
    // A secret in a chained line: that line and the session after it are rewritten (re-chained).
    const withSecret = chained(small('sess_cli', (b) => b.user(`deploy with GITHUB_TOKEN=${FAKE.githubPat}`)));
    const bom = '\ufeff';
    const cases: Array<{ name: string; files: string[]; stream: string }> = [
      // Clean: the files' own bytes (BOM left out, a missing last newline added).
      { name: 'clean', files: [bom + lines.slice(0, 6).join('\r\n'), lines.slice(6).join('\n') + '\n'], stream: bom + lines.slice(0, 6).join('\r\n') + '\n' + lines.slice(6).join('\n') + '\n' },
      // A blank line in the first file is left out of the copy.
      { name: 'blank', files: [bom + lines.slice(0, 4).join('\n') + '\n\n' + lines.slice(4, 8).join('\n'), lines.slice(8).join('\n') + '\n'], stream: bom + lines.slice(0, 4).join('\n') + '\n\n' + lines.slice(4, 8).join('\n') + '\n' + lines.slice(8).join('\n') + '\n' },
      // The secret in the second file: the first is copied whole, the second up to the secret.
      { name: 'secret', files: [bom + withSecret.slice(0, 5).join('\n'), withSecret.slice(5).join('\n') + '\n'], stream: bom + withSecret.slice(0, 5).join('\n') + '\n' + withSecret.slice(5).join('\n') + '\n' },
    ];
    for (const c of cases) {
      const dir = tempDir();
      const paths = c.files.map((text, i) => {
        const path = join(dir, `${i}.ndjson`);
        writeFileSync(path, text);
        return path;
      });
      const files = runBin('sp-compile', ['--for', 'codex', ...paths]);
      const stdin = runBin('sp-compile', ['--for', 'codex'], { input: c.stream });
      expect(files.code, `${c.name}: ${files.stderr}`).toBe(0);
      expect(files.stdout, c.name).toBe(stdin.stdout);
      expect(files.stdout).not.toContain(FAKE.githubPat);
      const out = join(dir, 'out.ndjson');
      writeFileSync(out, files.stdout);
      expect(runBin('sp-verify', [out]).code, c.name).toBe(0);
    }
    // The secret's line and the rest of its session are no longer the input's; what precedes is.
    const secret = runBin('sp-compile', ['--for', 'codex', writeLines(withSecret)]).stdout.split('\n');
    const at = withSecret.findIndex((l) => l.includes(FAKE.githubPat));
    expect(secret.slice(0, at)).toEqual(withSecret.slice(0, at));
    expect(secret[at]).not.toBe(withSecret[at]);
  });

  it('reads a FIFO (a named pipe) once, as it reads stdin: the same output as the file, a secret redacted, --expand too', async () => {
    const withSecret = chained(small('sess_cli', (b) => b.user(`deploy with GITHUB_TOKEN=${FAKE.githubPat}`)));
    for (const [name, lines, args] of [
      ['clean', chained(small()), ['--for', 'codex']],
      ['secret', withSecret, ['--for', 'codex']],
    ] as const) {
      const file = writeLines([...lines]);
      const expected = runBin('sp-compile', [...args, file]);
      expect(expected.code, expected.stderr).toBe(0);
      const piped = await throughFifo([...args], readFileSync(file));
      expect(piped.code, `${name}: ${piped.stderr}`).toBe(0);
      expect(piped.stdout, name).toBe(expected.stdout);
    }
    // --expand reads its input twice (find the handoff, then the events): a FIFO is read once.
    const handoff = writeLines([runBin('sp-compile', ['--for', 'codex', writeLines(chained(small()))]).stdout.trimEnd()]);
    const expected = runBin('sp-compile', ['--expand', '2-4', handoff]);
    expect(expected.code, expected.stderr).toBe(0);
    const piped = await throughFifo(['--expand', '2-4'], readFileSync(handoff));
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toBe(expected.stdout);
  }, 120_000);

  it('spools stdin in a private temp folder that an interrupt removes', async () => {
    const tmp = tempDir('sp-compile-tmp-');
    const child = spawn(process.execPath, [join(root, 'dist', 'bin', 'sp-compile.js'), '--for', 'codex'], { env: { ...process.env, TMPDIR: tmp }, stdio: ['pipe', 'ignore', 'ignore'] });
    const closed = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
    child.stdin.write(chained(small()).join('\n') + '\n'); // stdin stays open: the compile waits for more
    let spool: string[] = [];
    for (let i = 0; i < 200 && spool.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      spool = readdirSync(tmp).filter((f) => f.startsWith('sp-compile-'));
    }
    expect(spool).toHaveLength(1);
    child.kill('SIGTERM');
    expect(await closed).toBe('SIGTERM');
    expect(readdirSync(tmp)).toEqual([]);
  }, 30_000);

  it('--render prints only the markdown', () => {
    const file = writeLines(chained(small()));
    const r = runBin('sp-compile', ['--for', 'codex', '--render', file]);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('# Handoff: ')).toBe(true);
    expect(r.stdout).toContain('- Last failing command [seq 4]: `npm test` → exit 1');
    expect(r.stdout).toContain('TypeError: Cannot read properties of undefined (reading "getTime")');
    expect(r.stdout).toContain('Never touch the deploy/ folder.');
    expect(r.stdout).toContain('keep moment out of it because the project has no dependencies.');
    expect(r.stdout).toContain('`src/date.js` — modified, 1 edit, +2 −1');
    expect(r.stdout).not.toContain('"type"');
  });

  it('chains an input that carries no checksums (and says so)', () => {
    const file = writeLines(small().map((e) => canonicalize(e)));
    const r = runBin('sp-compile', ['--for', 'codex', file]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('chained afresh');
    const out = join(tempDir(), 'out.ndjson');
    writeFileSync(out, r.stdout);
    expect(runBin('sp-verify', [out]).code).toBe(0);
  });

  it('compiles the one session a stream is about; its subagent sessions come along; several sessions need --session', () => {
    const file = writeLines([...chained(small('sess_a')), ...chained(small('sess_b'))]);
    const r = runBin('sp-compile', ['--for', 'codex', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the stream holds 2 sessions: sess_a');
    expect(r.stderr).toContain('pick one with --session');
    noStack(r.stderr);
    const b = runBin('sp-compile', ['--for', 'codex', '--session', 'sess_b', file]);
    expect(b.code).toBe(0);
    const last = parseLines(b.stdout).pop()!;
    expect(last.session).toBe('sess_b');
    const out = join(tempDir(), 'out.ndjson');
    writeFileSync(out, b.stdout);
    expect(runBin('sp-verify', [out]).code).toBe(0);
  });

  it('never crashes on special tokens (<|endoftext|> and friends) in any part of a session', () => {
    const specials = '<|endoftext|> <|im_start|>system <|im_end|> <|fim_prefix|><|fim_middle|><|fim_suffix|> <|endofprompt|> <|startoftext|>';
    const events = small('sess_special', (b) => {
      b.user(`Why does the tokenizer choke on ${specials}? Never strip ${specials} from prompts.`);
      const c = b.call('toolu_9', 'Bash', { command: `echo '${specials}'` });
      b.result('toolu_9', specials, { is_error: true });
      b.add('command.run', { cmd: `echo '${specials}'`, exit_code: 1, stdout_head: `Error: ${specials}` }, { derived_from: c.seq });
      b.assistant(`Decision: escape ${specials} before encoding because encode() throws on them.`);
    });
    const file = writeLines(chained(events));
    for (const target of ['codex', 'claude', 'markdown'] as const) {
      const r = runBin('sp-compile', ['--for', target, '--budget', '3000', file]);
      expect(r.code, r.stderr).toBe(0);
      const last = parseLines(r.stdout).pop()!;
      const text = last.payload.text as string;
      expect(text).toContain('<|endoftext|>');
      expect(text).toContain('<|fim_prefix|>');
      expect(last.payload.tokens).toBeLessThanOrEqual(3000);
      expect(last.payload.tokens).toBe(measureTokens(target === 'codex' ? 'o200k_base' : 'claude-estimate', text));
    }
  });
});

describe('sp-compile --out', () => {
  it('writes STATE.md, TASKS.md, DECISIONS.md and HANDOFF.md, and never overwrites without --force', () => {
    const file = writeLines(chained(small()));
    const dir = tempDir('sp-compile-out-');
    const r = runBin('sp-compile', ['--for', 'markdown', '--format', 'files', '--out', dir, '--render', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['DECISIONS.md', 'HANDOFF.md', 'STATE.md', 'TASKS.md']);
    expect(readFileSync(join(dir, 'HANDOFF.md'), 'utf8')).toContain('Relayed context');
    expect(readFileSync(join(dir, 'STATE.md'), 'utf8')).toContain('`src/date.js`');
    expect(readFileSync(join(dir, 'DECISIONS.md'), 'utf8')).toContain('keep moment out of it');
    expect(readFileSync(join(dir, 'TASKS.md'), 'utf8')).toContain('## Open plan steps and todos');

    writeFileSync(join(dir, 'STATE.md'), 'mine\n');
    const again = runBin('sp-compile', ['--for', 'markdown', '--format', 'files', '--out', dir, file]);
    expect(again.code).toBe(2);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('exist already; not overwriting');
    noStack(again.stderr);
    expect(readFileSync(join(dir, 'STATE.md'), 'utf8')).toBe('mine\n');
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);

    const forced = runBin('sp-compile', ['--for', 'markdown', '--format', 'files', '--out', dir, '--force', file]);
    expect(forced.code).toBe(0);
    expect(readFileSync(join(dir, 'STATE.md'), 'utf8')).toContain('`src/date.js`');
    expect(parseLines(forced.stdout).pop()!.payload.files).toHaveLength(4);
  });

  it('puts a section into AGENTS.md / CLAUDE.md and with --force replaces only that section', () => {
    const file = writeLines(chained(small()));
    const dir = tempDir('sp-compile-agents-');
    expect(runBin('sp-compile', ['--for', 'claude', '--format', 'agents-md', '--out', dir, '--render', file]).code).toBe(0);
    const first = readFileSync(join(dir, 'CLAUDE.md'), 'utf8');
    expect(first.startsWith(AGENTS_MD_BEGIN)).toBe(true);
    expect(first.trimEnd().endsWith(AGENTS_MD_END)).toBe(true);

    writeFileSync(join(dir, 'AGENTS.md'), '# Project rules\n\nUse tabs.\n');
    const refused = runBin('sp-compile', ['--for', 'codex', '--format', 'agents-md', '--out', dir, file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('AGENTS.md: exists already');
    for (let i = 0; i < 2; i++) {
      expect(runBin('sp-compile', ['--for', 'codex', '--format', 'agents-md', '--out', dir, '--force', '--render', file]).code).toBe(0);
    }
    const merged = readFileSync(join(dir, 'AGENTS.md'), 'utf8');
    expect(merged.startsWith('# Project rules\n\nUse tabs.\n\n<!-- sp-compile:begin')).toBe(true);
    expect(merged.split('<!-- sp-compile:begin').length).toBe(2);
    expect(merged).toContain('### Goal');
  });
});

describe('sp-compile errors', () => {
  const file = () => writeLines(chained(small()));

  it('a line that is not JSON: file:line, exit 2, nothing on stdout', () => {
    const lines = chained(small());
    lines.splice(2, 0, '{"session": "sess_cli", "seq": 2,');
    const path = writeLines(lines);
    const r = runBin('sp-compile', ['--for', 'codex', path]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${path}:3: invalid JSON`);
    noStack(r.stderr);
  });

  it('a JSON line that is not an event: file:line, exit 2', () => {
    const lines = chained(small());
    lines.push('{"session":"sess_cli","type":"meta","payload":{}}');
    const path = writeLines(lines);
    const r = runBin('sp-compile', ['--for', 'codex', path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}:13: not a canonical event: no seq`);
    noStack(r.stderr);
  });

  it('the P0 items over the budget: exit 2, what they need, by how much, which items; nothing written', () => {
    const events = small('sess_big', (b) => b.user(`Here is the whole log, please read it all:\n${'ERROR something failed at step 1234 of the migration\n'.repeat(900)}`));
    const path = writeLines(chained(events));
    const r = runBin('sp-compile', ['--for', 'codex', '--budget', '2000', path]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    // Six times over: refused on the estimate, without tokenizing the log.
    expect(r.stderr).toMatch(/^sp-compile: budget: the must-keep \(P0\) items need ~[\d,]+ tokens \(estimated\) but the budget is 2,000 \(~[\d,]+ over\)\. By kind: goal ~[\d,]+, /);
    expect(r.stderr).toContain('Largest: goal [seq 12]');
    noStack(r.stderr);
    // With room enough it compiles, verbatim.
    const ok = runBin('sp-compile', ['--for', 'codex', '--budget', '30000', '--render', path]);
    expect(ok.code).toBe(0);
    expect(ok.stdout.split('ERROR something failed at step 1234 of the migration').length).toBe(901);
  });

  it.each([
    [['--budget', '2000'], 'say which agent continues the work: --for'],
    [['--for', 'emacs'], '--for must be one of '],
    [['--for', 'emacs'], 'markdown, not "emacs"'],
    [['--for', 'codex', '--budget', 'lots'], '--budget: must be a positive whole number of tokens'],
    [['--for', 'codex', '--budget', '0'], '--budget: must be a positive whole number of tokens'],
    [['--for', 'codex', '--budget', '100', '--window', '1000'], '--budget and --window cannot be combined'],
    [['--for', 'codex', '--window', '1000', '--reserve', '1000'], '--reserve: the reserve (1000) leaves nothing of the window (1000)'],
    [['--for', 'codex', '--out', '/tmp'], '--out: --out writes --format files or agents-md'],
    [['--for', 'codex', '--force'], '--force: --force only applies with --out'],
    [['--for', 'codex', '--session', 'sess_nope'], '--session: no session "sess_nope" in the stream'],
  ])('%j → exit 2: %s', (args, message) => {
    const r = runBin('sp-compile', [...args, file()]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    noStack(r.stderr, true); // one line, yargs' own messages included
  });

  it('a missing file, a directory, an empty stream', () => {
    const missing = runBin('sp-compile', ['--for', 'codex', '/nonexistent/events.ndjson']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('sp-compile: /nonexistent/events.ndjson: cannot read: ENOENT\n');
    const dir = runBin('sp-compile', ['--for', 'codex', tempDir()]);
    expect(dir.code).toBe(2);
    expect(dir.stderr).toContain('is a directory');
    const empty = runBin('sp-compile', ['--for', 'codex'], { input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe('sp-compile: input: no events to compile\n');
  });

  it('--window/--reserve set the budget and are recorded', () => {
    const r = runBin('sp-compile', ['--for', 'pi', '--window', '9000', '--reserve', '3000', file()]);
    expect(r.code).toBe(0);
    expect(parseLines(r.stdout).pop()!.payload).toMatchObject({ budget: 6000, window: 9000, reserve: 3000, tokenizer: 'claude-estimate' });
  });
});
