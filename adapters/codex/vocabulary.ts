// Codex CLI 0.171's tools (formats/codex.md): `exec_command` {cmd, workdir, yield_time_ms} (older
// rollouts: `shell` {command: argv, workdir}), `apply_patch` as a custom tool whose input is the
// patch text (a `custom_tool_call` item), and `update_plan` {explanation?, plan: [{step, status}]}.
// Codex has no read tool: its model reads files with `cat`/`sed -n`, so those commands are reads.
import { isObject, str } from '../../lib/core/json.js';
import { buildPatch, parsePatch } from '../../lib/relay/patch.js';
import { patchText, readUpdatePlan } from './derive.js';
import { planStatus, readCommand, readFromCommand, relativePath, searchCommand, shq, type Intent, type NativeCall, type Vocabulary, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';

const TOOLS = new Set(['exec_command', 'write_stdin', 'shell', 'apply_patch', 'update_plan', 'view_image', 'web_search', 'local_shell']);
const SHELLS = new Set(['bash', 'sh', 'zsh', '/bin/bash', '/bin/sh', '/bin/zsh', '/usr/bin/bash']);

function shellIntent(command: string, cwd: string | undefined): Intent {
  const read = readFromCommand(command);
  if (read) return { kind: 'read', ...read };
  return { kind: 'shell', command, cwd };
}

function parse(name: string, input: unknown, _context: VocabularyContext): Intent | undefined {
  switch (name) {
    case 'exec_command':
      if (!isObject(input) || typeof input.cmd !== 'string') return undefined;
      return shellIntent(input.cmd, str(input.workdir));
    case 'shell':
    case 'local_shell': {
      const argv = isObject(input) && Array.isArray(input.command) ? input.command.filter((a): a is string => typeof a === 'string') : undefined;
      if (!argv || argv.length === 0 || !isObject(input)) return undefined;
      const command = argv.length === 3 && SHELLS.has(argv[0]) && (argv[1] === '-lc' || argv[1] === '-c') ? argv[2] : argv.map(shq).join(' ');
      return shellIntent(command, str(input.workdir) ?? str(input.working_directory));
    }
    case 'apply_patch': {
      // The patch text and the patch read as capture reads them (derive.ts, lib/relay/patch.ts).
      const text = patchText({ name, input });
      const files = text !== undefined ? parsePatch(text) : undefined;
      if (!files) return undefined;
      if (files.length === 1) {
        const file = files[0];
        if (file.op === 'add') return { kind: 'write', path: file.path, content: file.content };
        if (file.op === 'update' && !file.moveTo && file.hunks.length > 0) return { kind: 'edit', path: file.path, edits: file.hunks };
      }
      return { kind: 'patch', files };
    }
    case 'update_plan': {
      const plan = readUpdatePlan(input);
      if (!plan) return undefined;
      const items = plan.steps.map((p) => ({ text: p.step, status: planStatus(p.status) ?? 'pending' }));
      return { kind: 'plan', items, explanation: plan.explanation };
    }
    default:
      return undefined;
  }
}

function render(intent: Intent, context: VocabularyContext): NativeCall[] | undefined {
  const rel = (path: string): string => relativePath(path, context.cwd);
  const exec = (cmd: string, workdir?: string): NativeCall => ({ name: 'exec_command', input: { cmd, workdir: workdir ?? context.cwd, yield_time_ms: 10000 } });
  const patch = (text: string): NativeCall => ({ name: 'apply_patch', input: text, custom: true });
  switch (intent.kind) {
    case 'read':
      return [exec(readCommand(rel(intent.path), intent.offset, intent.limit))];
    case 'write':
      return [patch(buildPatch([{ op: 'add', path: rel(intent.path), content: intent.content }]))];
    case 'edit':
      return [patch(buildPatch([{ op: 'update', path: rel(intent.path), hunks: intent.edits }]))];
    case 'patch':
      return [patch(buildPatch(intent.files.map((f) => (f.op === 'update' ? { ...f, path: rel(f.path), moveTo: f.moveTo && rel(f.moveTo) } : { ...f, path: rel(f.path) }))))];
    case 'shell':
      return [exec(intent.command, intent.cwd)];
    case 'search':
      return [exec(searchCommand({ ...intent, path: intent.path && rel(intent.path) }))];
    case 'task':
    case 'web-search':
    case 'web-fetch':
      return undefined; // Codex's web search is the client's own item, its agents a deferred namespace
    case 'plan': {
      const input: Record<string, unknown> = {};
      if (intent.explanation) input.explanation = intent.explanation;
      input.plan = intent.items.map((item) => ({ step: item.text, status: item.status }));
      return [{ name: 'update_plan', input }];
    }
  }
}

const EXEC_HEADER = /^(?:Chunk ID: [^\n]*\n)?(?:Wall time: [^\n]*\n)?(?:Process exited with code (-?\d+)\n|Exit code: (-?\d+)\n)?(?:Wall time: [^\n]*\n)?(?:Original token count: [^\n]*\n)?Output:\n/;

/** exec_command / apply_patch output without the client's header; the exit code decides the error flag. */
function plainResult(_name: string, text: string): { text: string; isError?: boolean } {
  const m = EXEC_HEADER.exec(text);
  if (m) {
    const code = Number(m[1] ?? m[2] ?? 0);
    const body = text.slice(m[0].length);
    return code === 0 ? { text: body } : { text: `${body}${body.endsWith('\n') || body === '' ? '' : '\n'}(exit code ${code})`, isError: true };
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed) && typeof parsed.output === 'string') {
      const code = isObject(parsed.metadata) && typeof parsed.metadata.exit_code === 'number' ? parsed.metadata.exit_code : 0;
      return code === 0 ? { text: parsed.output } : { text: `${parsed.output}\n(exit code ${code})`, isError: true };
    }
  } catch {
    // plain text
  }
  return { text };
}

export const codexVocabulary: Vocabulary = { agent: 'codex', tools: TOOLS, parse, render, plainResult };
