import { describe, expect, it } from 'vitest';
import { Readable, PassThrough } from 'node:stream';
import { readObjects, NdjsonWriter, inputsFrom, type BadLine, type Input } from '../lib/core/ndjson.js';
import { splitLines } from '../lib/core/lines.js';
import { UserError } from '../lib/cli/diagnostics.js';
import { writeLines, tempDir } from './support/streams.js';

const fromText = (text: string | Buffer, name = 'stdin', chunk = 7): Input => ({
  name,
  open: () => {
    const buf = Buffer.isBuffer(text) ? text : Buffer.from(text);
    const parts: Buffer[] = [];
    for (let i = 0; i < buf.length; i += chunk) parts.push(buf.subarray(i, i + chunk));
    return Readable.from(parts);
  },
});

async function collect(input: Input, options = {}) {
  const values: unknown[] = [];
  const bad: BadLine[] = [];
  for await (const { value } of readObjects([input], { onBadLine: (b) => bad.push(b), ...options })) values.push(value);
  return { values, bad };
}

describe('NDJSON reader', () => {
  it('handles CRLF, a BOM, blank lines and multi-byte characters split across chunks', async () => {
    const text = '\ufeff{"a":"中文"}\r\n\r\n   \n{"b":2}\r\n{"c":"é"}';
    const { values, bad } = await collect(fromText(text, 'stdin', 3));
    expect(values).toEqual([{ a: '中文' }, { b: 2 }, { c: 'é' }]);
    expect(bad).toEqual([]);
  });

  it('reads a 10 MB line', async () => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    const { values } = await collect(fromText(`{"a":1}\n{"big":"${big}"}\n{"z":1}\n`, 'stdin', 1 << 16));
    expect(values).toHaveLength(3);
    expect((values[1] as { big: string }).big.length).toBe(big.length);
  });

  it('names source:LINE and cuts the offending line to 200 characters; lenient mode goes on', async () => {
    const long = '{"broken": ' + 'y'.repeat(500);
    const { values, bad } = await collect(fromText(`{"a":1}\n${long}\n[1,2]\n{"b":2}\n`, 'events.ndjson'));
    expect(values).toEqual([{ a: 1 }, { b: 2 }]);
    expect(bad.map((b) => `${b.source}:${b.line.number}`)).toEqual(['events.ndjson:2', 'events.ndjson:3']);
    expect(bad[1].reason).toBe('not a JSON object');
  });

  it('strict mode stops at the first bad line with a usage error naming file:line', async () => {
    const input = fromText('{"a":1}\n{oops}\n{"b":2}\n', 'in.ndjson');
    const seen: unknown[] = [];
    let error: unknown;
    try {
      for await (const { value } of readObjects([input], { strict: true })) seen.push(value);
    } catch (err) {
      error = err;
    }
    expect(seen).toEqual([{ a: 1 }]);
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).where).toBe('in.ndjson:2');
    expect((error as UserError).message).toContain('{oops}');
    expect((error as UserError).exitCode).toBe(2);
  });

  it('marks an unterminated last line, so a torn write can be told from a complete one', async () => {
    const lines = [];
    for await (const line of splitLines(Readable.from([Buffer.from('{"a":1}\n{"b":')]))) lines.push(line);
    expect(lines.map((l) => [l.text, l.terminated, l.start, l.end])).toEqual([
      ['{"a":1}', true, 0, 8],
      ['{"b":', false, 8, 13],
    ]);
  });

  it('keeps byte offsets exact with a BOM, CRLF and multi-byte text', async () => {
    const buf = Buffer.from('\ufeffé\r\n中\n');
    const lines = [];
    for await (const line of splitLines(Readable.from([buf]))) lines.push(line);
    expect(lines.map((l) => [l.text, l.start, l.end])).toEqual([
      ['é', 0, 7],
      ['中', 7, 11],
    ]);
  });

  it('turns a missing file or a directory into a usage error', () => {
    expect(() => inputsFrom(['/no/such/file.ndjson'])).toThrow(UserError);
    expect(() => inputsFrom([tempDir()])).toThrow(/directory/);
    const path = writeLines(['{"a":1}']);
    expect(inputsFrom([path])[0].name).toBe(path);
    expect(inputsFrom([])[0].name).toBe('stdin');
  });
});

describe('NDJSON writer', () => {
  it('writes canonical lines with sorted keys and waits for drain', async () => {
    const out = new PassThrough({ highWaterMark: 16 });
    const chunks: string[] = [];
    out.on('data', (d) => chunks.push(String(d)));
    const writer = new NdjsonWriter(out, 8);
    await writer.write({ b: 1, a: { d: 2, c: 3 } });
    await writer.write({ z: '中' });
    await writer.end();
    expect(chunks.join('')).toBe('{"a":{"c":3,"d":2},"b":1}\n{"z":"中"}\n');
  });
});

describe('NDJSON pass-through', () => {
  it('keeps each line\'s bytes when asked, across chunk boundaries, line ending included', async () => {
    const text = '{"a":"中文"}\r\n{"b":1}\n{"c":2}';
    const lines: Array<{ text: string; bytes?: string }> = [];
    for await (const { line } of readObjects([fromText(text, 'stdin', 3)], { keepBytes: true })) lines.push({ text: line.text, bytes: line.bytes?.toString('utf8') });
    expect(lines).toEqual([
      { text: '{"a":"中文"}', bytes: '{"a":"中文"}\r\n' },
      { text: '{"b":1}', bytes: '{"b":1}\n' },
      { text: '{"c":2}', bytes: '{"c":2}' },
    ]);
    for await (const { line } of readObjects([fromText('{"a":1}\n')])) expect(line.bytes).toBeUndefined();
  });

  it('writes bytes and text lines in order, larger than a batch too', async () => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (d: Buffer) => chunks.push(d));
    const writer = new NdjsonWriter(out, 16);
    const long = 'x'.repeat(5000);
    await writer.writeBytes(Buffer.from('{"a":"é"}\n'));
    await writer.writeLine(`{"b":"${long}"}`);
    await writer.writeBytes(Buffer.from(`{"c":"${long}"}\n`));
    await writer.write({ d: '中' });
    await writer.end();
    expect(Buffer.concat(chunks).toString('utf8')).toBe(`{"a":"é"}\n{"b":"${long}"}\n{"c":"${long}"}\n{"d":"中"}\n`);
  });
});
