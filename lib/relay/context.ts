// Context mode of the relay: the input ends with a `context.compiled` event (sp-compile), so the
// target gets a NEW, short session: the compiled handoff as its first user message, then the most
// recent turns verbatim, as many whole turns as the compiled budget leaves room for. A turn is a
// user message and everything up to the next one (assistant messages, thinking, tool calls and
// their results), so a call is never kept without its result; no turn before the last compaction is
// kept (the client would drop the handoff with it). Everything older is covered by the handoff: the
// ledger lists it as dropped, code `summarized`.
//
// The kept events are renumbered from 0 (session.start, handoff, turns) so writers see one ordered
// stream; `sourceSeq` maps each new seq back to the source event for the ledger.
import type { SpEvent } from '../core/event.js';
import { isObject } from '../core/json.js';

export interface ContextSession {
  /** The events to write, renumbered. */
  events: SpEvent[];
  /** New seq → source seq (the handoff maps to the context.compiled event). */
  sourceSeq: Map<number, number>;
  /** Source events the handoff stands for (not written). */
  summarized: SpEvent[];
  /** Turns kept verbatim, their tokens, and the room the budget left for them. */
  turns: number;
  turnTokens: number;
  room: number;
}

/** The fields of a context.compiled payload the relay uses. */
export interface Compiled {
  text: string;
  budget: number;
  tokens: number;
  tokenizer?: string;
}

export function compiledOf(event: SpEvent): Compiled | undefined {
  const p = isObject(event.payload) ? event.payload : undefined;
  if (!p || typeof p.text !== 'string' || typeof p.budget !== 'number') return undefined;
  return { text: p.text, budget: p.budget, tokens: typeof p.tokens === 'number' ? p.tokens : 0, tokenizer: typeof p.tokenizer === 'string' ? p.tokenizer : undefined };
}

/** Roughly what an image costs a model (Claude ~1.6k tokens for a 1 MP image); counted, never sent to a tokenizer. */
const IMAGE_TOKENS = 1_600;

/** The text of an event as the model would read it (images counted apart), for the token count. */
export function modelText(event: SpEvent): { text: string; images: number } {
  const p = isObject(event.payload) ? event.payload : {};
  const parts: string[] = [];
  let images = 0;
  const content = (value: unknown): void => {
    if (typeof value === 'string') parts.push(value);
    else if (Array.isArray(value)) {
      for (const block of value) {
        if (!isObject(block)) continue;
        if (block.type === 'image') images += 1;
        else if (typeof block.text === 'string') parts.push(block.text);
      }
    }
  };
  switch (event.type) {
    case 'message.user':
    case 'message.assistant':
      content(p.content);
      break;
    case 'message.thinking':
      if (typeof p.text === 'string') parts.push(p.text);
      break;
    case 'tool.call':
      parts.push(String(p.name ?? ''), typeof p.input === 'string' ? p.input : JSON.stringify(p.input ?? null));
      break;
    case 'tool.result':
      content(p.content);
      break;
    default:
      break;
  }
  return { text: parts.join('\n'), images };
}

/** A compaction: the client drops what came before it (a checkpoint event, Claude's compact boundary). */
export function isCompaction(event: SpEvent): boolean {
  if (event.type === 'checkpoint') return true;
  return event.type === 'meta' && isObject(event.payload) && typeof event.payload.key === 'string' && event.payload.key.endsWith('compact_boundary');
}

/** Start indexes of the turns: each message.user that is not derived. */
function turnStarts(events: SpEvent[]): number[] {
  const starts: number[] = [];
  events.forEach((e, i) => {
    if (e.type === 'message.user' && (e.derived_from === undefined || e.derived_from === null)) starts.push(i);
  });
  return starts;
}

/**
 * Builds the context-mode session from one session's events (seq order, the compiled event not
 * among them). `count` measures text in the compiled handoff's tokenizer.
 */
export function contextSession(events: SpEvent[], compiledEvent: SpEvent, compiled: Compiled, count: (text: string) => number): ContextSession {
  const room = Math.max(0, compiled.budget - compiled.tokens);
  const starts = turnStarts(events);
  // Whole turns from the newest back, while they fit, and never across a compaction: a client drops
  // what comes before one, and the handoff would go with it.
  let keepFrom = events.length;
  let used = 0;
  let turns = 0;
  for (let t = starts.length - 1; t >= 0; t -= 1) {
    const end = t + 1 < starts.length ? starts[t + 1] : events.length;
    if (events.slice(starts[t], end).some(isCompaction)) break;
    let cost = 0;
    for (let i = starts[t]; i < end; i += 1) {
      const { text, images } = modelText(events[i]);
      cost += (text ? count(text) : 0) + images * IMAGE_TOKENS;
      if (used + cost > room) break;
    }
    if (used + cost > room) break;
    used += cost;
    keepFrom = starts[t];
    turns += 1;
  }

  const starts0 = events.filter((e, i) => i < keepFrom && e.type === 'session.start');
  const summarized = events.filter((e, i) => i < keepFrom && e.type !== 'session.start');
  const kept = events.slice(keepFrom);
  const first = kept[0] ?? compiledEvent;
  const handoff: SpEvent = {
    session: compiledEvent.session,
    seq: 0,
    ts: Math.min(first.ts ?? compiledEvent.ts, compiledEvent.ts ?? first.ts),
    agent: compiledEvent.agent ?? starts0[0]?.agent ?? first.agent,
    type: 'message.user',
    actor: 'user',
    payload: { content: [{ type: 'text', text: compiled.text }] },
  };

  const ordered = [...starts0, handoff, ...kept];
  const newSeq = new Map<number, number>();
  const sourceSeq = new Map<number, number>();
  ordered.forEach((e, i) => {
    if (e !== handoff) newSeq.set(e.seq, i);
    sourceSeq.set(i, e === handoff ? compiledEvent.seq : e.seq);
  });
  const out = ordered.map((e, i) => {
    const copy: SpEvent = { ...e, seq: i };
    delete copy.checksum; // renumbered: the source chain no longer applies
    if (typeof e.parent_seq === 'number') {
      const parent = newSeq.get(e.parent_seq);
      if (parent !== undefined && parent < i) copy.parent_seq = parent;
      else delete copy.parent_seq; // it followed a summarized event: it follows the handoff now
    } else if (e.parent_seq === null && e !== handoff && i > 0 && e.type !== 'session.start') {
      delete copy.parent_seq; // a root after the cut (a compaction) continues from the handoff
    }
    if (typeof e.derived_from === 'number') {
      const from = newSeq.get(e.derived_from);
      if (from !== undefined) copy.derived_from = from;
      else delete copy.derived_from;
    }
    return copy;
  });
  return { events: out, sourceSeq, summarized, turns, turnTokens: used, room };
}
