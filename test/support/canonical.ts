// Hand-built canonical sessions for writer tests: the shapes the capture side emits, without
// depending on a capture (session.start, messages, tool calls and results, thinking, meta).
import type { SpEvent } from '../../lib/core/event.js';

export class SessionBuilder {
  readonly events: SpEvent[] = [];
  private ts: number;
  /** The model capture puts on every event of an assistant message (none when the session names none). */
  readonly model: string | undefined;

  constructor(
    readonly agent = 'claude',
    readonly session = 'sess_test',
    start: Record<string, unknown> = {},
    ts = 1_764_480_000,
  ) {
    this.ts = ts;
    this.model = 'model' in start ? (start.model as string | undefined) : 'claude-opus-4-8';
    this.add('session.start', { native_id: '11111111-2222-4333-8444-555555555555', cwd: '/tmp/sp-test-project', git_branch: 'main', model: 'claude-opus-4-8', ...start });
  }

  add(type: string, payload: Record<string, unknown>, extra: Partial<SpEvent> = {}): SpEvent {
    this.ts += 1;
    const event: SpEvent = { session: this.session, seq: this.events.length, ts: this.ts, agent: this.agent, type, payload, ...extra };
    this.events.push(event);
    return event;
  }

  /** A prompt; Claude's capture marks prompts that were a plain string in the native line. */
  user(text: string, extra: Record<string, unknown> = {}): SpEvent {
    return this.add('message.user', { content: [{ type: 'text', text }], ...(this.agent === 'claude' ? { string_content: true } : {}), ...extra });
  }

  private modelField(): Record<string, unknown> {
    return this.model ? { model: this.model } : {};
  }

  assistant(text: string, message_id?: string, extra: Record<string, unknown> = {}): SpEvent {
    return this.add('message.assistant', { content: [{ type: 'text', text }], ...(message_id ? { message_id } : {}), ...this.modelField(), ...extra });
  }

  thinking(text: string, extra: Record<string, unknown> = {}): SpEvent {
    return this.add('message.thinking', { text, visibility: 'visible', ...this.modelField(), ...extra });
  }

  call(call_id: string, name: string, input: unknown, message_id?: string, extra: Record<string, unknown> = {}): SpEvent {
    return this.add('tool.call', { call_id, name, input, ...(message_id ? { message_id } : {}), ...this.modelField(), ...extra });
  }

  result(call_id: string, content: unknown, extra: Record<string, unknown> = {}): SpEvent {
    return this.add('tool.result', { call_id, content, ...extra });
  }

  meta(key: string, raw?: unknown, extra: Record<string, unknown> = {}): SpEvent {
    return this.add('meta', { key, ...(raw === undefined ? {} : { raw }), ...extra });
  }
}

export async function* from<T>(items: Iterable<T>): AsyncGenerator<T> {
  for (const item of items) yield item;
}
