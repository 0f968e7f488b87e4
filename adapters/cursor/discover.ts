// Finding Cursor chats under the home (`~/.cursor`, CURSOR_HOME or --home): CLI stores
// `chats/<md5(cwd)>/<chatId>/store.db`, ACP stores `acp-sessions/<id>/store.db`, and agent transcripts
// `projects/<slug>/agent-transcripts/<id>/<id>.jsonl` (older builds: flat `<id>.jsonl`) for chats that
// have no store; plus one ref per composer of the IDE's global `state.vscdb` (CURSOR_IDE_DIR), when present.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { str } from '../../lib/core/json.js';
import { AGENT, defaultHome, defaultIdeDir, expandTilde, kindOf, readMetaJson, splitLocator } from './paths.js';
import { readStoreMeta, withStore } from './store-db.js';
import { listComposers, readWorkspaceListings } from './vscdb.js';

function dirs(path: string): string[] {
  try {
    return readdirSync(path, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(path, d.name));
  } catch {
    return [];
  }
}

function mtimeOf(path: string): number {
  try {
    const wal = `${path}-wal`;
    return Math.max(statSync(path).mtimeMs, existsSync(wal) ? statSync(wal).mtimeMs : 0) / 1000;
  } catch {
    return 0;
  }
}

async function storeRef(path: string): Promise<SessionRef> {
  const side = readMetaJson(path);
  const meta = await withStore(path, (db) => readStoreMeta(db, path));
  const ref: SessionRef = { agent: AGENT, native_id: str(meta.agentId) ?? basename(dirname(path)), path, mtime: mtimeOf(path), kind: 'cli-store' };
  if (str(meta.name)) ref.title = meta.name as string;
  const cwd = str(side?.cwd);
  if (cwd) ref.cwd = cwd;
  if (typeof meta.createdAt === 'number') ref.first_ts = meta.createdAt / 1000;
  return ref;
}

function transcriptRef(path: string): SessionRef {
  return { agent: AGENT, native_id: basename(path, '.jsonl'), path, mtime: mtimeOf(path), kind: 'transcript' };
}

export async function openCursor(path: string): Promise<SessionRef> {
  const { file, composer } = splitLocator(resolve(expandTilde(path)));
  if (!existsSync(file)) throw new UserError('no such file', path);
  if (statSync(file).isDirectory()) {
    if (existsSync(join(file, 'store.db'))) return storeRef(join(file, 'store.db'));
    throw new UserError('is a directory without a store.db', path);
  }
  const kind = kindOf(file);
  if (kind === 'transcript') return transcriptRef(file);
  if (kind === 'cli-store') return storeRef(file);
  if (composer) return { agent: AGENT, native_id: composer, path: `${file}#${composer}`, mtime: mtimeOf(file), kind: 'ide' };
  // The whole global DB: every composer it lists, one canonical session each.
  return { agent: AGENT, native_id: basename(file), path: file, mtime: mtimeOf(file), kind: 'ide' };
}

export async function* discoverCursor(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  if (!existsSync(home) || !statSync(home).isDirectory()) throw new UserError('cannot read the Cursor home (set --home or CURSOR_HOME)', home);
  const found: SessionRef[] = [];
  const stored = new Set<string>();
  const stores = [...dirs(join(home, 'chats')).flatMap((d) => dirs(d)), ...dirs(join(home, 'acp-sessions'))].map((d) => join(d, 'store.db')).filter((p) => existsSync(p));
  for (const path of stores) {
    try {
      const ref = await storeRef(path);
      stored.add(ref.native_id);
      found.push(ref);
    } catch (err) {
      options.onDiagnostic?.(path, (err as Error).message);
    }
  }
  for (const project of dirs(join(home, 'projects'))) {
    const root = join(project, 'agent-transcripts');
    if (!existsSync(root)) continue;
    for (const entry of readdirSync(root, { withFileTypes: true })) {
      const path = entry.isDirectory() ? join(root, entry.name, `${entry.name}.jsonl`) : entry.name.endsWith('.jsonl') ? join(root, entry.name) : undefined;
      if (!path || !existsSync(path)) continue;
      const ref = transcriptRef(path);
      if (!stored.has(ref.native_id)) found.push(ref);
    }
  }
  const ide = options.home === undefined ? defaultIdeDir() : join(home, 'ide');
  const globalDb = join(ide, 'globalStorage', 'state.vscdb');
  if (existsSync(globalDb)) {
    try {
      const workspaceHeads = await readWorkspaceListings(join(ide, 'workspaceStorage'));
      const heads = await withStore(globalDb, (db) => listComposers(db, globalDb, workspaceHeads));
      for (const head of heads) {
        const ref: SessionRef = { agent: AGENT, native_id: head.composerId, path: `${globalDb}#${head.composerId}`, mtime: (head.lastUpdatedAt ?? head.createdAt ?? 0) / 1000, kind: 'ide', listing: head.listing };
        if (head.name) ref.title = head.name;
        if (head.cwd) ref.cwd = head.cwd;
        found.push(ref);
      }
    } catch (err) {
      options.onDiagnostic?.(globalDb, (err as Error).message);
    }
  }
  const wantCwd = options.cwd !== undefined ? resolve(expandTilde(options.cwd)) : undefined;
  const list = found.filter((r) => wantCwd === undefined || (r.cwd !== undefined && resolve(r.cwd) === wantCwd));
  list.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || a.path.localeCompare(b.path));
  yield* list;
}
