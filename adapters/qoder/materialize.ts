// `sp-materialize qoder`: canonical events → a NEW Qoder CLI transcript in
// `<home>/projects/<slug of cwd>/<uuid>.jsonl` (docs/formats/qoder.md §6). The Claude Code writer builds
// the transcript (its chain, pairing and resume-safety rules are what Qoder's loader needs); this
// writer (lib/formats/claude-code/writer.ts) then makes it Qoder's: a `runtime-config` head line, the Qoder version on every message,
// `message.model` as a Qoder tier alias, an `active-leaf` record naming the last message, and writes
// it atomically (never over an existing file). The real client can be checked only up to its login
// step (it lists the session with its first prompt and resolves `-r <id>`); which history then
// reaches the model cannot be observed offline.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { isObject, type Json } from '../../lib/core/json.js';
import { resumeFields, writeLines, type WriterResult } from '../../lib/write/writer.js';
import { SpooledLines } from '../../lib/write/spool.js';
import { writeClaudeCodeTranscript, type ClaudeCodeTarget } from '../../lib/formats/claude-code/writer.js';
// Claude Code's slug rule (Qoder keeps its projects under the same folder names).
import { projectSlug, resolveCwd } from '../../lib/formats/claude-code/slug.js';
import { AGENT } from './discover.js';
import { DEFAULT_MODEL, HOME_ENV, NATIVE_ID, builtInHome, defaultHome } from './paths.js';

/** The client version this writer was checked against (loader check). */
export const CLIENT_VERSION = '1.1.52';
const CONTEXT_WINDOW = 262_144;

/** Qoder CLI as a reader of Claude Code's transcript format. */
const QODER_CLI: ClaudeCodeTarget = {
  agent: AGENT,
  projectSlug,
  resolveCwd,
  defaultHome,
  home: (home) => ({ variable: HOME_ENV, value: home, builtIn: builtInHome() }),
  idFormat: NATIVE_ID,
  defaultModel: DEFAULT_MODEL,
  resumeArgv: (sessionId) => ['qodercli', '--resume', sessionId],
};

async function* asClaude(events: AsyncIterable<SpEvent>, sameId: boolean): AsyncGenerator<SpEvent> {
  for await (const event of events) {
    // A same-id move of a Qoder session goes through the Claude writer's own-session path.
    if (sameId && event.agent === AGENT) yield { ...event, agent: 'claude', ...(event.origin ? { origin: { ...event.origin, agent: 'claude' } } : {}) };
    else yield event;
  }
}

export async function materializeQoder(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<WriterResult> {
  // The Claude writer's lines, on disk (an array of them grew with the session: 640 MB at 150 MB of input).
  const collected = new SpooledLines();
  try {
    let fromQoder = false;
    async function* watch(): AsyncGenerator<SpEvent> {
      for await (const event of events) {
        if (event.type === 'session.start' && event.agent === AGENT) fromQoder = true;
        yield event;
      }
    }
    const model = options.model ?? DEFAULT_MODEL;
    // The Claude writer runs as a dry run (this writer writes the file), so the folder is made here.
    if (options.mkcwd && !options.dryRun && options.cwd) mkdirSync(resolve(options.cwd), { recursive: true });
    const built = await writeClaudeCodeTranscript(asClaude(watch(), Boolean(options.sameId)), {
      ...options,
      home: options.home ?? defaultHome(),
      idFormat: NATIVE_ID,
      model,
      dryRun: true,
      onLine: (line) => collected.push(line),
    }, QODER_CLI);
    const lines = built.written_as === 'raw' ? collected.lines() : qoderLines(collected.lines(), built.session_id, model, fromQoder && options.model === undefined);
    const records = writeLines(built.path, lines, { finalNewline: true, dryRun: options.dryRun, onLine: options.onLine });
    return resultOf(built, records, options);
  } finally {
    collected.remove();
  }
}

/**
 * The Claude writer's lines made Qoder's, one at a time: a runtime-config head, the Qoder version
 * on every message (and the model unless a Qoder session keeps its own), an active-leaf record
 * after the last message, metadata after it (titles, last-prompt) kept after that pointer.
 */
function* qoderLines(collected: Iterable<string>, sessionId: string, model: string, keepOwnModel: boolean): Generator<string> {
  const now = Date.now();
  yield JSON.stringify({ type: 'runtime-config', sessionId, model, reasoningEffort: null, contextWindow: CONTEXT_WINDOW, generation: null, timestamp: now });
  let leaf: string | undefined;
  let tail: string[] = [];
  for (const text of collected) {
    const record = JSON.parse(text) as Json;
    if (typeof record.uuid === 'string') {
      record.version = CLIENT_VERSION;
      if (record.type === 'assistant' && isObject(record.message) && !(keepOwnModel && typeof record.message.model === 'string')) {
        record.message.model = model;
      }
      leaf = record.uuid;
      yield* tail;
      yield JSON.stringify(record);
      tail = [];
    } else {
      tail.push(text);
    }
  }
  if (leaf !== undefined) yield JSON.stringify({ type: 'active-leaf', sessionId, leafUuid: leaf, explicit: false, timestamp: now });
  yield* tail;
}

function resultOf(built: WriterResult, records: number, options: MaterializeOptions): WriterResult {
  const result: WriterResult = {
    ...built,
    agent: AGENT,
    records,
    ...resumeFields(built.cwd, ['qodercli', '--resume', built.session_id], { variable: HOME_ENV, value: options.home ?? defaultHome(), builtIn: builtInHome() }),
  };
  if (options.dryRun) result.dry_run = true;
  else delete result.dry_run;
  return result;
}
