// An optional model-written summary (P2) for `sp-compile --summarizer`: the session's dialogue,
// redacted, goes to a model (an OpenAI-compatible, Anthropic or Ollama endpoint, or a local
// command), and its answer becomes one P2 item, cut to its share of the budget like any item. The
// prompt and the answer are recorded in the context.compiled event so the handoff stays auditable.
// Any failure (refused, timed out, malformed, empty) leaves the extractive summary in charge.
import { spawn } from 'node:child_process';
import { isIP } from 'node:net';
import type { Msg } from './extract.js';
import type { Item } from './items.js';
import { formatSeqs } from './text.js';
import type { TokenCounter } from './tokens.js';

export const PROVIDERS = ['openai', 'anthropic', 'ollama'] as const;
export type Provider = (typeof PROVIDERS)[number] | 'command';

export interface SummarizerConfig {
  provider: Provider;
  /** The base URL (http/https) of an API provider; the command line of `command`. */
  endpoint: string;
  model?: string;
  key?: string;
  timeoutMs: number;
}

const DEFAULT_ENDPOINT: Record<(typeof PROVIDERS)[number], string> = {
  openai: 'https://api.openai.com',
  anthropic: 'https://api.anthropic.com',
  ollama: 'http://127.0.0.1:11434',
};

/** The dialogue sent to a model: the newest part of it, up to this many characters. */
const INPUT_CHARS = 48_000;
/** Bytes of a response read at most (an answer longer than its token share is cut anyway). */
const RESPONSE_BYTES = 1 << 20;
/** The answer's share of the budget: part of the P2 room (1 − P1 share), leaving some for excerpts. */
const ANSWER_SHARE = 0.3;

export class SummarizerError extends Error {}

/**
 * `--summarizer openai|anthropic|ollama|command:<cmd>` with the endpoint, model and key from flags or
 * the environment (SP_SUMMARIZER_ENDPOINT, SP_SUMMARIZER_MODEL, SP_SUMMARIZER_KEY, else
 * OPENAI_API_KEY / ANTHROPIC_API_KEY). Throws SummarizerError for a spec that cannot work.
 */
export function summarizerConfig(spec: string, flags: { endpoint?: string; model?: string; timeoutMs?: number }, env: NodeJS.ProcessEnv = process.env): SummarizerConfig {
  const timeoutMs = flags.timeoutMs ?? 60_000;
  if (spec.startsWith('command:')) {
    const command = spec.slice('command:'.length).trim();
    if (!command) throw new SummarizerError('command: needs a command line, e.g. command:"llm -m mymodel"');
    return { provider: 'command', endpoint: command, model: flags.model ?? env.SP_SUMMARIZER_MODEL, timeoutMs };
  }
  if (!(PROVIDERS as readonly string[]).includes(spec)) throw new SummarizerError(`unknown summarizer "${spec}"; use openai, anthropic, ollama or command:<cmd>`);
  const provider = spec as (typeof PROVIDERS)[number];
  const endpoint = (flags.endpoint ?? env.SP_SUMMARIZER_ENDPOINT ?? DEFAULT_ENDPOINT[provider]).replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new SummarizerError(`not a URL: ${JSON.stringify(endpoint)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SummarizerError(`the endpoint must be http(s): ${JSON.stringify(endpoint)}`);
  if (url.username || url.password) throw new SummarizerError('put the key in SP_SUMMARIZER_KEY, not in the URL');
  const model = flags.model ?? env.SP_SUMMARIZER_MODEL;
  if (!model) throw new SummarizerError(`say which model: --summarizer-model or SP_SUMMARIZER_MODEL`);
  const key = env.SP_SUMMARIZER_KEY ?? (provider === 'openai' ? env.OPENAI_API_KEY : provider === 'anthropic' ? env.ANTHROPIC_API_KEY : undefined);
  if (!key && provider !== 'ollama' && !isLocal({ provider, endpoint, timeoutMs })) {
    throw new SummarizerError(`no API key: set SP_SUMMARIZER_KEY (or ${provider === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY'})`);
  }
  return { provider, endpoint, model, key, timeoutMs };
}

/** Whether the text stays on this machine: a command, or an endpoint on a loopback address. */
export function isLocal(c: SummarizerConfig): boolean {
  if (c.provider === 'command') return true;
  const host = new URL(c.endpoint).hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

export interface SummaryInput {
  session: string;
  /** The dialogue on the active path, in order. */
  messages: Array<Msg & { role: 'user' | 'assistant' }>;
  /** Applied to every text before it leaves (the handoff's redaction). */
  redact: (text: string) => string;
}

export interface ModelSummary {
  prompt: string;
  answer: string;
  model: string;
  tokens: { prompt?: number; answer?: number };
  seqs: number[];
}

const INSTRUCTIONS =
  'You summarize a coding-agent session for the agent that continues it. Write at most 12 short bullet points: ' +
  'what was asked, what was done and found, what failed and why, what is left to do. Cite the [seq N] of the ' +
  'message each point comes from. Use only what the transcript says. No preamble.';

/** The prompt: the instructions, then the newest part of the dialogue that fits, each message with its seq. */
export function buildPrompt(input: SummaryInput): { prompt: string; seqs: number[] } {
  const lines: string[] = [];
  const seqs: number[] = [];
  let size = 0;
  for (let i = input.messages.length - 1; i >= 0; i -= 1) {
    const m = input.messages[i];
    const line = `[seq ${m.seq}] ${m.role}: ${input.redact(m.text)}`;
    if (size + line.length > INPUT_CHARS) break;
    lines.push(line);
    seqs.push(m.seq);
    size += line.length + 1;
  }
  lines.reverse();
  seqs.reverse();
  const omitted = input.messages.length - seqs.length;
  return { prompt: `${INSTRUCTIONS}\n\nTranscript${omitted ? ` (the ${omitted} oldest messages omitted)` : ''}:\n${lines.join('\n')}`, seqs };
}

async function post(url: string, headers: Record<string, string>, body: unknown, timeoutMs: number): Promise<unknown> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: abort.signal, redirect: 'error' });
    const reader = response.body?.getReader();
    const chunks: Buffer[] = [];
    let size = 0;
    if (reader) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.length;
        if (size > RESPONSE_BYTES) {
          await reader.cancel();
          throw new SummarizerError(`the response is over ${RESPONSE_BYTES} bytes`);
        }
        chunks.push(Buffer.from(value));
      }
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (!response.ok) throw new SummarizerError(`HTTP ${response.status}${text ? `: ${text.slice(0, 160).replace(/\s+/g, ' ')}` : ''}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new SummarizerError('the response is not JSON');
    }
  } catch (err) {
    if (err instanceof SummarizerError) throw err;
    if (abort.signal.aborted) throw new SummarizerError(`no answer within ${Math.round(timeoutMs / 1000)} s`);
    throw new SummarizerError(`cannot reach ${new URL(url).origin}: ${(err as Error & { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}

const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

async function ask(c: SummarizerConfig, prompt: string, maxTokens: number): Promise<{ answer: unknown; model?: string; tokens: { prompt?: number; answer?: number } }> {
  const auth = c.key ? c.key : undefined;
  switch (c.provider) {
    case 'openai': {
      const r = obj(await post(`${c.endpoint}/v1/chat/completions`, auth ? { authorization: `Bearer ${auth}` } : {}, { model: c.model, messages: [{ role: 'user', content: prompt }], max_tokens: maxTokens, temperature: 0 }, c.timeoutMs));
      const choice = obj(Array.isArray(r.choices) ? r.choices[0] : undefined);
      const usage = obj(r.usage);
      return { answer: obj(choice.message).content, model: typeof r.model === 'string' ? r.model : undefined, tokens: { prompt: num(usage.prompt_tokens), answer: num(usage.completion_tokens) } };
    }
    case 'anthropic': {
      const r = obj(await post(`${c.endpoint}/v1/messages`, { 'anthropic-version': '2023-06-01', ...(auth ? { 'x-api-key': auth } : {}) }, { model: c.model, max_tokens: maxTokens, messages: [{ role: 'user', content: prompt }] }, c.timeoutMs));
      const blocks = Array.isArray(r.content) ? r.content.map(obj) : [];
      const usage = obj(r.usage);
      const text = blocks.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string).join('\n');
      return { answer: blocks.length ? text : undefined, model: typeof r.model === 'string' ? r.model : undefined, tokens: { prompt: num(usage.input_tokens), answer: num(usage.output_tokens) } };
    }
    case 'ollama': {
      const r = obj(await post(`${c.endpoint}/api/chat`, {}, { model: c.model, stream: false, messages: [{ role: 'user', content: prompt }], options: { num_predict: maxTokens, temperature: 0 } }, c.timeoutMs));
      return { answer: obj(r.message).content, model: typeof r.model === 'string' ? r.model : undefined, tokens: { prompt: num(r.prompt_eval_count), answer: num(r.eval_count) } };
    }
    case 'command':
      return { answer: await runCommand(c.endpoint, prompt, c.timeoutMs), model: c.model ?? `command: ${c.endpoint}`, tokens: {} };
  }
}

/** The user's own command (from their flag or config): the prompt on stdin, the answer on stdout. */
function runCommand(command: string, prompt: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs });
    const out: Buffer[] = [];
    let size = 0;
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size <= RESPONSE_BYTES) out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-400)));
    child.on('error', (e) => reject(new SummarizerError(`cannot run the command: ${e.message}`)));
    child.on('close', (code, signal) => {
      if (signal) reject(new SummarizerError(signal === 'SIGTERM' ? `no answer within ${Math.round(timeoutMs / 1000)} s` : `the command was killed (${signal})`));
      else if (code !== 0) reject(new SummarizerError(`the command exited ${code}${err.trim() ? `: ${err.trim().split('\n').pop()}` : ''}`));
      else resolve(Buffer.concat(out).toString('utf8'));
    });
    child.stdin.on('error', () => undefined); // a command that does not read its input
    child.stdin.end(prompt);
  });
}

/** Asks the model; throws SummarizerError on any failure. */
export async function modelSummary(c: SummarizerConfig, input: SummaryInput, maxTokens: number): Promise<ModelSummary> {
  if (input.messages.length === 0) throw new SummarizerError('the session has no dialogue to summarize');
  const { prompt, seqs } = buildPrompt(input);
  const got = await ask(c, prompt, maxTokens);
  if (typeof got.answer !== 'string' || got.answer.trim() === '') throw new SummarizerError('the answer holds no text');
  return { prompt, answer: got.answer.trim(), model: got.model ?? c.model ?? c.provider, tokens: got.tokens, seqs };
}

/** The answer's token cap for a budget. */
export function answerCap(budget: number): number {
  return Math.max(32, Math.floor(budget * ANSWER_SHARE));
}

/**
 * The summary as a P2 item ahead of every excerpt, cut to `cap` tokens at a line end (the budget
 * still decides whether it goes in at all).
 */
export function summaryItem(summary: ModelSummary, session: string, counter: TokenCounter, cap: number, redact: (text: string) => string): { item: Item; cut: boolean } {
  const answer = redact(summary.answer);
  const first = summary.seqs[0];
  const last = summary.seqs[summary.seqs.length - 1];
  const range = summary.seqs.length ? ` of [seq ${first === last ? first : `${first}–${last}`}]` : '';
  const head = `- Written by ${summary.model}${range} (from the redacted dialogue; the prompt and the answer are in the context.compiled event):`;
  const lines = answer.split(/\r?\n/).map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  let kept = lines.length;
  const render = (n: number) => `${head}\n${lines.slice(0, n).map((l) => `  ${l}`).join('\n')}${n < lines.length ? '\n  …' : ''}`;
  while (kept > 1 && counter.count(render(kept)) > cap) kept -= 1;
  let text = render(kept);
  let cut = kept < lines.length;
  if (counter.count(text) > cap) {
    // One long line: cut it by characters until it fits.
    let chars = lines[0].length;
    while (chars > 40 && counter.count(`${head}\n  ${lines[0].slice(0, chars)}…`) > cap) chars = Math.floor(chars * 0.8);
    text = `${head}\n  ${lines[0].slice(0, chars)}…`;
    cut = true;
  }
  return {
    item: {
      id: 'summary:model',
      kind: 'summary',
      priority: 2,
      section: 'summary',
      session,
      seqs: summary.seqs.length ? [summary.seqs[0], summary.seqs[summary.seqs.length - 1]] : [],
      text,
      // Ahead of any excerpt by value per token: it is the summary of the whole dialogue.
      value: 1e9,
      order: 0,
      detail: { model: summary.model, cut, seqs: formatSeqs(summary.seqs) },
    },
    cut,
  };
}
