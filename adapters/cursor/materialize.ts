// `materialize` for the Cursor CLI (docs/formats/cursor.md §7–8), EXPERIMENTAL and UNVERIFIED: no Cursor
// client can run here, so nothing proves `agent --resume` accepts what this writes. It follows the
// one layout a public writer is known to have resumed (SpecStory's): content-addressed blobs, the
// conversation as text-only user/assistant leaves (assistant ids a running counter), a metadata
// subtree (title, placeholder, preview), a root node listing the leaves in order, and `meta['0']` as
// hex-encoded JSON naming the root. Tool calls, their results and thinking are written as marked
// text in the assistant leaf, as that writer does: whether the CLI accepts native `tool-call` leaves
// written by another program is an open question (docs/formats/cursor.md §12). The store goes to a new
// `chats/<md5(cwd)>/<agentId>/` folder, built under a temporary name and moved into place (never
// over a folder), with the `meta.json` newer builds keep beside it. Our own capture reads it back
// (test/cursor/). The session is read from a spool on disk and the leaves go into the database as
// they are made (flat memory).
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { newTempPath, renameDirNoReplace } from '../../lib/fs/atomic.js';
import { removeOnInterrupt } from '../../lib/fs/private.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SpEvent } from '../../lib/core/event.js';
import { isObject, str } from '../../lib/core/json.js';
import { openForWrite } from '../../lib/capture/sqlite.js';
import { activeBranchView } from '../../lib/write/branches.js';
import { SpooledLines, SpooledSession } from '../../lib/write/spool.js';
import { TEXT_STUB_RESULT, planTextCalls } from '../../lib/write/text-calls.js';
import { AlternatingTurns, LossLedger, ensureUnder, fenced, isDerived, nativeIdOf, payloadOf, projectFolder, resumeFields, sameNativeId, type AlternatingTurn, type WriterResult } from '../../lib/write/writer.js';
import { boundHeapGrowth } from '../../lib/write/heap-growth.js';
import { AGENT, HOME_ENV, NATIVE_ID, UNVERIFIED, builtInHome, defaultHome, expandTilde } from './paths.js';
import { pbNode } from './protobuf.js';

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

/** Where the blobs go as they are made: the chat's database, or (a dry run) only a count of the distinct ones. */
interface BlobSink {
  /** Stores `data` under `id` unless a blob with that id is stored already; whether it was new. */
  put(id: string, data: Buffer): boolean;
}

export async function materializeCursor(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<WriterResult> {
  boundHeapGrowth();
  const selected = await SpooledSession.create(events, options.session);
  try {
    return await writeCursor(selected, options);
  } finally {
    selected.remove();
  }
}

// The session is read by position from its spool (the call pairing a pass of its own), and each
// leaf goes into the database once a leaf of the other role closes it: only the open leaf, and the
// root's 34 bytes per leaf, are held.
async function writeCursor(selected: SpooledSession, options: MaterializeOptions): Promise<WriterResult> {
  const ledger = new LossLedger(options.onLoss);
  const start = selected.start ? payloadOf(selected.start) : {};
  const cwd = projectFolder(options, start); // Cursor finds a chat by the md5 of its folder

  // A same-id move keeps a Cursor chat's own id (it names the chat's folder): only in Cursor's format.
  if (options.sameId && selected.start?.agent !== AGENT) throw new UserError(`--same-id keeps a Cursor chat's own id; this session comes from ${selected.start?.agent ?? 'an unknown agent'} (drop --same-id)`);
  const titleId = randomUUID(); // the metadata's own id (made first, as the one-shot writer made it)
  const agentId = options.sameId ? sameNativeId(NATIVE_ID, selected.start ? payloadOf(selected.start).native_id : undefined) : randomUUID();
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const folder = join(home, 'chats', createHash('md5').update(cwd).digest('hex'));
  const dir = ensureUnder(home, join(folder, agentId), 'the home');
  const path = join(dir, 'store.db');
  if (existsSync(dir)) throw new UserError('exists already; not overwriting it', dir);

  // The preview's lines wait on disk until the chat is known to be writable (it needs a user leaf).
  const preview = options.onLine ? new SpooledLines() : undefined;
  try {
    if (options.dryRun) {
      // Nothing is written: the distinct blobs are only counted (a preview holds the whole session anyway).
      const seen = new Set<string>();
      const sink: BlobSink = {
        put: (id) => {
          if (seen.has(id)) return false;
          seen.add(id);
          return true;
        },
      };
      const written = buildChat(selected, options, ledger, sink, preview, { agentId, titleId });
      if (preview) for (const line of preview.lines()) options.onLine!(line);
      return cursorResult(selected, options, ledger, { agentId, path, cwd, home, records: written.blobs + 1 });
    }
    // Built whole under a temporary name, then renamed: a reader never sees half a chat.
    mkdirSync(folder, { recursive: true });
    const temp = newTempPath(folder, `sp-${agentId}`);
    mkdirSync(temp, { mode: 0o700 });
    const release = removeOnInterrupt(temp);
    try {
      const db = await openForWrite(join(temp, 'store.db'), true);
      let written: { blobs: number; meta: Record<string, unknown> };
      try {
        db.pragma('journal_mode = WAL'); // as Cursor keeps it
        db.exec('CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB); CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);');
        const insert = db.prepare('INSERT OR IGNORE INTO blobs (id, data) VALUES (?, ?)');
        const sink: BlobSink = { put: (id, data) => insert.run(id, data).changes > 0 };
        // One transaction, as before: the rows go to the database's own files as they are made.
        db.exec('BEGIN');
        try {
          written = buildChat(selected, options, ledger, sink, preview, { agentId, titleId });
          db.prepare("INSERT INTO meta (key, value) VALUES ('0', ?)").run(Buffer.from(JSON.stringify(written.meta), 'utf8').toString('hex'));
          db.exec('COMMIT');
        } catch (err) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw err;
        }
      } finally {
        db.close(); // checkpoints: no -wal is left behind
      }
      const now = Number(written.meta.createdAt);
      writeFileSync(join(temp, 'meta.json'), JSON.stringify({ schemaVersion: 1, createdAtMs: now, hasConversation: true, updatedAtMs: now, cwd }));
      if (preview) for (const line of preview.lines()) options.onLine!(line);
      try {
        renameDirNoReplace(temp, dir); // a chat folder made since the check above is never replaced
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST' || code === 'ENOTEMPTY') throw new UserError('exists already; not overwriting it', dir);
        throw err;
      }
      return cursorResult(selected, options, ledger, { agentId, path, cwd, home, records: written.blobs + 1 });
    } catch (err) {
      rmSync(temp, { recursive: true, force: true });
      if (err instanceof UserError) throw err;
      throw new UserError(`cannot write the chat: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, dir);
    } finally {
      release();
    }
  } finally {
    preview?.remove();
  }
}

/**
 * The chat's blobs into `sink` in the order they are made (the conversation leaves, then the
 * metadata subtree, then the root) and the `meta['0']` value naming the root; throws when no user
 * leaf is written. Each new blob is also a preview line.
 */
function buildChat(selected: SpooledSession, options: MaterializeOptions, ledger: LossLedger, sink: BlobSink, preview: SpooledLines | undefined, ids: { agentId: string; titleId: string }): { blobs: number; meta: Record<string, unknown> } {
  let blobs = 0;
  const put = (data: Buffer): Buffer => {
    const digest = createHash('sha256').update(data).digest();
    const id = digest.toString('hex');
    if (sink.put(id, data)) {
      blobs += 1;
      preview?.push(JSON.stringify({ blob: id, data: data[0] === 0x7b ? JSON.parse(data.toString('utf8')) : data.toString('hex') }));
    }
    return digest;
  };
  // The root lists the leaves in order: a [field, 32, sha256] entry each, appended as they are made.
  let root = Buffer.allocUnsafe(1 << 12);
  let rootLength = 0;
  const ref = (field: 1 | 2, digest: Buffer): void => {
    if (rootLength + 34 > root.length) {
      const grown = Buffer.allocUnsafe(root.length * 2);
      root.copy(grown, 0, 0, rootLength);
      root = grown;
    }
    root[rootLength] = (field << 3) | 2;
    root[rootLength + 1] = 32;
    digest.copy(root, rootLength + 2);
    rootLength += 34;
  };

  // Leaves alternate user / assistant: neighbours of one role are joined, as one turn.
  const history = new AlternatingTurns();
  let assistantNo = 0;
  let hasUser = false;
  let lastReply = '';
  const leaf = (turn: AlternatingTurn | undefined): void => {
    if (!turn) return;
    const text = turn.parts.join('\n\n');
    const content = [{ type: 'text', text }];
    if (turn.role === 'user') hasUser = true;
    else lastReply = text.slice(0, 200);
    const json = turn.role === 'user' ? { role: 'user', content } : { id: String(++assistantNo), role: 'assistant', content };
    ref(1, put(Buffer.from(JSON.stringify(json), 'utf8')));
  };
  const add = (role: 'user' | 'assistant', text: string): void => leaf(history.add(role, text));

  let model = options.model;
  const report = ledger.report.bind(ledger);
  const chosen = options.branch === 'active' ? activeBranchView(selected.events, report) : selected.events;
  const calls = planTextCalls(chosen, report, { safety: options.safety, wrote: 'a fenced stub result is written after it' });
  for (let index = 0; index < chosen.length; index += 1) {
    const event = chosen[index];
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
  leaf(history.end());
  if (!hasUser) throw new UserError('no user message to write: a Cursor chat starts with one');

  // The metadata subtree, then the root.
  const start = selected.start ? payloadOf(selected.start) : {};
  const source = nativeIdOf(selected.start) ?? selected.session;
  const title = str(start.title) ?? `${selected.start?.agent ?? 'imported'} session ${source.slice(0, 8)} (sp)`;
  const titleBlob = put(Buffer.concat([pbBytes(1, metaText(title)), pbBytes(2, Buffer.from(ids.titleId, 'utf8'))]));
  const placeholder = put(pbBytes(3, Buffer.alloc(0)));
  const previewBlob = put(pbBytes(1, pbBytes(1, metaText(lastReply))));
  const metadata = put(pbNode([[1, titleBlob.toString('hex')], [2, placeholder.toString('hex')], [2, previewBlob.toString('hex')]]));
  ref(2, metadata);
  const rootId = put(root.subarray(0, rootLength)).toString('hex');

  const now = Date.now();
  const meta: Record<string, unknown> = { agentId: ids.agentId, latestRootBlobId: rootId, name: title, mode: 'default', createdAt: now };
  if (model) meta.lastUsedModel = model;
  preview?.push(JSON.stringify({ meta: '0', value: meta }));
  return { blobs, meta };
}

function cursorResult(selected: SpooledSession, options: MaterializeOptions, ledger: LossLedger, at: { agentId: string; path: string; cwd: string; home: string; records: number }): WriterResult {
  return {
    agent: AGENT,
    session_id: at.agentId,
    path: at.path,
    cwd: at.cwd,
    ...resumeFields(at.cwd, ['cursor-agent', '--resume', at.agentId], { variable: HOME_ENV, value: at.home, builtIn: builtInHome() }),
    records: at.records,
    written_as: 'rebuilt',
    source_session: selected.session,
    changes: ledger.counts,
    unverified: UNVERIFIED,
    ...(options.dryRun ? { dry_run: true } : {}),
  };
}
