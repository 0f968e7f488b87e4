// What a tool call does, whatever agent made it: the canonical intents a relay translates through.
// Each agent's vocabulary (adapters/<agent>/vocabulary.ts, exposed as its adapter's `vocabulary()`)
// reads its native calls into intents and writes intents back as its native calls.
import type { PatchFile, Replacement } from '../patch.js';

export type PlanStatus = 'pending' | 'in_progress' | 'completed';

export interface PlanItem {
  text: string;
  status: PlanStatus;
  id?: string;
}

export type Intent =
  /** `offset`: first line (1-based); `limit`: number of lines. */
  | { kind: 'read'; path: string; offset?: number; limit?: number }
  | { kind: 'write'; path: string; content: string }
  | { kind: 'edit'; path: string; edits: Replacement[] }
  /** Several files, adds, deletes, moves: apply_patch's own shape. */
  | { kind: 'patch'; files: PatchFile[] }
  | { kind: 'shell'; command: string; cwd?: string; timeoutMs?: number; description?: string }
  /** The whole plan after the call (vocabularies with incremental tools keep the state, see PlanState). */
  | { kind: 'plan'; items: PlanItem[]; explanation?: string }
  | { kind: 'search'; mode: 'content' | 'files'; pattern: string; path?: string; glob?: string }
  /** Work handed to a subagent: what to do and a short label. */
  | { kind: 'task'; prompt: string; description?: string }
  | { kind: 'web-search'; query: string }
  | { kind: 'web-fetch'; urls: string[]; prompt?: string };

/** One native call: what the target's writer gets as a tool.call's name and input. */
export interface NativeCall {
  name: string;
  input: unknown;
  /** Codex: written as a custom tool call (free text input) instead of a function call. */
  custom?: boolean;
}

/** What a vocabulary needs besides the call: the session's cwd (paths relative to it, or absolute). */
export interface VocabularyContext {
  cwd?: string;
  /** The per-session plan a vocabulary with incremental plan tools (Claude tasks) keeps. */
  plan: PlanState;
}

export interface Vocabulary {
  agent: string;
  /** Every tool name the agent's own calls use (a translated call names one of these). */
  tools: ReadonlySet<string>;
  /** A native call as an intent; undefined when it has no counterpart elsewhere (rendered as text). */
  parse(name: string, input: unknown, context: VocabularyContext): Intent | undefined;
  /** An intent as native calls (one or more); undefined when the agent has no tool for it. */
  render(intent: Intent, context: VocabularyContext): NativeCall[] | undefined;
  /**
   * A result's text as this agent's tools give it, made plain (e.g. Codex's exec header, Hermes's
   * JSON envelope) for another agent; absent: the text as it is.
   */
  plainResult?(name: string, text: string): { text: string; isError?: boolean };
}

/** A plan kept across calls, for tools that change one item at a time (Claude TaskCreate/TaskUpdate). */
export class PlanState {
  items: PlanItem[] = [];
  private nextId = 1;

  /** Replaces the plan (full-list tools: TodoWrite, update_plan, todo). */
  set(items: PlanItem[]): void {
    this.items = items.map((item) => ({ ...item }));
    this.nextId = Math.max(this.nextId, this.items.length + 1);
  }

  /** Adds an item with the next id (TaskCreate numbers tasks 1, 2, 3 … per session). */
  add(text: string, status: PlanStatus = 'pending'): PlanItem {
    const item = { id: String(this.nextId++), text, status };
    this.items.push(item);
    return item;
  }

  update(id: string, change: { status?: PlanStatus | 'deleted'; text?: string }): boolean {
    const at = this.items.findIndex((item) => item.id === id);
    if (at < 0) return false;
    if (change.status === 'deleted') this.items.splice(at, 1);
    else {
      if (change.status) this.items[at].status = change.status;
      if (change.text) this.items[at].text = change.text;
    }
    return true;
  }

  snapshot(): PlanItem[] {
    return this.items.map((item) => ({ ...item }));
  }
}

export function planStatus(value: unknown): PlanStatus | undefined {
  if (value === 'pending' || value === 'in_progress' || value === 'completed') return value;
  if (value === 'done' || value === 'complete') return 'completed';
  if (value === 'in-progress' || value === 'active') return 'in_progress';
  if (value === 'cancelled' || value === 'canceled') return 'completed';
  return undefined;
}

/** A plan as plain text (for agents without a plan tool, and for rendered results). */
export function planText(items: PlanItem[], explanation?: string): string {
  const mark = { pending: '[ ]', in_progress: '[~]', completed: '[x]' } as const;
  const lines = items.map((item) => `${mark[item.status]} ${item.text}`);
  return (explanation ? `${explanation}\n` : '') + lines.join('\n');
}

/** Quotes a word for a POSIX shell when it needs it (commands written for shell targets). */
export function shq(word: string): string {
  return /^[A-Za-z0-9_\/.,:@%+=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A path as the target wants it: relative to cwd when under it (Codex, Pi, Hermes), absolute otherwise. */
export function relativePath(path: string, cwd: string | undefined): string {
  if (!cwd || !path.startsWith('/')) return path;
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(base) ? path.slice(base.length) : path === cwd ? '.' : path;
}

/** An absolute path (Claude's tools take only absolute paths). */
export function absolutePath(path: string, cwd: string | undefined): string {
  if (path.startsWith('/') || !cwd) return path;
  const rel = path.replace(/^\.\//, '');
  return rel === '.' || rel === '' ? cwd : `${cwd.replace(/\/$/, '')}/${rel}`;
}

/** A shell command that reads lines `offset`…`offset+limit-1` of a file (or all of it). */
export function readCommand(path: string, offset?: number, limit?: number): string {
  if (offset === undefined && limit === undefined) return `cat ${shq(path)}`;
  const from = offset ?? 1;
  const to = limit !== undefined ? from + limit - 1 : '$';
  return `sed -n '${from},${to}p' ${shq(path)}`;
}

/** A read intent from a shell command that only prints a file (`cat F`, `sed -n 'a,bp' F`, `head -n N F`). */
export function readFromCommand(command: string): { path: string; offset?: number; limit?: number } | undefined {
  const cmd = command.trim();
  const word = `('[^']+'|"[^"]+"|[^\\s'";|&<>$\`]+)`;
  const unquote = (w: string): string => (/^['"]/.test(w) ? w.slice(1, -1) : w);
  let m = new RegExp(`^cat\\s+${word}$`).exec(cmd);
  if (m) return { path: unquote(m[1]) };
  m = new RegExp(`^sed\\s+-n\\s+'?(\\d+),(\\d+)p'?\\s+${word}$`).exec(cmd);
  if (m) return { path: unquote(m[3]), offset: Number(m[1]), limit: Number(m[2]) - Number(m[1]) + 1 };
  m = new RegExp(`^head\\s+-n\\s*(\\d+)\\s+${word}$`).exec(cmd);
  if (m) return { path: unquote(m[2]), offset: 1, limit: Number(m[1]) };
  return undefined;
}

/** A search as a shell command (for agents whose only counterpart is their shell). */
export function searchCommand(intent: Extract<Intent, { kind: 'search' }>): string {
  const where = intent.path ? ` ${shq(intent.path)}` : '';
  if (intent.mode === 'files') return `rg --files${where} | rg ${shq(globToRegex(intent.pattern))}`;
  const glob = intent.glob ? ` --glob ${shq(intent.glob)}` : '';
  return `rg -n${glob} ${shq(intent.pattern)}${where}`;
}

function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        out += '.*';
        i += 1;
        if (glob[i + 1] === '/') i += 1;
      } else out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '{') out += '(';
    else if (c === '}') out += ')';
    else if (c === ',') out += '|';
    else if ('.+()|^$[]\\'.includes(c)) out += `\\${c}`;
    else out += c;
  }
  return `${out}$`;
}
