// `materialize` for Aider (docs/formats/aider.md §6), UNVERIFIED (no Aider client here): a new Markdown
// chat history Aider restores with `aider --chat-history-file FILE --restore-chat-history`. Always a
// new file (`<cwd>/.aider.sp-<id>.chat.history.md`), never the user's own history. Restore's parser
// has no escapes: a reply line starting `#### `, `> ` or `# ` would become a user turn, vanish, or be
// dropped, so it gets one leading space. Tool calls and results are flattened into the reply as
// fenced blocks; same-role neighbours are merged (Aider alternates user/assistant); thinking is dropped.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { createFileAtomic } from '../../lib/fs/atomic.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SpEvent } from '../../lib/core/event.js';
import { isObject, str } from '../../lib/core/json.js';
import { activeBranch } from '../../lib/write/branches.js';
import { TEXT_STUB_RESULT, planTextCalls } from '../../lib/write/text-calls.js';
import { AlternatingTurns, LossLedger, ensureUnder, fenced, isDerived, nativeIdOf, payloadOf, projectFolder, resumeCommand, selectSession, type WriterResult } from '../../lib/write/writer.js';
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
  if (options.sameId) throw new UserError('--same-id: an Aider history has no session id to keep (drop --same-id; the writer always makes a new history file)');
  const selected = await selectSession(events, options.session);
  const ledger = new LossLedger(options.onLoss);
  const start = selected.start ? payloadOf(selected.start) : {};
  const cwd = projectFolder(options, start);

  const history = new AlternatingTurns();
  const add = history.add.bind(history);
  const report = ledger.report.bind(ledger);
  const chosen = options.branch === 'active' ? activeBranch(selected.events, report) : selected.events;
  const calls = planTextCalls(chosen, report, { safety: options.safety, wrote: 'a fenced stub result is written after it' });
  for (const [index, event] of chosen.entries()) {
    if (isDerived(event)) continue;
    const payload = payloadOf(event);
    if (event.type === 'message.user' || event.type === 'message.assistant') {
      const role = event.type === 'message.user' ? 'user' : 'assistant';
      const content = Array.isArray(payload.content) ? payload.content.filter(isObject) : [];
      for (const block of content) {
        if (block.type === 'text' && typeof block.text === 'string') add(role, block.text);
        else if (block.type === 'image') {
          add(role, '[image]');
          ledger.report('rendered', 'image', 'an image has no place in a Markdown history: written as [image]', event);
        }
      }
    } else if (event.type === 'tool.call') {
      add('assistant', fenced('tool-call', `${str(payload.name) ?? 'tool'} ${JSON.stringify(payload.input ?? {}, null, 2)}`));
      ledger.report('rendered', 'tool-call', 'Aider has no tool calls: written as a fenced block in the reply', event);
      if (calls.stubbed.has(index)) add('assistant', fenced('tool-result (error)', TEXT_STUB_RESULT));
    } else if (event.type === 'tool.result') {
      if (calls.skipped.has(index)) continue;
      const text = typeof payload.content === 'string' ? payload.content : JSON.stringify(payload.content);
      add('assistant', fenced(`tool-result${payload.is_error === true ? ' (error)' : ''}`, text));
      ledger.report('rendered', 'tool-result', 'written as a fenced block in the reply', event);
    } else if (event.type === 'message.thinking') ledger.report('dropped', 'thinking', 'Aider keeps no reasoning', event);
  }

  const lines: string[] = ['', `# aider chat started at ${stamp(new Date())}`, ''];
  const source = nativeIdOf(selected.start) ?? selected.session;
  lines.push(`> Imported by sp from ${selected.start?.agent ?? 'unknown'} session ${source}  `, '');
  let escaped = 0;
  for (const turn of history.turns) {
    const text = turn.parts.join('\n\n');
    if (turn.role === 'user') {
      for (const line of text.split('\n')) lines.push(`#### ${line}  `);
    } else {
      for (const line of text.replace(/^\n+|\n+$/g, '').split('\n')) {
        const safe = escapeReplyLine(line);
        if (safe !== line) escaped += 1;
        lines.push(safe);
      }
    }
    lines.push('');
  }
  if (escaped > 0) ledger.add({ action: 'transformed', code: 'reply-line-escaped', reason: `${escaped} reply line(s) began with '#### ', '> ' or '# ' (or was '####' or '>'): one space added so Aider's restore keeps them as reply text` });

  const short = source.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 12) || 'session';
  const path = ensureUnder(cwd, join(cwd, `.aider.sp-${short}.chat.history.md`), 'the project folder');
  if (existsSync(path)) throw new UserError('exists already; not overwriting it', path);
  for (const line of lines) options.onLine?.(line);
  if (!options.dryRun) createFileAtomic(path, [lines.join('\n') + '\n'], 0o644);
  return {
    agent: AGENT,
    session_id: short,
    path,
    cwd,
    resume: resumeCommand(cwd, ['aider', '--chat-history-file', path, '--restore-chat-history']),
    records: history.turns.length,
    written_as: 'rebuilt',
    source_session: selected.session,
    changes: ledger.counts,
    unverified: 'no Aider client ran here: the file follows Aider\'s restore parser (docs/formats/aider.md §3)',
    ...(options.dryRun ? { dry_run: true } : {}),
  };
}
