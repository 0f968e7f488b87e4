// Hermes Agent's shell hooks (docs/formats/hermes.md "Hooks"): a top-level `hooks:` mapping in
// <HERMES_HOME>/config.yaml, event name → list of `{command, timeout}`; Hermes runs each command
// (split like a POSIX shell line, no shell) with a JSON payload on stdin naming `session_id` and
// `cwd`. sp registers for on_session_end (a turn of run_conversation ended) and on_session_finalize
// (the CLI or gateway tears the session down). Hermes asks the user once per (event, command)
// before it runs a new hook (or --accept-hooks / HERMES_ACCEPT_HOOKS=1): sp does not answer that
// question for the user.
//
// sp carries no YAML library, so it edits config.yaml only where that is safe without one: it
// appends its own block (a marked top-level `hooks:` mapping) to a block-style file that has no
// top-level `hooks` key yet, and removes exactly that block again. A file that already has `hooks:`
// (the user's own hooks), is flow-style, or holds several documents is refused with nothing written,
// and the message says what to add by hand.
import { join } from 'node:path';
import { UserError } from '../../lib/cli/diagnostics.js';
import { HOOK_SCRIPT, type HookCommand, type HookInstaller } from '../../lib/hooks/install.js';

const MARK = '# sp hooks: capture each Hermes turn into the sp store (added by `sp hooks install hermes`, removed by `sp hooks uninstall hermes`)';
const EVENTS = ['on_session_end', 'on_session_finalize'];
/** A top-level `hooks` key, plain or quoted. */
const TOP_HOOKS = /^(?:hooks|"hooks"|'hooks')[ \t]*:/m;
/** sp's block: the mark line and the indented lines under its `hooks:` (what remove() takes out). */
const BLOCK = new RegExp(`(?:\\r?\\n)?${MARK.replace(/[.*+?^${}()|[\]\\`]/g, '\\$&')}\\r?\\nhooks:\\r?\\n(?:[ \\t]+.*(?:\\r?\\n|$))*`);

function entries(command: HookCommand): string {
  // YAML double-quoted scalars accept JSON string syntax.
  return EVENTS.map((event) => `  ${event}:\n    - command: ${JSON.stringify(command.shell)}\n      timeout: 10\n`).join('');
}

/** Refuses what sp cannot append to safely without a YAML parser. */
function check(text: string, file: string, command?: HookCommand): void {
  const content = text.split(/\r?\n/).filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
  const hint = command ? `; to add by hand, under hooks: ${EVENTS.join(' and ')} each get - command: ${JSON.stringify(command.shell)}` : '';
  if (content.length > 0 && /^[{[]/.test(content[0].trim())) throw new UserError(`is flow-style YAML: sp appends only to a block-style config; nothing changed${hint}`, file);
  if (content.slice(1).some((line) => /^(?:---|\.\.\.)(?:\s|$)/.test(line))) throw new UserError(`holds more than one YAML document; nothing changed${hint}`, file);
  if (content.some((line) => line.includes('\t') && /^\t/.test(line))) throw new UserError(`is indented with tabs (not YAML); nothing changed`, file);
  if (TOP_HOOKS.test(text.replace(BLOCK, ''))) throw new UserError(`already has a top-level hooks: mapping (the user's own); sp edits it only with a YAML parser, which it does not carry: nothing changed${hint}`, file);
}

export const hermesHooks: HookInstaller = {
  agent: 'hermes',
  displayName: 'Hermes Agent',
  verifiedWith: 'documented shell hooks (payloads only: no client here)',
  mechanism: 'config.yaml shell hooks: on_session_end, on_session_finalize (stdin names session_id)',
  installNote: 'Hermes asks once to approve each new hook (or run it with --accept-hooks)',
  file: (home) => join(home, 'config.yaml'),
  has: (text) => BLOCK.test(text) && text.includes(HOOK_SCRIPT),
  add(text, command, file) {
    const current = text ?? '';
    if (BLOCK.test(current)) return current;
    check(current, file, command);
    const eol = current.includes('\r\n') ? '\r\n' : '\n';
    const block = `${MARK}\nhooks:\n${entries(command)}`.replace(/\n/g, eol);
    if (current.trim() === '') return block;
    return current + (current.endsWith('\n') ? '' : eol) + eol + block;
  },
  remove: (text) => text.replace(BLOCK, ''),
};
