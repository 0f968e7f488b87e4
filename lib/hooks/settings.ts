// The two shapes of settings the clients' hook mechanisms use, edited structurally:
// - a JSON settings file with `"hooks": { "<Event>": [ { "hooks": [ { "type": "command", "command": … } ] } ] }`
//   (Claude Code, Qoder, Gemini CLI, Qwen Code): sp's group is appended to each event's array;
// - a TOML config with a top-level `notify = [argv…]` (Codex): one line inserted before the first table.
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { UserError } from '../cli/diagnostics.js';
import { appendItem, insertMember, JsonSyntaxError, member, parseSpans, removeItems, valueOf, type JsonNode } from './json-edit.js';
import { HOOK_SCRIPT, isSpCommand, type HookCommand, type HookInstaller } from './install.js';

/** "file:line:col: what" for a JSON syntax error at `offset`. */
function jsonError(file: string, text: string, err: JsonSyntaxError): UserError {
  const before = text.slice(0, err.offset);
  const line = before.split('\n').length;
  const col = err.offset - before.lastIndexOf('\n');
  return new UserError(`not valid JSON: ${err.message}; nothing changed`, `${file}:${line}:${col}`);
}

function spans(text: string, file: string): JsonNode {
  try {
    return parseSpans(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw jsonError(file, text, err);
    throw err;
  }
}

/** Whether one event group (`{ matcher?, hooks: [...] }`) is sp's. */
function isSpGroup(group: unknown): boolean {
  const hooks = (group as { hooks?: unknown })?.hooks;
  return Array.isArray(hooks) && hooks.some((h) => isSpCommand((h as { command?: unknown })?.command));
}

export interface JsonHooksOptions {
  agent: string;
  displayName: string;
  verifiedWith: string;
  mechanism: string;
  file(home: string): string;
  /** The events sp's command is registered for. */
  events: string[];
  /** sp's group for one event (the clients differ in the fields they accept). */
  group(command: HookCommand, event: string): Record<string, unknown>;
}

/** An installer for a JSON settings file with Claude Code's hooks layout. */
export function jsonHooks(options: JsonHooksOptions): HookInstaller {
  const check = (root: JsonNode, file: string) => {
    if (root.kind !== 'object') throw new UserError('is not a JSON object; nothing changed', file);
    const hooks = member(root, 'hooks');
    if (hooks !== undefined && hooks.kind !== 'object') throw new UserError('"hooks" is not an object; nothing changed', file);
    for (const event of options.events) {
      const list = member(hooks, event);
      if (list !== undefined && list.kind !== 'array') throw new UserError(`"hooks.${event}" is not an array; nothing changed`, file);
    }
  };
  const spIndexes = (text: string, list: JsonNode | undefined): Set<number> =>
    new Set(list?.kind === 'array' ? list.items.flatMap((item, k) => (isSpGroup(valueOf(text, item)) ? [k] : [])) : []);

  return {
    agent: options.agent,
    displayName: options.displayName,
    verifiedWith: options.verifiedWith,
    mechanism: options.mechanism,
    file: options.file,
    has(text, file) {
      if (text.trim() === '') return false;
      const root = spans(text, file);
      check(root, file);
      return options.events.some((event) => spIndexes(text, member(member(root, 'hooks'), event)).size > 0);
    },
    add(text, command, file) {
      if (text === undefined || text.trim() === '') {
        const hooks = Object.fromEntries(options.events.map((event) => [event, [options.group(command, event)]]));
        return JSON.stringify({ hooks }, null, 2) + '\n';
      }
      let out = text;
      for (const event of options.events) {
        const root = spans(out, file);
        check(root, file);
        const hooks = member(root, 'hooks');
        const list = member(hooks, event);
        if (spIndexes(out, list).size > 0) continue;
        const group = options.group(command, event);
        if (hooks === undefined) out = insertMember(out, root as Extract<JsonNode, { kind: 'object' }>, 'hooks', { [event]: [group] });
        else if (list === undefined) out = insertMember(out, hooks as Extract<JsonNode, { kind: 'object' }>, event, [group]);
        else out = appendItem(out, list as Extract<JsonNode, { kind: 'array' }>, group);
      }
      return out;
    },
    remove(text, file) {
      let out = text;
      for (const event of options.events) {
        const root = spans(out, file);
        check(root, file);
        const list = member(member(root, 'hooks'), event);
        const ours = spIndexes(out, list);
        if (ours.size > 0) out = removeItems(out, list as Extract<JsonNode, { kind: 'array' }>, ours);
      }
      return out;
    },
  };
}

/**
 * The layout several clients share: command hooks in `<home>/settings.json` for Stop (a turn ended)
 * and SessionEnd, the payload on stdin naming transcript_path, timeouts in seconds.
 */
export function stopHooks(options: Pick<JsonHooksOptions, 'agent' | 'displayName' | 'verifiedWith'>): HookInstaller {
  return jsonHooks({
    ...options,
    mechanism: 'settings.json hooks: Stop, SessionEnd (stdin names transcript_path)',
    file: (home) => join(home, 'settings.json'),
    events: ['Stop', 'SessionEnd'],
    // A bounded timeout: the hook returns in milliseconds, but a stuck one must not hold a turn.
    group: (command) => ({ hooks: [{ type: 'command', command: command.shell, timeout: 10 }] }),
  });
}

/** An installer for a file sp owns whole (a plugin or extension the client loads), which `source` writes. */
export function ownedFileHooks(
  options: Pick<HookInstaller, 'agent' | 'displayName' | 'verifiedWith' | 'mechanism' | 'file'> & {
    /** What the file is to the client ("plugin", "extension"), for the refusal. */
    kind: string;
    /** The line `source` starts the file with: how sp knows its own file. */
    mark: string;
    source: (command: HookCommand) => string;
  },
): HookInstaller {
  const { kind, mark, source, ...installer } = options;
  return {
    ...installer,
    has: (text) => text.startsWith(mark) && text.includes(HOOK_SCRIPT),
    add(text, command, file) {
      if (text !== undefined && text.trim() !== '') {
        if (text.startsWith(mark)) return text;
        throw new UserError(`is not sp's ${kind} (a file of the same name is there); nothing changed`, file);
      }
      return source(command);
    },
    // sp's own file: without sp's entry nothing is left of it.
    remove: () => '',
  };
}

/** The first line that opens a TOML table (`[x]` or `[[x]]`): top-level keys must come before it. */
function firstTableOffset(text: string): number {
  const m = /^[ \t]*\[/m.exec(text);
  return m ? m.index : text.length;
}

function tomlTable(text: string, file: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (err) {
    const e = err as { line?: number; column?: number; message: string };
    const where = e.line !== undefined ? `${file}:${e.line}:${e.column ?? 1}` : file;
    throw new UserError(`not valid TOML: ${e.message.split('\n')[0]}; nothing changed`, where);
  }
}

const NOTIFY_LINE = /^notify[ \t]*=.*sp-hook\.js.*(?:\r?\n|$)/m;

export interface TomlNotifyOptions {
  agent: string;
  displayName: string;
  verifiedWith: string;
  mechanism: string;
  file(home: string): string;
}

/** An installer for Codex's top-level `notify = [argv…]` in config.toml. */
export function tomlNotify(options: TomlNotifyOptions): HookInstaller {
  return {
    ...options,
    has(text, file) {
      return isSpCommand(tomlTable(text, file).notify);
    },
    add(text, command, file) {
      const current = text ?? '';
      const table = tomlTable(current, file);
      if (isSpCommand(table.notify)) return current;
      if (table.notify !== undefined) {
        throw new UserError(`already has a notify program (${JSON.stringify(table.notify).slice(0, 200)}); ${options.displayName} runs only one, and sp does not replace yours: nothing changed`, file);
      }
      // TOML strings are JSON strings for the characters a path holds (JSON escapes are TOML escapes).
      const line = `notify = [${command.argv.map((w) => JSON.stringify(w)).join(', ')}] # sp hooks: capture each turn into the sp store\n`;
      const at = firstTableOffset(current);
      const out = current.slice(0, at) + (at > 0 && !current.slice(0, at).endsWith('\n') ? '\n' : '') + line + current.slice(at);
      // The inserted key must read back as sp's, at the top level, with every other key unchanged.
      const after = tomlTable(out, file);
      if (!isSpCommand(after.notify) || JSON.stringify({ ...after, notify: undefined }) !== JSON.stringify({ ...table, notify: undefined })) {
        throw new UserError('cannot add notify without changing other settings; nothing changed', file);
      }
      return out;
    },
    remove(text, file) {
      const out = text.replace(NOTIFY_LINE, '');
      tomlTable(out, file);
      return out;
    },
  };
}
