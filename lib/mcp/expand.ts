// expand_context over MCP: the original events behind one item of a handoff (lib/compile/expand.ts),
// from a stored session or from an NDJSON file under the read roots, redacted, within the call's
// limits. A file may be anything under a root (an SSH key, a config file), so a line that is not a
// JSON event is reported by its number only, never quoted.
import { splitLines } from '../core/lines.js';
import { parseJsonObject } from '../core/json.js';
import type { SpEvent } from '../core/event.js';
import { expand, type LineSource } from '../compile/expand.js';
import { LimitError, type Budget, type Confinement } from './confine.js';
import { ToolInputError, redactEvents } from './pipeline.js';

/** A canonical session id or a prefix of one (anything else is a path). */
const STORED = /^sess_[A-Za-z0-9_-]*$/;

export interface ExpandArgs {
  session: string;
  item: string;
  store?: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type WithStore = <T>(dir: string | undefined, use: (store: any) => T | Promise<T>) => Promise<T>;

export async function expandContext(args: ExpandArgs, budget: Budget, c: Confinement, withStore: WithStore): Promise<{ json: unknown }> {
  if (args.item.trim() === '') throw new ToolInputError('"item" is empty: pass an item id from the handoff (goal:12, digest:commands …), kind@first-seq or a seq range a-b');
  if (STORED.test(args.session)) {
    return withStore(args.store !== undefined ? c.readable(args.store, 'store') : c.store, async (store) => {
      const id: string = store.resolveSession(args.session);
      const source: LineSource = async function* () {
        for (const line of store.rawLines(id)) {
          budget.check();
          yield { text: line.text, where: `${id}:seq ${line.seq}` };
        }
      };
      return answer(await collect(source, args.item, id, budget, c), args.item);
    });
  }
  if (args.store !== undefined) throw new ToolInputError('"store" applies to a stored session id (sess_…), not to a file');
  const file = await c.openFile(args.session, 'session');
  const source: LineSource = async function* () {
    for await (const line of splitLines(file.chunks(budget))) {
      budget.check();
      if (line.text.trim() === '') continue;
      const parsed = line.invalidUtf8 ? undefined : parseJsonObject(line.text).value;
      if (!parsed || typeof parsed.session !== 'string') throw new ToolInputError(`session: line ${line.number} of ${args.session} is not a canonical event: not a stream of events`);
      yield { text: line.text, where: `line ${line.number}` };
    }
  };
  return answer(await collect(source, args.item, undefined, budget, c), args.item);
}

async function collect(source: LineSource, item: string, session: string | undefined, budget: Budget, c: Confinement) {
  const events: SpEvent[] = [];
  let bytes = 0;
  const run = expand(source, item, session);
  for (let next = await run.next(); ; next = await run.next()) {
    if (next.done) return { result: next.value, events };
    budget.event();
    bytes += Buffer.byteLength(next.value);
    if (bytes > c.limits.maxBytes) throw new LimitError(`the events of ${item} are over the limit of ${c.limits.maxBytes} bytes per call (--max-bytes): expand a narrower item or seq range`);
    events.push(JSON.parse(next.value) as SpEvent);
  }
}

async function answer(found: Awaited<ReturnType<typeof collect>>, item: string): Promise<{ json: unknown }> {
  const { result, events } = found;
  return {
    json: {
      session: result.session,
      item,
      compiled_seq: result.compiledSeq,
      seqs: result.seqs,
      // The seqs the item names that are not in the log (cut, or on another machine's chain).
      missing: result.seqs.filter((s) => !events.some((e) => e.seq === s)).slice(0, 100),
      events: await redactEvents(events),
    },
  };
}
