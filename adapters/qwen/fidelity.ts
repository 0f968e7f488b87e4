// What each canonical event type keeps through the Qwen Code adapter (docs/design.md §3): `level` is the
// lowest fidelity level at which the event carries over (0 history, 1 working context, 2 native).
import type { FidelityTable } from '../../lib/adapter/interface.js';
import { levelsOf } from '../../lib/adapter/fidelity.js';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 0,
    capture: 'session id, cwd, client version, git branch, first model, custom title',
    materialize: 'cwd picks the project folder and is on every record; a new session id',
  },
  'message.user': {
    level: 0,
    capture: 'text and inlineData parts of user records, subtype and systemPayload in extra',
    materialize: 'a user record {role:"user", parts}',
  },
  'message.assistant': {
    level: 0,
    capture: 'text parts of assistant records (fragments with one uuid each give their own events), model, usageMetadata as usage',
    materialize: 'text parts of an assistant record {role:"model"}',
  },
  'message.thinking': {
    level: 1,
    capture: '{text, thought:true} parts',
    materialize: '{text, thought:true} parts (the client sends them back as reasoning_content)',
  },
  'tool.call': {
    level: 0,
    capture: 'functionCall parts (id, name, args)',
    materialize: 'functionCall parts with the call id',
  },
  'tool.result': {
    level: 0,
    capture: 'functionResponse parts (output or error), toolCallResult as structured',
    materialize: 'one tool_result record per call with a matching functionResponse id; unanswered calls get a stub',
  },
  meta: {
    level: 2,
    capture: 'system records (ui_telemetry, attribution_snapshot, chat_compression, custom_title, rewind …) and unknown records whole; unparseable lines as text',
    materialize: 'not written',
  },
};

/** The level capture puts on an event of `type`: the fidelity table's. */
export const levelOf = levelsOf(fidelity);
