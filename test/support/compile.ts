// Helpers for the sp-compile tests: the recorded corpus captured once per test file (sp-capture on
// the fixtures), the compiler run in-process, and an independent token count (tiktoken directly).
// lib/ asks the adapter registry about agents (lib/adapter/registry.ts): loading it registers them.
import '../../adapters/index.js';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { compile, type CompileOptions } from '../../lib/compile/compile.js';
import type { TokenizerName } from '../../lib/compile/tokens.js';
import { CLAUDE_FACTOR } from '../../adapters/claude/index.js';
import type { SpEvent } from '../../lib/core/event.js';
import { inputsFrom } from '../../lib/core/ndjson.js';
import { root, runBin, tempDir } from './streams.js';

export interface CorpusSession {
  /** `claude/S2-debug` */
  name: string;
  agent: 'claude' | 'codex' | 'pi';
  scenario: string;
  /** The native session file. */
  path: string;
}

function sessionFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'subagents') out.push(...sessionFiles(path));
    } else if (name.endsWith('.jsonl') && !dir.includes('file-history')) out.push(path);
  }
  return out;
}

/** Every recorded session of the shared corpus (Claude, Codex, Pi; S1–S3, and Codex's paginated S1). */
export const CORPUS: CorpusSession[] = (['claude', 'codex', 'pi'] as const).flatMap((agent) => {
  const base = join(root, 'fixtures', agent, 'corpus');
  return readdirSync(base)
    .sort()
    .map((scenario) => {
      const files = sessionFiles(join(base, scenario));
      if (files.length !== 1) throw new Error(`${agent}/${scenario}: expected one session file, found ${files.length}`);
      return { name: `${agent}/${scenario}`, agent, scenario, path: files[0] };
    });
});

const captured = new Map<string, string>();
let dir: string | undefined;

/** The session captured by sp-capture into a file (once per test process). */
export function captureFile(session: CorpusSession): string {
  let file = captured.get(session.name);
  if (!file) {
    const r = runBin('sp-capture', [session.agent, '--path', session.path]);
    if (r.code !== 0) throw new Error(`sp-capture ${session.name}: ${r.stderr}`);
    dir ??= tempDir('sp-compile-corpus-');
    mkdirSync(dir, { recursive: true });
    file = join(dir, `${session.name.replace('/', '-')}.ndjson`);
    writeFileSync(file, r.stdout);
    captured.set(session.name, file);
  }
  return file;
}

export function parseLines(text: string): SpEvent[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as SpEvent);
}

class Collect extends Writable {
  chunks: Buffer[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.chunks.push(Buffer.from(chunk));
    cb();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** Runs the compiler in-process on a file; returns its output and the compiled event. */
export async function compileFile(file: string, options: Omit<CompileOptions, 'inputs' | 'out'>) {
  const out = new Collect();
  const result = await compile({ ...options, inputs: inputsFrom([file]), out });
  return { ...result, output: out.text() };
}

type Encoder = { encode_ordinary(text: string): Uint32Array; free(): void };
const encoders = new Map<string, Encoder>();

/** The budget's measure, computed here with tiktoken directly (not through the compiler's counter). */
export function measureTokens(tokenizer: TokenizerName, text: string): number {
  const encoding = tokenizer === 'o200k_base' ? 'o200k_base' : 'cl100k_base';
  let encoder = encoders.get(encoding);
  if (!encoder) {
    const tiktoken = createRequire(import.meta.url)('tiktoken') as { get_encoding(name: string): Encoder };
    encoder = tiktoken.get_encoding(encoding);
    encoders.set(encoding, encoder);
  }
  const n = encoder.encode_ordinary(text).length;
  return tokenizer === 'claude-estimate' ? Math.ceil(n * CLAUDE_FACTOR) : n;
}

/** All string values in an event, joined: where a provenance quote must be found. */
export function eventStrings(event: unknown): string {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(event);
  return out.join('\n');
}
