// `capture` for Qoder CLI: its transcript is Claude Code's (docs/formats/qoder.md §4), so the format's
// capture (lib/formats/claude-code/capture.ts) reads it, and every event is then named as Qoder's:
// agent, actor, origin, the canonical session ids (deterministic from ("qoder", native id)), and meta keys `qoder.<type>` (Qoder's own
// runtime-config, workspace-directories and active-leaf records arrive there, whole). The cursor
// passes through unchanged, so incremental capture works as it does for Claude Code.
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { canonicalSessionId, type SpEvent } from '../../lib/core/event.js';
import { isObject } from '../../lib/core/json.js';
import { captureTranscript } from '../../lib/formats/claude-code/capture.js';
import { listSubagentFiles } from '../../lib/formats/claude-code/discover.js';
import { layoutOf, subagentNativeId } from '../../lib/formats/claude-code/paths.js';
import { AGENT } from './discover.js';

/** Claude canonical session id → Qoder's, for the sessions of one capture. */
class SessionNames {
  private readonly map = new Map<string, string>();

  /** A session known before its first event (a subagent a fork points at). */
  add(nativeId: string): void {
    this.map.set(canonicalSessionId('claude', nativeId), canonicalSessionId(AGENT, nativeId));
  }

  note(event: SpEvent): void {
    const native = event.origin?.native_id;
    if (typeof native === 'string' && !this.map.has(event.session)) this.map.set(event.session, canonicalSessionId(AGENT, native));
  }

  rename(session: string): string {
    return this.map.get(session) ?? session;
  }
}

export function asQoderEvent(event: SpEvent, names: SessionNames): SpEvent {
  names.note(event);
  const out: SpEvent = { ...event, agent: AGENT, session: names.rename(event.session) };
  if (event.actor === 'agent:claude') out.actor = `agent:${AGENT}`;
  if (event.origin) out.origin = { ...event.origin, agent: AGENT };
  const payload = isObject(event.payload) ? { ...event.payload } : event.payload;
  if (isObject(payload)) {
    if (event.type === 'meta' && typeof payload.key === 'string' && payload.key.startsWith('claude.')) payload.key = `qoder.${payload.key.slice('claude.'.length)}`;
    if (typeof payload.parent_session === 'string') payload.parent_session = names.rename(payload.parent_session);
    if (event.type === 'session.fork' && typeof payload.to_session === 'string') payload.to_session = names.rename(payload.to_session);
    if (event.type === 'session.fork' && typeof payload.from_session === 'string') payload.from_session = names.rename(payload.from_session);
  }
  out.payload = payload;
  return out;
}

export async function* captureQoder(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const names = new SessionNames();
  // Child sessions (subagents) are named before the fork events that point at them.
  names.add(ref.native_id);
  const layout = layoutOf(ref.path);
  if (layout.subagent) names.add(layout.subagent.parentNativeId);
  else for (const f of listSubagentFiles(ref.path)) names.add(subagentNativeId(ref.native_id, f.agentId));
  for await (const event of captureTranscript({ ...ref, agent: 'claude' }, options)) yield asQoderEvent(event, names);
}
