// What each canonical event type keeps through the Gemini CLI adapter (docs/design.md §3): `level` is the
// lowest fidelity level at which the event carries over (0 history, 1 working context, 2 native).
import type { FidelityTable } from '../../lib/adapter/interface.js';
import { levelsOf } from '../../lib/adapter/fidelity.js';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 0,
    capture: 'session id, project root (from .project_root / projects.json), projectHash, startTime, kind, first model, summary as title, file format (jsonl or legacy json)',
    materialize: 'a metadata line with a new session id, projectHash = sha256(root), startTime/lastUpdated = import time (the 30-day clean-up keeps it), kind main; the project registered with new files only',
  },
  'message.user': {
    level: 0,
    capture: 'text and inlineData image parts; <session_context> messages and UI notices are meta',
    materialize: 'a user message with text and inlineData parts (a text the client would skip, starting with / or ?, is prefixed with U+200B)',
  },
  'message.assistant': {
    level: 0,
    capture: 'the text of a gemini message once (rewrites add only changed text), model, tokens as usage',
    materialize: 'a gemini message per model step (text, thoughts, toolCalls), model set',
  },
  'message.thinking': {
    level: 1,
    capture: 'thought summaries {subject, description} (visibility summary); thought parts in content',
    materialize: 'thoughts [{subject, description}] on the gemini message (the client does not send them back)',
  },
  'tool.call': {
    level: 0,
    capture: 'toolCalls[] entries (id with its <tool>__ prefix, name, args, display fields in extra) and functionCall parts, each once',
    materialize: 'a toolCalls[] entry with id <tool>__<call id>, args and its result',
  },
  'tool.result': {
    level: 0,
    capture: 'the result once (toolCalls[].result, else the user functionResponse copy): output or error text, status and resultDisplay as structured',
    materialize: 'toolCalls[].result only (never also a user functionResponse message); unanswered calls get a stub result',
  },
  meta: {
    level: 2,
    capture: 'metadata lines after the first, $set patches (message lists as ids), $rewindTo, <session_context>, info/error/warning notices, rewritten records that add nothing, unknown records whole, unparseable lines as text',
    materialize: 'not written (the client makes its own context message and patches)',
  },
};

/** The level capture puts on an event of `type`: the fidelity table's. */
export const levelOf = levelsOf(fidelity);
