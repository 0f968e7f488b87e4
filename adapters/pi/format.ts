// Facts about Pi's session format shared by capture, discovery and the writer (formats/pi.md):
// the texts the client sends for summaries and `!cmd` runs, the header check, the stop reasons.
import { isObject, type Json } from '../../lib/core/json.js';

export const CURRENT_VERSION = 3;

/** What the client wraps a compaction summary / branch summary in when it sends it (core/messages). */
export const COMPACTION_PREFIX = 'The conversation history before this point was compacted into the following summary:\n\n<summary>\n';
export const COMPACTION_SUFFIX = '\n</summary>';
export const BRANCH_SUMMARY_PREFIX = 'The following is a summary of a branch that this conversation came back from:\n\n<summary>\n';
export const BRANCH_SUMMARY_SUFFIX = '</summary>';

/** The text stopReasons the client writes; `error` and `aborted` turns are never replayed. */
export const STOP_REASONS = new Set(['stop', 'length', 'toolUse', 'error', 'aborted']);

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A line 1 the client accepts: `{type:"session", id:<string>}` (anything else makes it rewrite the file). */
export function isHeader(value: unknown): value is Json & { type: 'session'; id: string } {
  return isObject(value) && value.type === 'session' && typeof value.id === 'string';
}

/** The header's format version: a missing one means v1 (the client migrates from there). */
export function versionOf(header: Json | undefined): number {
  const v = header?.version;
  return typeof v === 'number' && Number.isFinite(v) ? v : 1;
}

/** The user-message text the client sends for a `!cmd` run (bashExecution), byte for byte. */
export function bashExecutionText(m: Json): string {
  let text = `Ran \`${String(m.command ?? '')}\`\n`;
  text += m.output ? `\`\`\`\n${String(m.output)}\n\`\`\`` : '(no output)';
  if (m.cancelled) text += '\n\n(command cancelled)';
  else if (m.exitCode !== null && m.exitCode !== undefined && m.exitCode !== 0) text += `\n\nCommand exited with code ${String(m.exitCode)}`;
  if (m.truncated && m.fullOutputPath) text += `\n\n[Output truncated. Full output: ${String(m.fullOutputPath)}]`;
  return text;
}

/** Text of a Pi content value (a string, or blocks of which the text ones count). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string')
    .map((b) => (b as { text: string }).text)
    .join('\n');
}
