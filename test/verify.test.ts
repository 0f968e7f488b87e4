import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { Verifier, type VerifyReport } from '../lib/core/verify.js';
import { readObjects } from '../lib/core/ndjson.js';
import { createValidator } from '../lib/core/schema.js';
import { Chainer } from '../lib/core/chain.js';
import { canonicalize } from '../lib/core/jcs.js';
import { chainedLines, runBin, writeLines } from './support/streams.js';

async function verifyText(text: string, options: { allowFragment?: boolean; schema?: boolean } = {}): Promise<VerifyReport> {
  const verifier = new Verifier({ allowFragment: options.allowFragment, validator: options.schema === false ? undefined : await createValidator() });
  const input = { name: 'test.ndjson', open: () => Readable.from([Buffer.from(text)]) };
  for await (const { value, line, source } of readObjects([input], { onBadLine: (b) => verifier.badLine(b.source, b.line, b.reason) })) {
    verifier.push(source, line, value);
  }
  return verifier.finish();
}

const join = (lines: string[]) => lines.join('\n') + '\n';

/** Re-serializes line i with a change to its parsed event, keeping its (now stale) checksum. */
function edit(lines: string[], i: number, change: (e: Record<string, any>) => void): string[] {
  const copy = [...lines];
  const e = JSON.parse(copy[i]);
  change(e);
  copy[i] = canonicalize(e);
  return copy;
}

describe('Verifier on generated streams', () => {
  const lines = chainedLines(300, { seed: 7 });

  it('passes an intact stream and reports its head', async () => {
    const report = await verifyText(join(lines));
    expect(report.ok).toBe(true);
    expect(report.events).toBe(300);
    expect(report.sessions[0]).toMatchObject({ ok: true, events: 300, first_seq: 0, last_seq: 299, head: JSON.parse(lines[299]).checksum });
  });

  it('passes interleaved sessions, each with its own chain', async () => {
    const report = await verifyText(join(chainedLines(300, { sessions: 3, seed: 2 })));
    expect(report.ok).toBe(true);
    expect(report.sessions.map((s) => s.events)).toEqual([100, 100, 100]);
  });

  it('finds a changed byte in a payload: modified, at that line and seq', async () => {
    const i = 120;
    const changed = [...lines];
    changed[i] = changed[i].replace(/"ts":(\d)/, (_m, d) => `"ts":${(Number(d) + 1) % 10}`);
    expect(changed[i]).not.toBe(lines[i]);
    const report = await verifyText(join(changed));
    expect(report.ok).toBe(false);
    expect(report.sessions[0].damage).toMatchObject({ kind: 'modified', where: `test.ndjson:${i + 1}`, seq: i });
    expect(report.sessions[0].damage_count).toBe(1);
  });

  it('finds a changed payload field even when the line stays valid JSON', async () => {
    const report = await verifyText(join(edit(lines, 42, (e) => (e.payload.extra = 'x'))));
    expect(report.sessions[0].damage).toMatchObject({ kind: 'modified', seq: 42, where: 'test.ndjson:43' });
  });

  it('finds a deleted line', async () => {
    const report = await verifyText(join(lines.filter((_, i) => i !== 77)));
    expect(report.sessions[0].damage).toMatchObject({ kind: 'deleted', seq: 78, where: 'test.ndjson:78' });
    expect(report.sessions[0].damage!.message).toContain('seq 77 is missing');
  });

  it('finds several deleted lines, and deleted head lines', async () => {
    const middle = await verifyText(join([...lines.slice(0, 10), ...lines.slice(15)]));
    expect(middle.sessions[0].damage).toMatchObject({ kind: 'deleted', seq: 15 });
    expect(middle.sessions[0].damage!.message).toContain('seqs 10–14');
    const head = await verifyText(join(lines.slice(3)));
    expect(head.sessions[0].damage).toMatchObject({ kind: 'deleted', seq: 3 });
  });

  it('finds an inserted duplicate of an earlier line', async () => {
    const inserted = [...lines.slice(0, 50), lines[20], ...lines.slice(50)];
    const report = await verifyText(join(inserted));
    expect(report.sessions[0].damage).toMatchObject({ kind: 'inserted', where: 'test.ndjson:51', seq: 20 });
  });

  it('finds an inserted forged line that takes the next seq', async () => {
    const forged = JSON.parse(lines[50]);
    forged.payload = { key: 'forged' };
    forged.type = 'meta';
    const inserted = [...lines.slice(0, 50), canonicalize(forged), ...lines.slice(50)];
    const report = await verifyText(join(inserted));
    expect(report.sessions[0].damage).toMatchObject({ kind: 'inserted', where: 'test.ndjson:51', seq: 50 });
    expect(report.sessions[0].damage_count).toBe(1);
  });

  it('finds an inserted forged line with a seq from the future', async () => {
    const forged = JSON.parse(lines[50]);
    forged.seq = 900;
    const inserted = [...lines.slice(0, 50), canonicalize(forged), ...lines.slice(50)];
    const report = await verifyText(join(inserted));
    expect(report.sessions[0].damage).toMatchObject({ kind: 'inserted', where: 'test.ndjson:51', seq: 900 });
  });

  it('finds two swapped lines: reordered, and nothing else', async () => {
    const swapped = [...lines];
    [swapped[30], swapped[31]] = [swapped[31], swapped[30]];
    const report = await verifyText(join(swapped));
    expect(report.sessions[0].damage).toMatchObject({ kind: 'reordered', where: 'test.ndjson:31', seq: 31 });
    expect(report.sessions[0].damage_count).toBe(1);
  });

  it('finds a truncated last line and names the session it belongs to', async () => {
    const text = join(lines);
    const cut = text.slice(0, text.length - Math.floor(lines[299].length / 2));
    const report = await verifyText(cut);
    expect(report.ok).toBe(false);
    expect(report.sessions[0].damage).toMatchObject({ kind: 'truncated', where: 'test.ndjson:300' });
  });

  it('finds a re-hashed modification at the first line that no longer links', async () => {
    const chainer = new Chainer();
    const events = lines.map((l) => JSON.parse(l));
    events[60].payload = { ...events[60].payload, injected: true };
    // The forger re-chains the edited line but not its successors.
    const rehashed = events.map((e, i) => (i <= 60 ? chainer.chain(e) : e)).map((e) => canonicalize(e));
    const report = await verifyText(join(rehashed));
    expect(report.sessions[0].damage).toMatchObject({ kind: 'modified', seq: 61 });
    expect(report.sessions[0].damage!.message).toContain('seq 60 was changed and re-hashed');
  });

  it('reports schema damage and lines without a checksum', async () => {
    const bad = edit(lines, 5, (e) => delete e.payload.content);
    const report = await verifyText(join(bad.slice(0, 20)));
    expect(report.sessions[0].damage?.kind).toMatch(/schema|modified/);
    const unchained = lines.slice(0, 3).map((l) => {
      const { checksum: _c, ...rest } = JSON.parse(l);
      return canonicalize(rest);
    });
    const r2 = await verifyText(join(unchained));
    expect(r2.sessions[0].damage?.kind).toBe('unchained');
  });

  it('accepts a fragment only when asked', async () => {
    const fragment = join(lines.slice(100, 150));
    expect((await verifyText(fragment)).ok).toBe(false);
    const report = await verifyText(fragment, { allowFragment: true });
    expect(report.ok).toBe(true);
    expect(report.sessions[0]).toMatchObject({ first_seq: 100, last_seq: 149 });
  });

  it('keeps other sessions clean when one is damaged', async () => {
    const mixed = chainedLines(90, { sessions: 3, seed: 4 });
    const broken = mixed.filter((_, i) => i !== 40); // a line of session 40 % 3 = 1
    const report = await verifyText(join(broken));
    expect(report.sessions.map((s) => s.ok)).toEqual([true, false, true]);
  });
});

describe('sp-verify (the binary)', () => {
  const lines = chainedLines(40, { seed: 3 });

  it('exits 0 on a clean file and on stdin', () => {
    const path = writeLines(lines);
    const r = runBin('sp-verify', [path]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('1 session, 40 events: verified');
    expect(runBin('sp-verify', [], { input: lines.join('\n') + '\n' }).code).toBe(0);
    expect(runBin('sp-verify', ['-'], { input: lines.join('\n') + '\n' }).code).toBe(0);
  });

  it('exits 1 on tampering and names the line, seq and kind', () => {
    const path = writeLines(lines.filter((_, i) => i !== 7));
    const r = runBin('sp-verify', [path]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`deleted at ${path}:8 seq 8`);
  });

  it('says so when the stream is empty (e.g. nothing new since a cursor)', () => {
    const r = runBin('sp-verify', [], { input: '' });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('0 events: nothing to verify');
  });

  it('prints one JSON report with --json', () => {
    const r = runBin('sp-verify', ['--json', writeLines(lines)]);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ ok: true, events: 40, lines: 40 });
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('exits 2 on unreadable input and usage errors, with one line and no stack trace', () => {
    const missing = runBin('sp-verify', ['/no/such/file']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('sp-verify: /no/such/file: cannot read: ENOENT\n');
    const usage = runBin('sp-verify', ['--bogus-flag']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^sp-verify: unknown option --bogus-flag/);
    expect(usage.stderr).not.toMatch(/\n\s+at /);
  });

  it('reports a malformed line as file:line with the excerpt, and exits 1', () => {
    const path = writeLines([lines[0], '{"this is": not json', ...lines.slice(1)]);
    const r = runBin('sp-verify', [path]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${path}:2: malformed: invalid JSON`);
    expect(r.stdout).toContain('{"this is": not json');
  });

  it('has --help with examples and --version', () => {
    const help = runBin('sp-verify', ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('sp-capture claude --latest | sp-verify');
    const version = runBin('sp-verify', ['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
