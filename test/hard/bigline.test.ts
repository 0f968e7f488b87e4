// One line of 200 MB: a native record appended to each adapter's seed file, and a canonical event
// whose text is 200 MB, through every binary. Each run ends with exit 0 or a one-line exit 2 —
// not an out-of-memory abort. The files are generated streaming into a temp folder and deleted.
import { createWriteStream, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { Chainer } from '../../lib/core/chain.js';
import { canonicalSessionId, type SpEvent } from '../../lib/core/event.js';
import { expectWellBehaved, filesUnder, outcomeOf, record, removeTempDirs, runBin, tempDir } from './support/harness.js';
import { nativeSeeds } from './support/seeds.js';

const SIZE = Number(process.env.SP_HARD_BIG_MB ?? 200) * 1024 * 1024;
const seeds = await nativeSeeds();
afterAll(removeTempDirs);

/** Writes `head`, then `before`, SIZE bytes of text in 1 MiB pieces, `after`, without holding them in memory. */
async function writeBig(path: string, head: Buffer, before: string, after: string): Promise<void> {
  const out = createWriteStream(path);
  const piece = Buffer.from('All work and no play makes a long line. '.repeat(26215).slice(0, 1 << 20));
  const write = async (chunk: Buffer | string) => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
  await write(head);
  await write(before);
  for (let done = 0; done < SIZE; done += piece.length) await write(piece);
  await write(after);
  out.end();
  await once(out, 'finish');
}

test('a 200 MB line, through every adapter and binary', { timeout: 1_200_000 }, async () => {
  const dir = tempDir();
  const rows: string[] = [];
  const check = async (label: string, bin: string, args: string[]) => {
    const out = tempDir('sp-hard-out-');
    const run = await runBin(bin, args.map((a) => a.replace('$OUT', out)), { stdoutFile: '/dev/null', timeoutMs: 600_000 });
    record({ bin: label, case: '200 MB line', outcome: outcomeOf(run), code: run.code, ms: Math.round(run.ms), note: run.stderr.split('\n')[0] });
    rows.push(`${label}: exit ${run.code} in ${Math.round(run.ms)} ms ${run.stderr.split('\n')[0].slice(0, 120)}`);
    expectWellBehaved(bin, run, { codes: [0, 2] });
    if (run.code !== 0) expect(filesUnder(out), `${label} failed but left files`).toEqual([]);
    rmSync(out, { recursive: true, force: true });
  };

  // Native: the seed's records, then one unknown record of 200 MB (every format has a place for those).
  for (const seed of seeds.filter((s) => s.file?.kind === 'lines')) {
    const file = join(dir, seed.file!.path.split('/').pop()!);
    const head = readFileSync(seed.file!.path);
    await writeBig(file, head[head.length - 1] === 0x0a ? head : Buffer.concat([head, Buffer.from('\n')]), '{"type":"sp_hard_huge","timestamp":"2026-11-30T05:00:00.000Z","text":"', '"}\n');
    await check(`sp-capture ${seed.agent}`, 'sp-capture', [seed.agent, '--path', file]);
    rmSync(file);
  }

  // Canonical: a session whose second event is a 200 MB user message, chained, so that it verifies.
  const session = canonicalSessionId('claude', 'sp-hard-big');
  const chainer = new Chainer();
  const start: SpEvent = { session, seq: 0, ts: 1_790_000_000, agent: 'claude', type: 'session.start', actor: 'system', level: 0, payload: { native_id: 'sp-hard-big', cwd: '/tmp' } };
  // The checksum covers the text, so the line is chained with the text in place (held once here, in the test process).
  const piece = 'All work and no play makes a long line. ';
  const text = piece.repeat(Math.ceil(SIZE / piece.length)).slice(0, SIZE);
  const user: SpEvent = { session, seq: 1, ts: 1_790_000_001, agent: 'claude', type: 'message.user', actor: 'user', level: 0, payload: { content: [{ type: 'text', text }] } };
  const lines = [JSON.stringify(chainer.chain(start)), JSON.stringify(chainer.chain(user))];
  const reply: SpEvent = { session, seq: 2, ts: 1_790_000_002, agent: 'claude', type: 'message.assistant', actor: 'agent:claude', level: 0, payload: { content: [{ type: 'text', text: 'Noted.' }], model: 'claude-opus-4-8' } };
  lines.push(JSON.stringify(chainer.chain(reply)));
  const stream = join(dir, 'big.ndjson');
  const out = createWriteStream(stream);
  for (const line of lines) {
    if (!out.write(line + '\n')) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  lines.length = 0;

  await check('sp-verify', 'sp-verify', [stream]);
  await check('sp-redact', 'sp-redact', [stream, '--quiet']);
  await check('sp-compile', 'sp-compile', ['--for', 'codex', stream]);
  await check('sp-materialize claude', 'sp-materialize', ['claude', stream, '--home', '$OUT/home', '--cwd', '$OUT']);
  rmSync(stream);
  console.log(rows.join('\n'));
});
