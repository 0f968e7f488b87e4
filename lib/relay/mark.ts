// The mark a relay (lib/relay/translate.ts) puts on events it wrote for another agent, and the test
// writers use to honour its hints (e.g. Codex `tool_kind` on a translated apply_patch).
import type { SpEvent } from '../core/event.js';
import { isObject } from '../core/json.js';

/** `payload.relay` of an event a relay translated, rendered or added. */
export interface RelayMark {
  target: string;
  source: string;
  /** The source tool a translated call or result came from. */
  from?: string;
  /** Set on the header message. */
  header?: true;
}

/** Whether a relay translated this event for `agent`. */
export function relayedFor(event: SpEvent, agent: string): boolean {
  const p = isObject(event.payload) ? event.payload : {};
  return isObject(p.relay) && p.relay.target === agent;
}
