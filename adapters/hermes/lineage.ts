// Session lineage (docs/formats/hermes.md §5, §8.1): `parent_session_id` links a child to its parent.
// What kind of child it is decides how Hermes treats it: a compression continuation (the parent
// ended with `compression`) is where `hermes --resume <parent>` continues; delegate/subagent runs
// (`model_config._delegate_from`), /branch forks (`_branched_from`, or a parent that ended
// `branched`), resets (`_reset_from`, v30) and tool sessions are separate conversations.
// Everything here is point queries on indexed columns, so a large database costs nothing extra.
import { prepared, type Db } from '../../lib/capture/sqlite.js';

export type ChildKind = 'compression' | 'delegate' | 'branch' | 'reset' | 'tool' | 'child';

export interface LinkRow {
  id: string;
  parent_session_id: string | null;
  source: string | null;
  model_config: string | null;
  end_reason: string | null;
  started_at: number | null;
}

export interface Lineage {
  /** How this session relates to its parent (absent for a root). */
  kind?: ChildKind;
  parent?: string;
  /** Native ids from the root down to this session. */
  chain: string[];
  root: string;
  children: Array<{ id: string; kind: ChildKind; started_at?: number }>;
  /** Where `hermes --resume` continues: the newest compression continuation, followed down. */
  compression_tip: string;
}

function markers(modelConfig: string | null): Record<string, unknown> {
  if (!modelConfig) return {};
  try {
    const value: unknown = JSON.parse(modelConfig);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function kindOf(child: LinkRow, parent: LinkRow | undefined): ChildKind {
  const config = markers(child.model_config);
  if (config._delegate_from !== undefined || child.source === 'subagent' || child.source === 'delegate') return 'delegate';
  if (config._branched_from !== undefined || parent?.end_reason === 'branched') return 'branch';
  if (config._reset_from !== undefined) return 'reset';
  if (child.source === 'tool') return 'tool';
  if (parent?.end_reason === 'compression') return 'compression';
  return 'child';
}

export class LineageReader {
  private readonly byId;
  private readonly byParent;
  private readonly cache = new Map<string, LinkRow | undefined>();

  constructor(db: Db, columns: string[]) {
    const has = (c: string) => columns.includes(c);
    const cols = ['id', 'parent_session_id', 'source', 'model_config', 'end_reason', 'started_at'].map((c) => (has(c) ? c : `NULL AS ${c}`)).join(', ');
    this.byId = prepared(db, `SELECT ${cols} FROM sessions WHERE id = ?`);
    this.byParent = has('parent_session_id') ? prepared(db, `SELECT ${cols} FROM sessions WHERE parent_session_id = ? ORDER BY started_at, id`) : undefined;
  }

  get(id: string): LinkRow | undefined {
    if (!this.cache.has(id)) this.cache.set(id, this.byId.get(id) as LinkRow | undefined);
    return this.cache.get(id);
  }

  childrenOf(id: string): LinkRow[] {
    return this.byParent ? (this.byParent.all(id) as LinkRow[]) : [];
  }

  /** Root first, this session last; a parent loop or a missing parent ends the walk. */
  chain(id: string): string[] {
    const out = [id];
    const seen = new Set(out);
    let row = this.get(id);
    while (row?.parent_session_id && !seen.has(row.parent_session_id)) {
      const parent = this.get(row.parent_session_id);
      if (!parent) break;
      out.unshift(parent.id);
      seen.add(parent.id);
      row = parent;
    }
    return out;
  }

  tip(id: string): string {
    let at = id;
    const seen = new Set([at]);
    for (;;) {
      const row = this.get(at);
      const next = this.childrenOf(at)
        .filter((c) => kindOf(c, row) === 'compression' && !seen.has(c.id))
        .pop();
      if (!next) return at;
      at = next.id;
      seen.add(at);
    }
  }

  lineage(id: string): Lineage {
    const row = this.get(id);
    const chain = this.chain(id);
    const parent = row?.parent_session_id ? this.get(row.parent_session_id) : undefined;
    const out: Lineage = { chain, root: chain[0], children: [], compression_tip: this.tip(id) };
    if (row?.parent_session_id) {
      out.parent = row.parent_session_id;
      out.kind = kindOf(row, parent);
    }
    for (const child of this.childrenOf(id)) {
      const entry: Lineage['children'][number] = { id: child.id, kind: kindOf(child, row) };
      if (typeof child.started_at === 'number') entry.started_at = child.started_at;
      out.children.push(entry);
    }
    return out;
  }

  /** Every session of the lineage tree `id` belongs to: from its root, parents before children. */
  tree(id: string): string[] {
    const root = this.chain(id)[0];
    const out: string[] = [];
    const seen = new Set<string>();
    const visit = (at: string) => {
      if (seen.has(at)) return;
      seen.add(at);
      out.push(at);
      for (const child of this.childrenOf(at)) visit(child.id);
    };
    visit(root);
    return out;
  }
}
