// The adapter is the whole driver (issue #19): lib/ names no agent and no adapter imports a sibling.
//
// The rule for lib/: code — identifiers and string literals — names no agent; what lib/ needs to know
// about one it asks the registry (lib/adapter/registry.ts). Comments are prose and may name agents (they cite
// docs/formats/<agent>.md and say which clients write a format). A word counts when it is exactly an
// agent id: identifiers are split at camelCase and `_`, strings at every non-letter-or-digit.
// `cursor` is also the incremental-capture cursor (lib/capture/read-position.ts, `Cursor`), so only a string that
// is exactly "cursor" counts for it; `otel` is the OpenTelemetry standard lib/otel exports, not checked.
//
// What remains is listed below, file by file with the number of words and why: a new file or one
// more word fails, and so does an entry that is no longer needed (the list only shrinks).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adapters } from '../adapters/index.js';
import { emptyCursor } from '../lib/capture/read-position.js';
import { relay } from '../lib/relay/relay.js';

const ROOT = join(import.meta.dirname, '..');
const AGENT_WORDS = new Set(['claude', 'codex', 'pi', 'hermes', 'gemini', 'qwen', 'opencode', 'copilot', 'qoder', 'aider', 'atif']);

/** lib/ files still naming agents in code: words allowed, and why they are not the registry's yet (none left). */
const REMAINING: Record<string, { words: number; why: string }> = {};

/** lib/ folders of a format one agent defined and others write too: its name is the format's, not an agent lookup. */
const FORMAT_FOLDERS: Record<string, string> = {
  'lib/formats/claude-code/': 'the transcript format Claude Code defined, also written by Qoder CLI',
  'lib/formats/cline-tasks/': 'the task-folder format of Cline\'s VS Code extension, also written by its forks Roo Code and Kilo Code',
  'lib/formats/opencode/': 'the session store OpenCode defined, also written by its fork Kilo Code CLI',
};

function files(dir: string, ext = /\.ts$/): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(path, ext));
    else if (ext.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

/** The identifiers and string literals of TypeScript source, comments left out. */
export function codeTokens(source: string): { identifiers: string[]; strings: string[] } {
  const identifiers: string[] = [];
  const strings: string[] = [];
  let i = 0;
  const n = source.length;
  const readString = (quote: string): string => {
    let text = '';
    i += 1;
    while (i < n && source[i] !== quote) {
      if (source[i] === '\\') {
        text += source[i + 1] ?? '';
        i += 2;
        continue;
      }
      if (quote === '`' && source[i] === '$' && source[i + 1] === '{') {
        // A template's expression: scan it as code up to its closing brace.
        let depth = 1;
        i += 2;
        const start = i;
        while (i < n && depth > 0) {
          if (source[i] === '{') depth += 1;
          else if (source[i] === '}') depth -= 1;
          if (depth > 0) i += 1;
        }
        const inner = codeTokens(source.slice(start, i));
        identifiers.push(...inner.identifiers);
        strings.push(...inner.strings);
        i += 1;
        continue;
      }
      text += source[i];
      i += 1;
    }
    i += 1;
    return text;
  };
  while (i < n) {
    const c = source[i];
    if (c === '/' && source[i + 1] === '/') {
      while (i < n && source[i] !== '\n') i += 1;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      strings.push(readString(c));
    } else if (/[A-Za-z_$]/.test(c)) {
      const start = i;
      while (i < n && /[\w$]/.test(source[i])) i += 1;
      identifiers.push(source.slice(start, i));
    } else if (c === '/' && /[=(,:!&|?{};]\s*$/.test(source.slice(Math.max(0, i - 20), i))) {
      // A regular expression literal: its text is a string.
      const start = i + 1;
      i += 1;
      let inClass = false;
      while (i < n && (source[i] !== '/' || inClass)) {
        if (source[i] === '\\') i += 1;
        else if (source[i] === '[') inClass = true;
        else if (source[i] === ']') inClass = false;
        i += 1;
      }
      strings.push(source.slice(start, i));
      i += 1;
    } else i += 1;
  }
  return { identifiers, strings };
}

/** The agent words in a file's code: identifiers split at camelCase and `_`, strings at non-alphanumerics. */
export function agentWords(source: string): string[] {
  const { identifiers, strings } = codeTokens(source);
  const found: string[] = [];
  for (const id of identifiers) {
    for (const word of id.replace(/([a-z0-9])([A-Z])/g, '$1_$2').split(/[_$]+/)) if (AGENT_WORDS.has(word.toLowerCase())) found.push(word);
  }
  for (const text of strings) {
    if (text === 'cursor') found.push(text);
    for (const word of text.split(/[^A-Za-z0-9]+/)) if (AGENT_WORDS.has(word.toLowerCase())) found.push(word);
  }
  return found;
}

describe('layout: the adapter is the whole driver', () => {
  it('finds agent words in code and not in comments (the scanner itself)', () => {
    expect(agentWords("// claude here is a comment\n/* codex too */ const x = 1;")).toEqual([]);
    expect(agentWords("const claudeLabel = 'x';")).toEqual(['claude']);
    expect(agentWords("const a = 'Codex CLI'; const b = `${q} pi`;")).toEqual(['Codex', 'pi']);
    expect(agentWords("const API = 1; const spin = 'api picture'; const c: Cursor = cursorOf();")).toEqual([]);
    expect(agentWords("if (t === 'cursor') x();")).toEqual(['cursor']);
    expect(agentWords('const re = /^(qwen|qwq)/i;')).toEqual(['qwen']);
    expect(agentWords('const QODER_HOME = 1;')).toEqual(['QODER']);
  });

  it('lib/ names no agent in code beyond the listed remainder, and the list holds nothing stale', () => {
    const found: Record<string, number> = {};
    for (const path of files(join(ROOT, 'lib'))) {
      if (Object.keys(FORMAT_FOLDERS).some((folder) => relative(ROOT, path).startsWith(folder))) continue;
      const words = agentWords(readFileSync(path, 'utf8'));
      if (words.length > 0) found[relative(ROOT, path)] = words.length;
    }
    const expected = Object.fromEntries(Object.entries(REMAINING).filter(([, entry]) => entry.words > 0).map(([file, entry]) => [file, entry.words]));
    expect(found).toEqual(expected);
  });

  it('the tokenizers are the adapters\' data: every profile names a registered one, markdown counts with the most conservative', async () => {
    const { tokenizers, tokenizerOf, conservativeTokenizer } = await import('../lib/compile/tokenizers.js');
    const { compileTargets } = await import('../lib/compile/targets.js');
    for (const [name, target] of Object.entries(compileTargets())) expect(tokenizerOf(target.tokenizer), name).toBeDefined();
    const most = Math.max(...tokenizers().map((t) => t.factor));
    expect(conservativeTokenizer().factor).toBe(most);
    expect(compileTargets().markdown.tokenizer).toBe(conservativeTokenizer().name);
  });

  it('no adapter imports a sibling adapter', () => {
    // Code two agents share (Qoder CLI writes Claude Code's transcript format) lives in lib/formats/.
    const found = new Set<string>();
    const ids = Object.keys(adapters);
    for (const id of ids) {
      for (const path of files(join(ROOT, 'adapters', id))) {
        for (const m of readFileSync(path, 'utf8').matchAll(/(?:from|import\()\s*'\.\.\/([a-z]+)\//g)) {
          if (ids.includes(m[1]) && m[1] !== id) found.add(`${id}→${m[1]}`);
        }
      }
    }
    expect([...found].sort()).toEqual([]);
  });

  it('every adapter declares its capabilities, and vocabularies and compile profiles load through it', async () => {
    for (const adapter of Object.values(adapters)) {
      const c = adapter.capabilities;
      expect(typeof c.tree, adapter.id).toBe('boolean');
      expect(['provider', 'signed', 'own'], adapter.id).toContain(c.thinking);
      expect(c.incremental === true || typeof c.incremental.whyNot === 'string', adapter.id).toBe(true);
      if (adapter.vocabulary) expect((await adapter.vocabulary()).agent, adapter.id).toBe(adapter.id);
      if (adapter.compileProfile) expect(adapter.compileProfile.window, adapter.id).toBeGreaterThan(adapter.compileProfile.reserve);
    }
  });

  it('declared capabilities are enforced where a caller asks for more', async () => {
    // --cursor on a format read whole: refused before any file is opened, with the declared reason.
    const ref = { agent: 'otel', native_id: 'x', path: '/nonexistent/export.jsonl' };
    const drain = async (): Promise<void> => {
      for await (const _ of adapters.otel.capture(ref, { cursor: emptyCursor('otel', 'x') })) void _;
    };
    await expect(drain()).rejects.toThrow(/incremental capture \(--cursor\) is not supported for OpenTelemetry export: an export is captured whole/);
    // --same-id on a writer whose files have no session id: refused before the input is read.
    const never = async function* (): AsyncGenerator<never> {
      throw new Error('the input must not be read');
    };
    await expect(relay(adapters.aider, never(), { sameId: true })).rejects.toThrow(/^--same-id: an Aider history has no session id to keep/);
    // An experimental writer only when asked.
    await expect(relay(adapters.cursor, never(), {})).rejects.toThrow(/experimental and unverified/);
  });
});
