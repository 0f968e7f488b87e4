// `materialize` for the Cursor CLI (docs/formats/cursor.md §7–8), EXPERIMENTAL and UNVERIFIED: no Cursor
// client can run here, so nothing proves `agent --resume` accepts what this writes. It follows the
// one layout a public writer is known to have resumed (SpecStory's): content-addressed blobs, the
// conversation as text-only user/assistant leaves (assistant ids a running counter), a metadata
// subtree (title, placeholder, preview), a root node listing the leaves in order, and `meta['0']` as
// hex-encoded JSON naming the root. Tool calls, their results and thinking are written as marked
// text in the assistant leaf, as that writer does: whether the CLI accepts native `tool-call` leaves
// written by another program is an open question (docs/formats/cursor.md §12). The store goes to a new
// `chats/<md5(cwd)>/<agentId>/` folder, built under a temporary name and renamed into place, with
// the `meta.json` newer builds keep beside it. Our own capture reads it back (test/cursor/).
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { newTempPath } from '../../lib/fs/atomic.js';
import { removeOnInterrupt } from '../../lib/fs/private.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SpEvent } from '../../lib/core/event.js';
import { isObject, str } from '../../lib/core/json.js';
import { openForWrite } from '../../lib/capture/sqlite.js';
import { activeBranch } from '../../lib/write/branches.js';
import { TEXT_STUB_RESULT, planTextCalls } from '../../lib/write/text-calls.js';
import { AlternatingTurns, LossLedger, ensureUnder, fenced, isDerived, nativeIdOf, payloadOf, projectFolder, resumeFields, sameNativeId, selectSession, type WriterResult } from '../../lib/write/writer.js';
import { AGENT, HOME_ENV, NATIVE_ID, UNVERIFIED, builtInHome, defaultHome, expandTilde } from './paths.js';
import { pbNode } from './protobuf.js';

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** One protobuf length-delimited field. */
function pbBytes(field: number, bytes: Buffer): Buffer {
  const len: number[] = [];
  let n = bytes.length;
  do {
    len.push((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
    n >>>= 7;
  } while (n > 0);
  return Buffer.concat([Buffer.from([(field << 3) | 2, ...len]), bytes]);
}

/**
 * A text field of the metadata subtree. A reader follows any 32-byte field 1 or 2 as a blob
 * reference, so a text of 32 bytes (or of 30, which the preview wraps in two more) gets a trailing space.
 */
function metaText(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length === 32 || bytes.length === 30 ? Buffer.from(`${text} `, 'utf8') : bytes;
}

export async function materializeCursor(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<WriterResult> {
  const selected = await selectSession(events, options.session);
  const ledger = new LossLedger(options.onLoss);
  const start = selected.start ? payloadOf(selected.start) : {};
  const cwd = projectFolder(options, start); // Cursor finds a chat by the md5 of its folder

  // Leaves alternate user / assistant: neighbours of one role are joined, as one turn.
  const history = new AlternatingTurns();
  const add = history.add.bind(history);
  const leaves = history.turns;
  let model = options.model;
  const report = ledger.report.bind(ledger);
  const chosen = options.branch === 'active' ? activeBranch(selected.events, report) : selected.events;
  const calls = planTextCalls(chosen, report, { safety: options.safety, wrote: 'a fenced stub result is written after it' });
  for (const [index, event] of chosen.entries()) {
    if (isDerived(event)) continue;
    const payload = payloadOf(event);
    if (event.type === 'message.user' || event.type === 'message.assistant') {
      const role = event.type === 'message.user' ? 'user' : 'assistant';
      if (role === 'assistant') model ??= str(payload.model);
      const content = typeof payload.content === 'string' ? [{ type: 'text', text: payload.content }] : Array.isArray(payload.content) ? payload.content.filter(isObject) : [];
      for (const block of content) {
        if (block.type === 'text' && typeof block.text === 'string') add(role, block.text);
        else if (block.type === 'image') {
          add(role, '[image]');
          ledger.report('rendered', 'image', 'written as [image]: the known Cursor layout has text leaves only', event);
        }
      }
    } else if (event.type === 'tool.call') {
      add('assistant', fenced(`tool-call ${str(payload.name) ?? 'tool'}`, JSON.stringify(payload.input ?? {}, null, 2)));
      ledger.report('rendered', 'tool-call', 'written as a fenced block in the assistant text (native tool-call leaves are unproven)', event);
      if (calls.stubbed.has(index)) add('assistant', fenced('tool-result (error)', TEXT_STUB_RESULT));
    } else if (event.type === 'tool.result') {
      if (calls.skipped.has(index)) continue;
      const text = typeof payload.content === 'string' ? payload.content : JSON.stringify(payload.content ?? '');
      add('assistant', fenced(`tool-result${payload.is_error === true ? ' (error)' : ''}`, text));
      ledger.report('rendered', 'tool-result', 'written as a fenced block in the assistant text', event);
    } else if (event.type === 'message.thinking') {
      const text = str(payload.text);
      if (text) {
        add('assistant', `[thinking]\n${text}`);
        ledger.report('rendered', 'thinking', 'written as marked text (native reasoning leaves are unproven)', event);
      } else ledger.report('dropped', 'thinking', 'reasoning without visible text', event);
    }
  }
  if (!leaves.some((l) => l.role === 'user')) throw new UserError('no user message to write: a Cursor chat starts with one');

  // Blobs: the conversation leaves, then the metadata subtree, then the root.
  const blobs = new Map<string, Buffer>();
  const put = (data: Buffer): string => {
    const id = sha256(data);
    blobs.set(id, data);
    return id;
  };
  const refs: Array<[1 | 2, string]> = [];
  let assistantNo = 0;
  for (const leaf of leaves) {
    const content = [{ type: 'text', text: leaf.parts.join('\n\n') }];
    const json = leaf.role === 'user' ? { role: 'user', content } : { id: String(++assistantNo), role: 'assistant', content };
    refs.push([1, put(Buffer.from(JSON.stringify(json), 'utf8'))]);
  }
  const source = nativeIdOf(selected.start) ?? selected.session;
  const title = str(start.title) ?? `${selected.start?.agent ?? 'imported'} session ${source.slice(0, 8)} (sp)`;
  const lastReply = [...leaves].reverse().find((l) => l.role === 'assistant')?.parts.join('\n\n') ?? '';
  const titleBlob = put(Buffer.concat([pbBytes(1, metaText(title)), pbBytes(2, Buffer.from(randomUUID(), 'utf8'))]));
  const placeholder = put(pbBytes(3, Buffer.alloc(0)));
  const preview = put(pbBytes(1, pbBytes(1, metaText(lastReply.slice(0, 200)))));
  const metadata = put(pbNode([[1, titleBlob], [2, placeholder], [2, preview]]));
  refs.push([2, metadata]);
  const root = put(pbNode(refs));

  // A same-id move keeps a Cursor chat's own id (it names the chat's folder): only in Cursor's format.
  if (options.sameId && selected.start?.agent !== AGENT) throw new UserError(`--same-id keeps a Cursor chat's own id; this session comes from ${selected.start?.agent ?? 'an unknown agent'} (drop --same-id)`);
  const agentId = options.sameId ? sameNativeId(NATIVE_ID, selected.start ? payloadOf(selected.start).native_id : undefined) : randomUUID();
  const now = Date.now();
  const meta: Record<string, unknown> = { agentId, latestRootBlobId: root, name: title, mode: 'default', createdAt: now };
  if (model) meta.lastUsedModel = model;
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const folder = join(home, 'chats', createHash('md5').update(cwd).digest('hex'));
  const dir = ensureUnder(home, join(folder, agentId), 'the home');
  const path = join(dir, 'store.db');
  if (existsSync(dir)) throw new UserError('exists already; not overwriting it', dir);
  for (const [id, data] of blobs) options.onLine?.(JSON.stringify({ blob: id, data: data[0] === 0x7b ? JSON.parse(data.toString('utf8')) : data.toString('hex') }));
  options.onLine?.(JSON.stringify({ meta: '0', value: meta }));

  if (!options.dryRun) {
    // Built whole under a temporary name, then renamed: a reader never sees half a chat.
    mkdirSync(folder, { recursive: true });
    const temp = newTempPath(folder, `sp-${agentId}`);
    mkdirSync(temp, { mode: 0o700 });
    const release = removeOnInterrupt(temp);
    try {
      const db = await openForWrite(join(temp, 'store.db'), true);
      try {
        db.pragma('journal_mode = WAL'); // as Cursor keeps it
        db.exec('CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB); CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);');
        const insert = db.prepare('INSERT INTO blobs (id, data) VALUES (?, ?)');
        db.transaction(() => {
          for (const [id, data] of blobs) insert.run(id, data);
          db.prepare("INSERT INTO meta (key, value) VALUES ('0', ?)").run(Buffer.from(JSON.stringify(meta), 'utf8').toString('hex'));
        })();
      } finally {
        db.close(); // checkpoints: no -wal is left behind
      }
      writeFileSync(join(temp, 'meta.json'), JSON.stringify({ schemaVersion: 1, createdAtMs: now, hasConversation: true, updatedAtMs: now, cwd }));
      renameSync(temp, dir);
    } catch (err) {
      rmSync(temp, { recursive: true, force: true });
      if (err instanceof UserError) throw err;
      throw new UserError(`cannot write the chat: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, dir);
    } finally {
      release();
    }
  }
  return {
    agent: AGENT,
    session_id: agentId,
    path,
    cwd,
    ...resumeFields(cwd, ['cursor-agent', '--resume', agentId], { variable: HOME_ENV, value: home, builtIn: builtInHome() }),
    records: blobs.size + 1,
    written_as: 'rebuilt',
    source_session: selected.session,
    changes: ledger.counts,
    unverified: UNVERIFIED,
    ...(options.dryRun ? { dry_run: true } : {}),
  };
}
