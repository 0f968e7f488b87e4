// Helpers for the benchmarks: run a command, measure wall time and peak RSS, print a table.
// Absolute times are noisy on shared machines, so every figure is shown next to a baseline
// measured in the same run, as a ratio.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;
export const outDir = join(root, 'bench', 'out');

/** Runs `cmd args` (stdin from a file when given, stdout discarded); resolves to {seconds, cpuSeconds, rssMb, code}. */
export function measure(cmd, args, { stdinFile, env } = {}) {
  return new Promise((resolve, reject) => {
    // GNU time reports the peak RSS of the child (KB) and its CPU time on stderr as the last line.
    const child = spawn('/usr/bin/time', ['-f', '__RSS__ %M %U %S', cmd, ...args], {
      stdio: [stdinFile ? 'pipe' : 'ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...env },
    });
    if (stdinFile) {
      import('node:fs').then(({ createReadStream }) => createReadStream(stdinFile).pipe(child.stdin));
    }
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const start = process.hrtime.bigint();
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const m = /__RSS__ (\d+) ([\d.]+) ([\d.]+)/.exec(stderr);
      resolve({
        seconds,
        cpuSeconds: m ? Number(m[2]) + Number(m[3]) : NaN,
        rssMb: m ? Number(m[1]) / 1024 : NaN,
        code,
        stderr: stderr.replace(/__RSS__ [\d. ]+\n?/, ''),
      });
    });
  });
}

/** The best of `runs` measurements (least noise from other load). */
export async function best(runs, fn) {
  let top;
  for (let i = 0; i < runs; i++) {
    const r = await fn();
    if (!top || r.seconds < top.seconds) top = { ...r, rssMb: Math.max(r.rssMb, top?.rssMb ?? 0) };
  }
  return top;
}

/** Makes a synthetic chained stream of about `mb` megabytes (cached in bench/out). */
export async function syntheticFile(mb) {
  mkdirSync(outDir, { recursive: true });
  const path = join(outDir, `synthetic-${mb}mb.ndjson`);
  if (!existsSync(path)) {
    const { createWriteStream } = await import('node:fs');
    await new Promise((resolve, reject) => {
      const out = createWriteStream(path);
      const gen = spawn(process.execPath, [join(root, 'bench', 'generate.mjs'), '--mb', String(mb)], { stdio: ['ignore', 'pipe', 'inherit'] });
      gen.stdout.pipe(out);
      gen.on('error', reject);
      out.on('finish', resolve);
    });
  }
  return path;
}

export function lineCount(path) {
  return new Promise((resolve) => {
    const wc = spawn('wc', ['-l', path]);
    let out = '';
    wc.stdout.on('data', (d) => (out += d));
    wc.on('close', () => resolve(Number(out.trim().split(/\s+/)[0])));
  });
}

export const sizeMb = (path) => statSync(path).size / (1024 * 1024);

export function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => r.map((c, i) => String(c).padEnd(widths[i])).join('  ')).join('\n');
}

/**
 * Writes a generated working session (adapters/claude/synthetic.ts workSessionEvents), chained, as NDJSON at
 * `path`: `events` events, or (given `bytes`) events until the file holds at least that many bytes.
 */
export async function writeWorkSession(path, { events, bytes, seed }) {
  const { workSessionEvents } = await import('../dist/adapters/claude/synthetic.js');
  const { Chainer } = await import('../dist/lib/core/chain.js');
  const stream = createWriteStream(path);
  const chainer = new Chainer();
  let buffer = '';
  let written = 0;
  for (const event of workSessionEvents({ events: bytes === undefined ? events : Infinity, seed })) {
    const line = JSON.stringify(chainer.chain(event)) + '\n';
    buffer += line;
    written += Buffer.byteLength(line);
    if (bytes !== undefined && written >= bytes) break;
    if (buffer.length > 1 << 20) {
      if (!stream.write(buffer)) await once(stream, 'drain');
      buffer = '';
    }
  }
  stream.end(buffer);
  await once(stream, 'finish');
}
