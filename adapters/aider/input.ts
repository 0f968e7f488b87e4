// `.aider.input.history` (docs/formats/aider.md §4): prompt_toolkit entries `# <datetime>` then one
// `+<line>` per input line. It gives user turns the per-prompt times the chat file lacks.
import { existsSync } from 'node:fs';
import { sourceLines } from '../../lib/capture/read-position.js';
import { statSync } from 'node:fs';
import { parseLocalStamp } from './paths.js';

export interface InputEntry {
  text: string;
  ts: number;
  /** Line of the entry's `# <datetime>` header. */
  line: number;
}

/** Entries in file order (oldest first); lines that are neither header nor `+` text are skipped. */
export async function readInputHistory(path: string, onOther?: (line: number, text: string) => void): Promise<InputEntry[]> {
  const out: InputEntry[] = [];
  if (!existsSync(path)) return out;
  let current: { ts: number; line: number; lines: string[] } | undefined;
  const flush = (): void => {
    if (current && current.lines.length > 0) out.push({ text: current.lines.join('\n'), ts: current.ts, line: current.line });
    current = undefined;
  };
  for await (const line of sourceLines(path, 0, statSync(path).size, 1)) {
    if (line.text.startsWith('# ')) {
      flush();
      const ts = parseLocalStamp(line.text.slice(2));
      if (ts !== undefined) current = { ts, line: line.number, lines: [] };
      else onOther?.(line.number, line.text);
    } else if (line.text.startsWith('+') && current) current.lines.push(line.text.slice(1));
    else if (line.text.trim() !== '') onOther?.(line.number, line.text);
  }
  flush();
  return out;
}

/** Matches user turns to input entries with the same text, in order: a turn takes the first unused one. */
export class InputTimes {
  private readonly byText = new Map<string, number[]>();

  constructor(entries: InputEntry[]) {
    for (const entry of entries) {
      const list = this.byText.get(entry.text) ?? [];
      list.push(entry.ts);
      this.byText.set(entry.text, list);
    }
  }

  /** The time of the entry for this prompt typed at or after `notBefore` (the session's start). */
  take(text: string, notBefore: number): number | undefined {
    const list = this.byText.get(text);
    if (!list) return undefined;
    while (list.length > 0 && list[0] < notBefore) list.shift();
    return list.shift();
  }
}
