// `materialize` for Aider (docs/formats/aider.md §6), UNVERIFIED (no Aider client here): a new Markdown
// chat history Aider restores with `aider --chat-history-file FILE --restore-chat-history`. Always a
// new file (`<cwd>/.aider.sp-<id>.chat.history.md`), never the user's own history. Restore's parser
// has no escapes: a reply line starting `#### `, `> ` or `# ` would become a user turn, vanish, or be
// dropped, so it gets one leading space. Tool calls and results are flattened into the reply as
// fenced blocks; same-role neighbours are merged (Aider alternates user/assistant); thinking is dropped.
// The session is read from a spool on disk and the file written a turn at a time (flat memory).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { createFileAtomic } from '../../lib/fs/atomic.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SpEvent } from '../../lib/core/event.js';
import { isObject, str } from '../../lib/core/json.js';
import { activeBranchView } from '../../lib/write/branches.js';
import { SpooledSession } from '../../lib/write/spool.js';
import { TEXT_STUB_RESULT, planTextCalls } from '../../lib/write/text-calls.js';
import { AlternatingTurns, LossLedger, ensureUnder, fenced, isDerived, lineChunks, nativeIdOf, payloadOf, projectFolder, resumeCommand, type AlternatingTurn, type WriterResult } from '../../lib/write/writer.js';
import { boundHeapGrowth } from '../../lib/write/heap-growth.js';
import { AGENT } from './paths.js';

/**
 * A reply line that would read back as something else (a user turn `#### `, tool output `> `, a
 * header or a dropped line `# `, and the bare `####` / `>` that sp's capture also reads so), made
 * safe by one leading space: it cannot forge a turn or a session header.
 */
export function escapeReplyLine(line: string): string {
  return /^(#### |####$|> |>$|# )/.test(line) ? ` ${line}` : line;
}

function stamp(date: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())} ${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}`;
}

export async function materializeAider(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<WriterResult> {
  boundHeapGrowth();
  if (options.sameId) throw new UserError('--same-id: an Aider history has no session id to keep (drop --same-id; the writer always makes a new history file)');
  const selected = await SpooledSession.create(events, options.session);
  try {
    return writeAider(selected, options);
  } finally {
    selected.remove();
  }
}

// The session is read by position from its spool (the call pairing a pass of its own) and the
// history written into the file a turn at a time: a turn is written once a turn of the other role
// closes it, so only the open turn is held.
function writeAider(selected: SpooledSession, options: MaterializeOptions): WriterResult {
  const ledger = new LossLedger(options.onLoss);
  const start = selected.start ? payloadOf(selected.start) : {};
  const cwd = projectFolder(options, start);
  const source = nativeIdOf(selected.start) ?? selected.session;
  const short = source.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 12) || 'session';
  const path = ensureUnder(cwd, join(cwd, `.aider.sp-${short}.chat.history.md`), 'the project folder');
  if (existsSync(path)) throw new UserError('exists already; not overwriting it', path);

  const history = new AlternatingTurns();
  const report = ledger.report.bind(ledger);
  const chosen = options.branch === 'active' ? activeBranchView(selected.events, report) : selected.events;
  const calls = planTextCalls(chosen, report, { safety: options.safety, wrote: 'a fenced stub result is written after it' });
  let escaped = 0;

  /** The lines of one turn, and the blank line after it. */
  function* turnLines(turn: AlternatingTurn | undefined): Generator<string> {
    if (!turn) return;
    const text = turn.parts.join('\n\n');
    if (turn.role === 'user') {
      for (const line of text.split('\n')) yield `#### ${line}  `;
    } else {
      for (const line of text.replace(/^\n+|\n+$/g, '').split('\n')) {
        const safe = escapeReplyLine(line);
        if (safe !== line) escaped += 1;
        yield safe;
      }
    }
    yield '';
  }

  function* lines(): Generator<string> {
    yield* ['', `# aider chat started at ${stamp(new Date())}`, ''];
    yield* [`> Imported by sp from ${selected.start?.agent ?? 'unknown'} session ${source}  `, ''];
    for (let index = 0; index < chosen.length; index += 1) {
      const event = chosen[index];
      if (isDerived(event)) continue;
      const payload = payloadOf(event);
      if (event.type === 'message.user' || event.type === 'message.assistant') {
        const role = event.type === 'message.user' ? 'user' : 'assistant';
        const content = Array.isArray(payload.content) ? payload.content.filter(isObject) : [];
        for (const block of content) {
          if (block.type === 'text' && typeof block.text === 'string') yield* turnLines(history.add(role, block.text));
          else if (block.type === 'image') {
            yield* turnLines(history.add(role, '[image]'));
            ledger.report('rendered', 'image', 'an image has no place in a Markdown history: written as [image]', event);
          }
        }
      } else if (event.type === 'tool.call') {
        yield* turnLines(history.add('assistant', fenced('tool-call', `${str(payload.name) ?? 'tool'} ${JSON.stringify(payload.input ?? {}, null, 2)}`)));
        ledger.report('rendered', 'tool-call', 'Aider has no tool calls: written as a fenced block in the reply', event);
        if (calls.stubbed.has(index)) yield* turnLines(history.add('assistant', fenced('tool-result (error)', TEXT_STUB_RESULT)));
      } else if (event.type === 'tool.result') {
        if (calls.skipped.has(index)) continue;
        const text = typeof payload.content === 'string' ? payload.content : JSON.stringify(payload.content);
        yield* turnLines(history.add('assistant', fenced(`tool-result${payload.is_error === true ? ' (error)' : ''}`, text)));
        ledger.report('rendered', 'tool-result', 'written as a fenced block in the reply', event);
      } else if (event.type === 'message.thinking') ledger.report('dropped', 'thinking', 'Aider keeps no reasoning', event);
    }
    yield* turnLines(history.end());
    if (escaped > 0) ledger.add({ action: 'transformed', code: 'reply-line-escaped', reason: `${escaped} reply line(s) began with '#### ', '> ' or '# ' (or was '####' or '>'): one space added so Aider's restore keeps them as reply text` });
  }

  const onLine = options.onLine;
  const shown = onLine ? (function* (): Generator<string> { for (const line of lines()) { onLine(line); yield line; } })() : lines();
  if (options.dryRun) for (const _ of shown);
  else createFileAtomic(path, lineChunks(shown), 0o644);
  return {
    agent: AGENT,
    session_id: short,
    path,
    cwd,
    resume: resumeCommand(cwd, ['aider', '--chat-history-file', path, '--restore-chat-history']),
    records: history.count,
    written_as: 'rebuilt',
    source_session: selected.session,
    changes: ledger.counts,
    unverified: 'no Aider client ran here: the file follows Aider\'s restore parser (docs/formats/aider.md §3)',
    ...(options.dryRun ? { dry_run: true } : {}),
  };
}
