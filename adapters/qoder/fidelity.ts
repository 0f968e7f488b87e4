// What each canonical event type keeps through the Qoder CLI adapter (docs/design.md §3). Qoder's transcript
// is Claude Code's format plus a few record types, so capture and write go through that format's
// code (lib/formats/claude-code/); only the differences are named here.
import type { FidelityTable } from '../../lib/adapter/interface.js';
import { fidelity as claude } from '../../lib/formats/claude-code/fidelity.js';
import { levelsOf } from '../../lib/adapter/fidelity.js';

export const fidelity: FidelityTable = {
  ...claude,
  'session.start': {
    level: 0,
    capture: 'as Claude Code: native id, cwd, git branch, client version (Qoder’s), first model (a tier alias), title',
    materialize: 'cwd picks the project folder under ~/.qoder/projects; a new session id; a runtime-config head line',
  },
  'message.assistant': {
    level: 0,
    capture: 'as Claude Code (message.model is a Qoder tier alias: auto, efficient, ultimate …)',
    materialize: 'as Claude Code, message.model a tier alias (auto unless the source is Qoder or --model names one)',
  },
  meta: {
    level: 2,
    capture: 'as Claude Code, plus Qoder’s runtime-config, workspace-directories, active-leaf records (key qoder.<type>, raw record)',
    materialize: 'written back only from raw lines (--same-id --raw); a fresh runtime-config head and active-leaf are written',
  },
};

/** The level capture puts on an event of `type`: the fidelity table's. */
export const levelOf = levelsOf(fidelity);
