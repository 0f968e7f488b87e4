// A compact view of captured events for the golden tests: type, the native record, and what matters of the payload.
import type { SpEvent } from '../../lib/core/event.js';

export function view(event: SpEvent): string {
  const p = event.payload as Record<string, any>;
  const at = event.origin?.native_seq !== undefined ? `@${event.origin.path?.endsWith('ui_messages.json') ? 'ui' : 'api'}${event.origin.native_seq}` : '';
  const text = (content: any): string =>
    typeof content === 'string' ? content : (content as any[]).map((b) => (b.type === 'text' ? b.text : `[${b.type} ${b.media_type}]`)).join(' | ');
  switch (event.type) {
    case 'message.user':
    case 'message.assistant':
      return `${event.type}${at} ${text(p.content)}`;
    case 'message.thinking':
      return `${event.type}${at} ${p.visibility} ${p.text}${p.opaque ? ` opaque=${p.opaque}` : ''}`;
    case 'tool.call':
      return `${event.type}${at} ${p.call_id} ${p.name} ${JSON.stringify(p.input)}`;
    case 'tool.result':
      return `${event.type}${at} ${p.call_id}${p.is_error ? ' error' : ''} ${text(p.content)}`;
    case 'checkpoint':
      return `${event.type}${at} ${p.hash}`;
    case 'meta':
      return `${event.type}${at} ${p.key}`;
    default:
      return event.type;
  }
}
