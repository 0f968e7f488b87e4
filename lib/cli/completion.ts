// What the `sp` umbrella knows about its commands, and shell completion built from it.
//
// Commands are found, not listed: every dist/bin/sp-<name>.js is a binary, every examples/<name>.mjs
// a flow. A command's one-line summary is the first comment line of its file (every sp file opens
// with `// sp-<name>: what it does`), so `sp --help` reads a few bytes per file and starts nothing.
// Completion needs options too: those come from each binary's own `--help` (its yargs definition),
// run once when the completion script is generated, never at TAB time.
import { execFile } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface CommandInfo {
  /** The name after `sp`: `capture`, `archive`. */
  name: string;
  kind: 'binary' | 'flow';
  /** The file that runs it. */
  file: string;
  summary: string;
}

export interface OptionInfo {
  /** Without dashes: `session`, `dry-run`. */
  name: string;
  alias?: string;
  choices?: string[];
  /** Takes no value (a flag). */
  boolean: boolean;
}

export interface CommandSpec extends CommandInfo {
  options: OptionInfo[];
  /** Subcommands (`sp sync ingest`). */
  subcommands: string[];
  /** The first positional is an agent name (`sp capture <agent>`). */
  agentArgument: boolean;
}

/** The first comment line after the shebang, without `// name:`. */
export function summaryOf(file: string): string {
  let head = '';
  try {
    const fd = openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(600);
      head = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
  // The opening comment paragraph (up to an empty comment line), up to the end of its first sentence.
  const lines = head.split('\n').filter((l) => !l.startsWith('#!'));
  const block: string[] = [];
  for (const l of lines) {
    if (!l.startsWith('//') || l.trim() === '//') break;
    block.push(l.replace(/^\/\/\s*/, ''));
  }
  const text = block.join(' ').replace(/^[\w .-]+:\s+/, '');
  const end = /\.(\s+[A-Z(]|$)/.exec(text);
  return (end ? text.slice(0, end.index + 1) : text).trim();
}

/**
 * Binaries in `binDir` (sp-<name>.js) and flows by name: in each of `flowDirs`, in order, a compiled
 * TypeScript flow (dist/flows/<name>.js) or a script (<name>.mjs). A binary wins a clash, then the
 * first flow found.
 */
export function findCommands(binDir: string, flowDirs: string | string[]): CommandInfo[] {
  const commands = new Map<string, CommandInfo>();
  const list = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);
  for (const entry of list(binDir)) {
    const m = /^sp-([a-z0-9][a-z0-9-]*)\.js$/.exec(entry);
    if (m) commands.set(m[1], { name: m[1], kind: 'binary', file: join(binDir, entry), summary: summaryOf(join(binDir, entry)) });
  }
  for (const flowDir of typeof flowDirs === 'string' ? [flowDirs] : flowDirs) {
    for (const entry of list(flowDir)) {
      const m = /^([a-z0-9][a-z0-9-]*)\.(m?js)$/.exec(entry);
      // Helper modules of the flows (fixture homes, mock servers) are not commands: a flow starts with a shebang.
      if (!m || commands.has(m[1]) || !isScript(join(flowDir, entry))) continue;
      commands.set(m[1], { name: m[1], kind: 'flow', file: join(flowDir, entry), summary: summaryOf(join(flowDir, entry)) });
    }
  }
  return [...commands.values()];
}

/** A flow compiled from flows/*.ts: it runs through runCli (yargs) like a binary, in the umbrella's process. */
export const isCompiledFlow = (command: CommandInfo): boolean => command.kind === 'flow' && command.file.endsWith('.js');

function isScript(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(2);
    readSync(fd, buffer, 0, 2, 0);
    return buffer.toString() === '#!';
  } finally {
    closeSync(fd);
  }
}

/** Options, subcommands and an agent positional from a yargs `--help` text. */
export function parseHelp(help: string, program: string): Pick<CommandSpec, 'options' | 'subcommands' | 'agentArgument'> {
  const lines = help.split('\n');
  const options: OptionInfo[] = [];
  const subcommands: string[] = [];
  let section = '';
  let current: { info: OptionInfo; text: string } | undefined;
  const finish = () => {
    if (!current) return;
    const choices = /\[choices: ([^\]]+)\]/.exec(current.text);
    if (choices) current.info.choices = [...choices[1].matchAll(/"([^"]*)"/g)].map((m) => m[1]);
    current.info.boolean = /\[boolean\]/.test(current.text) && !choices;
    options.push(current.info);
    current = undefined;
  };
  for (const line of lines) {
    const heading = /^(\w[\w ]*):$/.exec(line);
    if (heading) {
      finish();
      section = heading[1];
      continue;
    }
    if (section === 'Options') {
      const m = /^\s+(?:-(\w), )?--([\w-]+)/.exec(line);
      if (m) {
        finish();
        current = { info: { name: m[2], alias: m[1], boolean: false }, text: line };
      } else if (current) current.text += ` ${line.trim()}`;
    } else if (section === 'Commands') {
      const m = new RegExp(`^\\s+${program.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+([a-z][\\w-]*)`).exec(line);
      if (m) subcommands.push(m[1]);
    }
  }
  finish();
  const usage = lines[0] ?? '';
  return { options: options.filter((o) => o.name !== 'version'), subcommands, agentArgument: /<agent>/.test(usage) };
}

const run = promisify(execFile);

/**
 * Each command with its options: a binary's from its own --help (its yargs definition), a few at a
 * time (as many as the machine has cores: all at once, on a loaded machine, some timed out and their
 * options went missing from the completion); a flow's from the option lines of the help text in its
 * source (`  --name …`), never by running it (a flow without --help would run). A --help that fails
 * twice fails the build, naming the command: an incomplete completion is never written.
 */
export async function describeCommands(commands: CommandInfo[]): Promise<CommandSpec[]> {
  const specs: CommandSpec[] = new Array(commands.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < commands.length) {
      const index = next++;
      const command = commands[index];
      if (command.kind === 'flow' && !isCompiledFlow(command)) {
        specs[index] = { ...command, ...flowOptions(readFileSync(command.file, 'utf8')) };
        continue;
      }
      const help = await helpText(command.file);
      specs[index] = { ...command, ...parseHelp(help, command.kind === 'flow' ? command.name : `sp-${command.name}`) };
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(availableParallelism(), commands.length)) }, worker));
  return specs;
}

async function helpText(file: string): Promise<string> {
  const env = { ...process.env, SP_PROGRESS: '0' };
  try {
    return (await run(process.execPath, [file, '--help'], { timeout: 120_000, env })).stdout;
  } catch {
    try {
      return (await run(process.execPath, [file, '--help'], { timeout: 300_000, env })).stdout;
    } catch (err) {
      throw new Error(`${file} --help failed twice: ${(err as Error).message.split('\n')[0]}`);
    }
  }
}

/** Options from a flow's help text: lines `  --name`, `  -x, --name`, `  --name, -x`; one word after the name (before the description) is its value. */
export function flowOptions(source: string): Pick<CommandSpec, 'options' | 'subcommands' | 'agentArgument'> {
  const options = new Map<string, OptionInfo>();
  for (const m of source.matchAll(/^ {2}(?:-(\w), )?--([a-z][\w-]*)(?:, -(\w)(?=\s)|, --[a-z][\w-]*)?( [^\s,-]\S*)?(?= {2,}|$)/gm)) {
    if (!options.has(m[2])) options.set(m[2], { name: m[2], alias: m[1] ?? m[3], boolean: m[4] === undefined });
  }
  return { options: [...options.values()], subcommands: [], agentArgument: false };
}

const words = (list: readonly string[]) => list.join(' ');
const identifier = (name: string) => name.replace(/[^A-Za-z0-9_]/g, '_');

/**
 * A bash completion script for `sp` (and each `sp-<name>` binary): commands, subcommands, agent
 * names where the first argument is an agent, options, an option's choices, and files elsewhere.
 */
export function bashCompletion(specs: CommandSpec[], agents: readonly string[]): string {
  const cases = specs
    .map((s) => {
      const flags = s.options.flatMap((o) => [`--${o.name}`, ...(o.alias ? [`-${o.alias}`] : [])]);
      const choiceCases = s.options
        .filter((o) => o.choices && o.choices.length > 0)
        .map((o) => `          --${o.name}${o.alias ? `|-${o.alias}` : ''}) COMPREPLY=($(compgen -W "${words(o.choices!)}" -- "$cur")); return ;;`)
        .join('\n');
      const valued = s.options.filter((o) => !o.boolean && !(o.choices && o.choices.length > 0)).map((o) => `--${o.name}`);
      const first = s.subcommands.length > 0 ? words(s.subcommands) : s.agentArgument ? '$agents' : '';
      return [
        `      ${s.name})`,
        `        case "$prev" in`,
        choiceCases,
        valued.length > 0 ? `          ${valued.join('|')}) COMPREPLY=($(compgen -f -- "$cur")); return ;;` : '',
        `        esac`,
        `        if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "${words(flags)}" -- "$cur")); return; fi`,
        first ? `        if (( argi == 1 )); then COMPREPLY=($(compgen -W "${first}" -- "$cur")); return; fi` : '',
        `        COMPREPLY=($(compgen -f -- "$cur")) ;;`,
      ]
        .filter(Boolean)
        .join('\n');
    })
    .join('\n');
  return `# bash completion for sp (generated by \`sp completion bash\`; regenerate after an upgrade)
# Install: sp completion bash > ~/.local/share/bash-completion/completions/sp
#      or: echo 'source <(sp completion bash)' >> ~/.bashrc
_sp_complete() {
  local cur prev cmd argi i
  local agents="${words(agents)}"
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [[ "\${COMP_WORDS[0]##*/}" == sp-* ]]; then
    cmd="\${COMP_WORDS[0]##*/sp-}"; cmd="\${cmd#sp-}"; i=1
  else
    if (( COMP_CWORD == 1 )); then
      COMPREPLY=($(compgen -W "${words(specs.map((s) => s.name))} completion --help --version" -- "$cur")); return
    fi
    cmd="\${COMP_WORDS[1]}"; i=2
  fi
  # argi: which positional the cursor is on (options and their values skipped roughly: words starting with -)
  argi=0
  local j
  for (( j=i; j<COMP_CWORD; j++ )); do [[ "\${COMP_WORDS[j]}" != -* ]] && argi=$((argi+1)); done
  argi=$((argi+1))
  case "$cmd" in
      completion) COMPREPLY=($(compgen -W "bash fish zsh" -- "$cur")) ;;
${cases}
  esac
}
complete -o default -F _sp_complete sp ${specs.filter((s) => s.kind === 'binary').map((s) => `sp-${s.name}`).join(' ')}
`;
}

/** A zsh completion script (`#compdef`), the same knowledge as the bash one, with summaries. */
export function zshCompletion(specs: CommandSpec[], agents: readonly string[]): string {
  const esc = (text: string) => text.replace(/\\/g, '\\\\').replace(/'/g, `'\\''`).replace(/:/g, '\\:').replace(/\[/g, '\\[').replace(/\]/g, '\\]');
  const functions = specs
    .map((s) => {
      const specsLines = s.options.map((o) => {
        const names = o.alias ? `'(-${o.alias} --${o.name})'{-${o.alias},--${o.name}}` : `'--${o.name}`;
        const value = o.choices && o.choices.length > 0 ? `:${o.name}:(${o.choices.join(' ')})` : o.boolean ? '' : `:${o.name}:_files`;
        return o.alias ? `    ${names}'[${o.name}]${value}'` : `    ${names}[${o.name}]${value}'`;
      });
      const first =
        s.subcommands.length > 0
          ? `    '1:command:(${s.subcommands.join(' ')})'`
          : s.agentArgument
            ? `    '1:agent:(${agents.join(' ')})'`
            : '';
      return [`_sp_${identifier(s.name)}() {`, `  _arguments -s \\`, ...[...specsLines, first, `    '*:file:_files'`].filter(Boolean).map((l, k, all) => (k < all.length - 1 ? `${l} \\` : l)), `}`].join('\n');
    })
    .join('\n\n');
  const described = specs.map((s) => `    '${s.name}:${esc(s.summary || s.kind)}'`).join('\n');
  return `#compdef sp ${specs.filter((s) => s.kind === 'binary').map((s) => `sp-${s.name}`).join(' ')}
# zsh completion for sp (generated by \`sp completion zsh\`; regenerate after an upgrade)
# Install: sp completion zsh > "\${fpath[1]}/_sp"   (then: autoload -U compinit && compinit)
${functions}

_sp() {
  local -a commands
  commands=(
${described}
    'completion:print a shell completion script'
  )
  local service_cmd="\${service#sp-}"
  if [[ "$service" == sp-* ]]; then
    _call_function ret _sp_\${service_cmd//-/_}
    return
  fi
  if (( CURRENT == 2 )); then
    _describe -t commands 'sp command' commands
    return
  fi
  local cmd="\${words[2]}"
  shift words
  (( CURRENT-- ))
  case "$cmd" in
    completion) _values 'shell' bash fish zsh ;;
${specs.map((s) => `    ${s.name}) _sp_${identifier(s.name)} ;;`).join('\n')}
  esac
}

if [[ "$funcstack[1]" == _sp ]]; then _sp "$@"; else compdef _sp sp ${specs.filter((s) => s.kind === 'binary').map((s) => `sp-${s.name}`).join(' ')}; fi
`;
}

/** fish completion: `sp <command>` with each command's options, choices and agent names. */
export function fishCompletion(specs: CommandSpec[], agents: readonly string[]): string {
  const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const lines = [
    '# fish completion for sp (generated at build time; `sp completion fish` prints it)',
    '# Install: sp completion fish > ~/.config/fish/completions/sp.fish',
    'complete -c sp -f',
    `complete -c sp -n __fish_use_subcommand -a completion -d ${quote('a shell completion script: bash, zsh or fish')}`,
  ];
  for (const s of specs) {
    lines.push(`complete -c sp -n __fish_use_subcommand -a ${s.name} -d ${quote(s.summary.slice(0, 80))}`);
    const when = `'__fish_seen_subcommand_from ${s.name}'`;
    if (s.subcommands.length > 0) lines.push(`complete -c sp -n ${when} -a ${quote(s.subcommands.join(' '))}`);
    if (s.agentArgument) lines.push(`complete -c sp -n ${when} -a ${quote(agents.join(' '))}`);
    for (const o of s.options) {
      const short = o.alias && o.alias.length === 1 ? ` -s ${o.alias}` : '';
      const value = o.choices && o.choices.length > 0 ? ` -xa ${quote(o.choices.join(' '))}` : o.boolean ? '' : ' -rF';
      lines.push(`complete -c sp -n ${when}${short} -l ${o.name}${value}`);
    }
  }
  lines.push(`complete -c sp -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'`);
  return lines.join('\n') + '\n';
}

/** A man page (roff) from a binary's --help text: NAME from its summary, the help itself verbatim. */
export function manPage(name: string, summary: string, help: string, version: string): string {
  const roff = (text: string) =>
    text
      .replace(/\\/g, '\\e')
      .split('\n')
      .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
      .join('\n');
  return [
    `.TH ${name.toUpperCase()} 1 "" "session-portability ${version}" "User Commands"`,
    '.SH NAME',
    `${name} \\- ${roff(summary.replace(/\n/g, ' '))}`,
    '.SH DESCRIPTION',
    '.nf',
    roff(help.trimEnd()),
    '.fi',
    '.SH SEE ALSO',
    'sp(1), and the README of session-portability',
    '',
  ].join('\n');
}
