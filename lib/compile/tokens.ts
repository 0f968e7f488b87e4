// Token counting for budgets. OpenAI targets are measured with their real encodings (encoding.ts:
// o200k_base for GPT-5/4o-era models, cl100k_base on request). A model family whose vendor publishes
// no local tokenizer is counted with an estimate its adapter's compile profile declares
// (tokenizers.ts): the count in a base encoding times a factor, rounded up, with a margin above the
// family's real counts so that a handoff sized by it fits the window.
//
// The encoder is not loaded at import: `--help` never pays its start (o200k_base ~0.3–0.8 s cold);
// sp-compile starts loading it while it reads the input, and counts only what is near the line.
// Special tokens such as <|endoftext|> count as plain text and never make the encoder throw.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { UserError } from '../cli/diagnostics.js';
import { loadEncoding, type EncodingName } from './encoding.js';
import { tokenizerOf, type Tokenizer } from './tokenizers.js';

/** A tokenizer's name (a base encoding or a registered estimate). */
export type TokenizerName = string;

/** A tokenizer given by name (resolved through the registry) or as declared. */
function resolve(tokenizer: TokenizerName | Tokenizer): Tokenizer {
  if (typeof tokenizer !== 'string') return tokenizer;
  const found = tokenizerOf(tokenizer);
  if (!found) throw new UserError(`unknown tokenizer ${JSON.stringify(tokenizer.slice(0, 40))}`, 'tokenizer');
  return found;
}

export interface TokenCounter {
  readonly name: TokenizerName;
  /** The count that budgets are measured with. */
  count(text: string): number;
  /** A cheap guess of `count` from the characters alone (no tokenizer). */
  estimate(text: string): number;
  /** Whether `count(text)` is over `limit`, counting from the start only until it is (cost ∝ limit, not text). */
  exceeds(text: string, limit: number): boolean;
  /** How many exact counts ran (for tests and the bench). */
  readonly counted: number;
}

/**
 * Characters per token, by class, fitted on the corpus (English prose and code ≈ 3.5–4.5
 * characters per token; CJK ≈ 1 token per character in cl100k_base, fewer in o200k_base).
 */
const CHARS: Record<EncodingName, { asciiPerToken: number; tokensPerOther: number }> = {
  o200k_base: { asciiPerToken: 3.9, tokensPerOther: 0.75 },
  cl100k_base: { asciiPerToken: 3.7, tokensPerOther: 1.05 },
};

export function estimateTokens(tokenizer: TokenizerName | Tokenizer, text: string): number {
  const { base, factor } = resolve(tokenizer);
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) ascii++;
    else {
      other++;
      if (c >= 0xd800 && c < 0xdc00) i++; // one astral character, two code units
    }
  }
  const k = CHARS[base];
  // factor / chars (not factor × 1/chars): the same doubles as the table of fixed rates this replaced.
  return Math.ceil(ascii * (factor / k.asciiPerToken) + other * (factor * k.tokensPerOther));
}

// Encoders are loaded once per process and shared (loading o200k_base costs more than most
// compiles). Where it can, the load runs in a worker thread (token-worker.ts) started by prepare()
// before the input is read, so that it overlaps with reading; counts are then answered by the worker
// while this thread waits on a shared flag, which keeps count() synchronous. Without the worker (its
// file missing, as under a TypeScript test runner, or it failing) counting runs in this thread.
interface Counting {
  /** The count, or undefined when this way of counting has failed (then another is used). */
  count(text: string): number | undefined;
  free(): void;
}

class ThreadCounting implements Counting {
  private encoder?: (text: string) => number;
  constructor(private readonly encoding: EncodingName) {}
  count(text: string): number {
    this.encoder ??= loadEncoding(this.encoding);
    return this.encoder(text);
  }
  free(): void {
    this.encoder = undefined;
  }
}

const WORKER = new URL('./token-worker.js', import.meta.url);

// V8 grows the young generation to 32 MB on a 100k-event compile, every page of it resident, while
// most of what a compile allocates dies young: kept at its start size, the peak is ~30 MB lower at
// the same CPU. A process-wide setting, so only for a process that compiles once (sp-compile); a
// worker's start resets it (measured), so the token worker sets it again once it runs.
const SMALL_YOUNG_GENERATION = '--semi-space-growth-factor=1';
let smallYoungGeneration = false;

/** Keeps V8's young generation at its start size in this process from now on (see above). */
export function keepYoungGenerationSmall(): void {
  smallYoungGeneration = true;
  setFlagsFromString(SMALL_YOUNG_GENERATION);
}

class WorkerCounting implements Counting {
  private readonly state = new Int32Array(new SharedArrayBuffer(12));
  private readonly worker: Worker;
  private failed = false;
  constructor(encoding: EncodingName) {
    // A young generation of 2 MB: left to grow (to 16 MB here) it added ~20 MB to the peak, for no CPU.
    this.worker = new Worker(WORKER, {
      workerData: { encoding, shared: this.state.buffer, flags: smallYoungGeneration ? SMALL_YOUNG_GENERATION : undefined },
      resourceLimits: { maxYoungGenerationSizeMb: 2 },
    });
    this.worker.unref();
    this.worker.on('error', () => {
      this.failed = true;
    });
  }
  count(text: string): number | undefined {
    if (this.failed) return undefined;
    Atomics.store(this.state, 0, 0);
    this.worker.postMessage(text);
    // Long enough for megabytes of text; a worker that died answers never, and then we count here.
    if (Atomics.wait(this.state, 0, 0, 120_000) === 'timed-out' || this.state[2] !== 1) {
      this.failed = true;
      return undefined;
    }
    return this.state[1];
  }
  free(): void {
    void this.worker.terminate();
  }
}

const countings = new Map<string, { primary: Counting; fallback: ThreadCounting }>();

function countingFor(encoding: EncodingName): { primary: Counting; fallback: ThreadCounting } {
  let c = countings.get(encoding);
  if (!c) {
    const fallback = new ThreadCounting(encoding);
    let primary: Counting = fallback;
    if (process.env.SP_TOKENIZER_THREAD !== '1' && existsSync(fileURLToPath(WORKER))) {
      try {
        primary = new WorkerCounting(encoding);
      } catch {
        primary = fallback;
      }
    }
    c = { primary, fallback };
    countings.set(encoding, c);
  }
  return c;
}

/** Starts loading a tokenizer now (in a worker thread where possible), before it is first needed. */
export function prepareTokenizer(tokenizer: TokenizerName | Tokenizer): void {
  countingFor(resolve(tokenizer).base);
}

/** Frees the tokenizers loaded so far (the next count loads them again). */
export function releaseTokenizers(): void {
  for (const c of countings.values()) {
    c.primary.free();
    c.fallback.free();
  }
  countings.clear();
}

/**
 * Texts longer than this are counted piece by piece: an encoder's memory grows with the text it is
 * given (tiktoken's ~70×: a 10 MB paste cost 700 MB at once). Pieces end before a space or newline, where
 * the encoders' pre-tokenizer splits anyway, so the sum equals the whole count bar a rare token.
 */
export const COUNT_PIECE = 1 << 20;

/** Where the piece of `text` starting at `start` ends: before whitespace in its second half, else at the limit. */
function pieceEnd(text: string, start: number, size = COUNT_PIECE): number {
  const limit = start + size;
  if (limit >= text.length) return text.length;
  for (let i = limit; i > start + size / 2; i--) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a) return i;
  }
  const c = text.charCodeAt(limit);
  return c >= 0xdc00 && c < 0xe000 ? limit + 1 : limit; // never between the halves of a surrogate pair
}

export function createCounter(tokenizer: TokenizerName | Tokenizer): TokenCounter {
  let counted = 0;
  const resolved = resolve(tokenizer);
  const { name, base: encoding, factor } = resolved;
  const one = (text: string): number => {
    const c = countingFor(encoding);
    return c.primary.count(text) ?? c.fallback.count(text);
  };
  /** The count of `text`, piece by piece; stops early (with what it has) once `stop` is passed. */
  const pieces = (text: string, size: number, stop = Infinity): number => {
    counted++;
    if (text.length <= size) return text === '' ? 0 : one(text);
    let n = 0;
    for (let start = 0; start < text.length && n <= stop; ) {
      const end = pieceEnd(text, start, size);
      n += one(text.slice(start, end));
      start = end;
    }
    return n;
  };
  return {
    name,
    count: (text) => Math.ceil(pieces(text, COUNT_PIECE) * factor),
    // Pieces of a quarter MiB (≥ 50k tokens): a typical budget is passed within the first one or two.
    exceeds: (text, limit) => Math.ceil(pieces(text, COUNT_PIECE / 4, limit / factor) * factor) > limit,
    estimate: (text) => estimateTokens(resolved, text),
    get counted() {
      return counted;
    },
  };
}
