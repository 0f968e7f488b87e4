// Canonical input streams for the benchmarks, cached in bench/out/:
//   synthetic-<mb>mb.ndjson          generated chained stream (prose, code, CJK; 200 B–20 KB payloads)
//   synthetic-<mb>mb-secrets.ndjson  the same with a fake secret in every 20th event, re-chained
//   work-<n>.ndjson                  a chained working session of n events shaped like the corpus
import { closeSync, createReadStream, createWriteStream, existsSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { join } from 'node:path';
import { outDir } from './lib.mjs';

export { syntheticFile } from './lib.mjs';

/** The synthetic stream with a fake secret appended to every 20th event's text, re-chained. */
export async function withSecrets(source) {
  const path = source.replace(/\.ndjson$/, '-secrets.ndjson');
  if (existsSync(path)) return path;
  const { Chainer } = await import('../dist/lib/core/chain.js');
  const { canonicalize } = await import('../dist/lib/core/jcs.js');
  const chainer = new Chainer();
  const out = createWriteStream(`${path}.tmp`);
  const token = (n) => 'ghp_' + (n.toString(36) + 'Zq9Xw2Lk7Pv4Mn8Bc3Df6Gh1Jt5Ry0').repeat(3).slice(0, 36);
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(source), crlfDelay: Infinity })) {
    if (!line) continue;
    const e = JSON.parse(line);
    if (++n % 20 === 0) {
      const p = e.payload;
      const add = `\nexport GITHUB_TOKEN=${token(n)}\nDB_PASSWORD=Tr0ub4dor&${n}`;
      if (typeof p.content === 'string') p.content += add;
      else if (Array.isArray(p.content) && p.content[0]?.type === 'text') p.content[0].text += add;
      else if (typeof p.text === 'string') p.text += add;
      else if (p.input?.command) p.input.command += add;
    }
    if (!out.write(canonicalize(chainer.chain(e)) + '\n')) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  renameSync(`${path}.tmp`, path);
  return path;
}

/** A chained working session of `events` events. */
export async function workFile(events) {
  mkdirSync(outDir, { recursive: true });
  const path = join(outDir, `work-${events}.ndjson`);
  if (existsSync(path)) return path;
  const { workSessionEvents } = await import('../dist/adapters/claude/synthetic.js');
  const { Chainer } = await import('../dist/lib/core/chain.js');
  const { canonicalize } = await import('../dist/lib/core/jcs.js');
  const chainer = new Chainer();
  const fd = openSync(`${path}.tmp`, 'w');
  let buffer = '';
  for (const event of workSessionEvents({ events })) {
    buffer += canonicalize(chainer.chain(event)) + '\n';
    if (buffer.length > 1 << 20) {
      writeSync(fd, buffer);
      buffer = '';
    }
  }
  writeSync(fd, buffer);
  closeSync(fd);
  renameSync(`${path}.tmp`, path);
  return path;
}
