// Reversible compaction: every item of a handoff, kept or cut, points at the events it stands for
// (`seqs`, or seq ranges for grouped cuts), so the next agent can pull the detail back on demand.
// `sp-compile --expand ITEM` finds the session's last context.compiled event, resolves ITEM (an
// item id such as `goal:12`, `digest:commands`, a dropped group `kind@first`, or a range `a-b`) to
// seqs, and prints the original events with those seqs, as they are in the log.
import { UserError } from '../cli/diagnostics.js';
import { parseJsonObject } from '../core/json.js';

export type LineSource = () => AsyncIterable<{ text: string; where: string }>;

type Entry = Record<string, unknown>;

/** The event types a loss group of the compiled event stands for. */
const LOSS_TYPES: Record<string, Set<string>> = {
  thinking: new Set(['message.thinking']),
  'tool-output': new Set(['tool.result']),
  image: new Set(['message.user', 'message.assistant', 'tool.result']),
};

/** The seqs an item names: its own, a digest's items', or a group's ranges. */
function seqsOf(entry: Entry, all: Map<string, Entry>): number[] {
  const out: number[] = [];
  if (Array.isArray(entry.seqs)) {
    for (const s of entry.seqs) {
      if (typeof s === 'number') out.push(s);
      else if (Array.isArray(s) && typeof s[0] === 'number' && typeof s[1] === 'number') for (let n = s[0]; n <= s[1] && n - s[0] < 1_000_000; n += 1) out.push(n);
    }
  }
  const detail = entry.items;
  if (Array.isArray(detail)) for (const id of detail) if (typeof id === 'string' && all.has(id)) out.push(...seqsOf(all.get(id)!, new Map()));
  return out;
}

/** The item ids of a compiled payload (kept and dropped), and `kind@first` names for grouped cuts. */
function entries(payload: Entry): Map<string, Entry> {
  const all = new Map<string, Entry>();
  const list = [...(Array.isArray(payload.items) ? payload.items : []), ...(Array.isArray(payload.dropped) ? payload.dropped : [])] as Entry[];
  for (const entry of list) {
    if (typeof entry.id === 'string') all.set(entry.id, entry);
    else if (typeof entry.kind === 'string' && Array.isArray(entry.seqs) && Array.isArray(entry.seqs[0])) all.set(`${entry.kind}@${(entry.seqs[0] as number[])[0]}`, entry);
  }
  return all;
}

export interface ExpandResult {
  session: string;
  compiledSeq: number;
  seqs: number[];
}

/**
 * Resolves `item` against the last context.compiled event of `session` (or of the only session) in
 * the lines, then yields the lines of the events it names, in log order.
 */
export async function* expand(source: LineSource, item: string, wanted?: string): AsyncGenerator<string, ExpandResult> {
  let compiled: { session: string; seq: number; payload: Entry } | undefined;
  const sessions = new Set<string>();
  for await (const line of source()) {
    if (!line.text.trim()) continue;
    const parsed = parseJsonObject(line.text);
    if (!parsed.value) throw new UserError(parsed.reason ?? 'not a JSON object', line.where);
    const e = parsed.value;
    if (typeof e.session !== 'string') continue;
    sessions.add(e.session);
    if (e.type === 'context.compiled' && (!wanted || e.session === wanted) && typeof e.seq === 'number') compiled = { session: e.session, seq: e.seq, payload: (e.payload ?? {}) as Entry };
  }
  if (!compiled) throw new UserError(wanted ? `no context.compiled event of session ${wanted}: compile it first` : 'no context.compiled event in the input: expand reads the output of sp-compile (or a stored session that holds one)', 'input');
  let seqs: number[];
  let types: Set<string> | undefined;
  const range = /^(\d+)(?:[-–](\d+))?$/.exec(item);
  const all = entries(compiled.payload);
  if (range) {
    const a = Number(range[1]);
    const b = range[2] === undefined ? a : Number(range[2]);
    if (b < a || b - a > 1_000_000) throw new UserError(`not a range of seqs: ${item}`, '--expand');
    seqs = Array.from({ length: b - a + 1 }, (_, i) => a + i);
  } else {
    const entry = all.get(item);
    if (!entry) {
      const near = [...all.keys()].filter((k) => k.split(':')[0] === item.split(':')[0] || k.startsWith(item)).slice(0, 8);
      throw new UserError(`no item ${JSON.stringify(item)} in the handoff (seq ${compiled.seq})${near.length ? `; items like it: ${near.join(', ')}` : ''}`, '--expand');
    }
    seqs = seqsOf(entry, all);
    // A group of what is never carried spans other events too: only its own kind is shown.
    if (typeof entry.id !== 'string' && typeof entry.kind === 'string') types = LOSS_TYPES[entry.kind];
    if (seqs.length === 0) throw new UserError(`item ${item} names no events (it was observed at compile time, not read from the log)`, '--expand');
  }
  const want = new Set(seqs);
  for await (const line of source()) {
    if (!line.text.trim()) continue;
    const e = parseJsonObject(line.text).value;
    if (e && e.session === compiled.session && typeof e.seq === 'number' && want.has(e.seq) && (!types || types.has(String(e.type)))) yield line.text;
  }
  return { session: compiled.session, compiledSeq: compiled.seq, seqs: [...want].sort((a, b) => a - b) };
}
