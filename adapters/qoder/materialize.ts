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
  const collected: string[] = [];
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
  let lines: string[];
  if (built.written_as === 'raw') {
    lines = collected;
  } else {
    const now = Date.now();
    lines = [JSON.stringify({ type: 'runtime-config', sessionId: built.session_id, model, reasoningEffort: null, contextWindow: CONTEXT_WINDOW, generation: null, timestamp: now })];
    let leaf: string | undefined;
    let tail: string[] = [];
    for (const text of collected) {
      const record = JSON.parse(text) as Json;
      if (typeof record.uuid === 'string') {
        record.version = CLIENT_VERSION;
        if (record.type === 'assistant' && isObject(record.message) && !(fromQoder && options.model === undefined && typeof record.message.model === 'string')) {
          record.message.model = model;
        }
        leaf = record.uuid;
        lines.push(...tail, JSON.stringify(record));
        tail = [];
      } else {
        // Metadata after the last message (titles, last-prompt) stays after the active-leaf pointer.
        tail.push(text);
      }
    }
    if (leaf !== undefined) lines.push(JSON.stringify({ type: 'active-leaf', sessionId: built.session_id, leafUuid: leaf, explicit: false, timestamp: now }));
    lines.push(...tail);
  }
  writeLines(built.path, lines, { finalNewline: true, dryRun: options.dryRun, onLine: options.onLine });
  const result: WriterResult = {
    ...built,
    agent: AGENT,
    records: lines.length,
    ...resumeFields(built.cwd, ['qodercli', '--resume', built.session_id], { variable: HOME_ENV, value: options.home ?? defaultHome(), builtIn: builtInHome() }),
  };
  if (options.dryRun) result.dry_run = true;
  else delete result.dry_run;
  return result;
}
