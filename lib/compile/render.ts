// Templates per injection point (seed §7.4): the first user message of the target agent with a relay
// header (`message`), a section for the agent's instructions file (`agents-md`: CLAUDE.md or
// AGENTS.md), or the agent-work-mem files STATE.md, TASKS.md, DECISIONS.md and HANDOFF.md (`files`).
// Rendering is a pure function of the items and the session facts, so output is byte-stable.
import { toIso } from '../core/event.js';
import type { Extraction, Item, Loss, Section } from './items.js';
import { provenance, SECTIONS } from './items.js';
import { agentLabel, type FormatName, type Target } from './targets.js';
import { code, formatSeqs, oneLine } from './text.js';

export interface Doc {
  name: string;
  text: string;
}

export interface Rendered {
  docs: Doc[];
  /** The context as one text: what the context.compiled event carries. */
  text: string;
}

export interface RenderInput {
  target: Target;
  format: FormatName;
  extraction: Extraction;
}

export const HEADINGS: Record<Section, string> = {
  goal: 'Goal',
  problems: 'Open problems',
  workspace: 'The workspace now (observed when this handoff was compiled, not from the log)',
  open: 'Open plan steps and todos',
  decisions: 'Decisions and their reasons',
  constraints: 'Constraints the user stated',
  reply: 'Where the source agent left off',
  files: 'Files changed',
  commands: 'Recent commands and results (errors first)',
  done: 'Done',
  requests: 'Earlier requests',
  summary: 'Summary (model-written)',
  excerpts: 'Key excerpts (extractive summary, in order)',
  digest: 'Also in the session (not shown above)',
  diffs: 'Last change per file',
};

/** Sections that say "none" rather than disappear: an empty one is news too. */
const EMPTY: Partial<Record<Section, string>> = {
  problems: '- None recorded: no failing command left unresolved at the end, no tool call without a result, and the latest request was answered.',
  open: '- None: no open todo or plan step.',
};

/** Which sections go into which file, and in what order. */
const LAYOUT: Record<FormatName, Array<{ name: string; sections: Section[] }>> = {
  message: [{ name: 'message', sections: [...SECTIONS] }],
  // The compiler renders an A2A task's artifact as a message (compile.ts); listed for completeness.
  a2a: [{ name: 'message', sections: [...SECTIONS] }],
  'agents-md': [{ name: 'section', sections: [...SECTIONS] }],
  files: [
    { name: 'HANDOFF.md', sections: ['goal', 'problems', 'reply', 'summary', 'excerpts', 'digest'] },
    { name: 'STATE.md', sections: ['workspace', 'files', 'commands', 'diffs'] },
    { name: 'TASKS.md', sections: ['open', 'done', 'requests'] },
    { name: 'DECISIONS.md', sections: ['decisions', 'constraints'] },
  ],
};

export const AGENTS_MD_BEGIN = '<!-- sp-compile:begin (a handoff compiled by sp; the next `sp-compile --format agents-md --force` replaces this section) -->';
export const AGENTS_MD_END = '<!-- sp-compile:end -->';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const when = (ts?: number) => (ts === undefined ? undefined : toIso(ts).slice(0, 16).replace('T', ' '));

function title(ex: Extraction): string {
  const info = ex.primary.info;
  const goal = ex.items.find((i) => i.kind === 'goal' && i.priority === 1) ?? ex.items.find((i) => i.kind === 'goal');
  return oneLine(info.title ?? goal?.quote ?? 'a coding session', 100);
}

function sourceLine(ex: Extraction): string {
  const info = ex.primary.info;
  const from = when(info.firstTs);
  const to = when(info.lastTs);
  const span = from && to ? `, ${from === to ? from : `${from} – ${to}`} UTC` : '';
  return `${agentLabel(info.agent)} session ${code(info.nativeId ?? info.id)} (${plural(info.events, 'event')}${span})`;
}

function lossPhrase(loss: Loss, ex: Extraction): string | undefined {
  const other = loss.session === ex.primary.info.id ? '' : ` in ${loss.session.slice(0, 13)}`;
  switch (loss.kind) {
    case 'thinking':
      return `the source agent's private reasoning (${plural(loss.count, 'thinking block')}${other})`;
    case 'image':
      return `${plural(loss.count, 'image')}${other}`;
    case 'tool-output':
      return `the raw output of ${plural(loss.count, 'tool call')}${other} (commands, errors and edits are summarized here)`;
    case 'branch':
      return `an abandoned branch (seq ${loss.ranges.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(', ')})`;
    default:
      return undefined;
  }
}

function header(input: RenderInput): string[] {
  const ex = input.extraction;
  const cannot = ['the verbatim transcript (this is a compiled summary)'];
  for (const loss of ex.losses) {
    const phrase = lossPhrase(loss, ex);
    if (phrase) cannot.push(phrase);
  }
  for (const child of ex.children) {
    const fork = ex.primary.forks.find((f) => f.child === child.info.id);
    cannot.push(`the transcript of the ${fork?.kind ?? child.info.agent} subagent (${child.info.id.slice(0, 13)}; its result is in the source session)`);
  }
  if (ex.losses.some((l) => l.reason.startsWith('older than'))) cannot.push('the oldest part of a very long history (see Pointers)');
  cannot.push('whatever did not fit the token budget (listed, with the reason, in the context.compiled event)');
  const who = input.target.name === 'markdown' ? 'the next agent' : input.target.label;
  const opening =
    input.format === 'message'
      ? `**Relayed context, not a new message from the user.** sp compiled this from another coding agent's session — ${sourceLine(ex)} — so that ${input.target.name === 'markdown' ? 'you' : `you, ${who},`} can continue that work.`
      : `**Relayed context.** sp compiled this from another coding agent's session — ${sourceLine(ex)} — so that ${who} can continue that work.`;
  return [
    `> ${opening}`,
    '> - The tool calls and commands mentioned here already ran in that session. They are history: do not re-run them to "continue"; check the current state of the workspace first (for example `git status` and the tests).',
    // What is not carried (the loss ledger in short). Whether the history itself is shown as well
    // depends on how the handoff is delivered, so this says what the handoff leaves out.
    `> - Not carried by this handoff, so ${input.format === 'message' ? 'you cannot' : 'the reader cannot'} see it here: ${cannot.join('; ')}.`,
    `> - \`[seq N]\` points at event N of that session's sp event log (\`${ex.primary.info.id}\`), which holds the full detail.`,
  ];
}

function pointers(ex: Extraction): string[] {
  const info = ex.primary.info;
  const P = info.id;
  const lines = [`- Source: ${agentLabel(info.agent)} session ${code(info.nativeId ?? P)} = sp session ${code(P)}, seq ${info.firstSeq}–${info.lastSeq} (${plural(info.events, 'event')}).`];
  const where = [info.cwd ? `working directory ${code(info.cwd)}` : undefined, info.branch ? `git branch ${code(info.branch)}` : undefined, info.model ? `model ${info.model}` : undefined].filter(Boolean);
  if (where.length) lines.push(`- Workspace: ${where.join(', ')}.`);
  for (const child of ex.children) {
    const fork = ex.primary.forks.find((f) => f.child === child.info.id);
    const what = [fork?.kind, fork?.description].filter(Boolean).join(': ');
    lines.push(`- Subagent session ${code(child.info.id)}${what ? ` (${what})` : ''}, seq ${child.info.firstSeq}–${child.info.lastSeq}${fork ? `, started at ${provenance(P, P, [fork.seq])}` : ''}.`);
  }
  for (const seq of ex.compactions) {
    lines.push(`- The source client compacted its context at ${provenance(P, P, [seq])}; this handoff was compiled from the full log, not from the compacted context.`);
  }
  if (ex.abandoned.length) {
    lines.push(`- Abandoned branch: seq ${ex.abandoned.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(', ')} (left out; the conversation continued from an earlier point).`);
  }
  for (const loss of ex.losses.filter((l) => l.reason.startsWith('older than'))) {
    lines.push(`- Not considered: ${plural(loss.count, loss.kind)} ${loss.reason} (seq ${loss.ranges[0][0]}–${loss.ranges[0][1]}).`);
  }
  lines.push(`- Everything left out is listed, with its reason, in the \`dropped\` part of the \`context.compiled\` event (seq ${info.lastSeq + 1}).`);
  return lines;
}

function next(input: RenderInput): string {
  const ex = input.extraction;
  const imperative = input.format === 'message';
  const P = ex.primary.info.id;
  if (ex.unanswered) {
    const where = provenance(P, P, [ex.unanswered.seq]);
    return imperative
      ? `The user's latest request ${where} was not finished in the source session. Check the current state of the workspace (work on it may be half done), then continue with it${ex.openWork ? ' and the open plan steps' : ''}.`
      : `The user's latest request ${where} was not finished in the source session${ex.openWork ? ', and plan steps are open' : ''}. Check the current state of the workspace before continuing.`;
  }
  if (ex.openWork) {
    return imperative
      ? 'The latest request was answered, but plan steps are still open (above). Check the current state, then continue with them, or ask the user if it is unclear whether they are still wanted.'
      : 'The latest request was answered; plan steps are still open (see above).';
  }
  return imperative
    ? 'The latest request was answered in the source session and nothing is left open. Reply briefly that you have this context, then wait for the user\'s next instruction.'
    : 'The latest request was answered in the source session and nothing is left open.';
}

function sectionLines(section: Section, items: readonly Item[], level: string, files: boolean): string[] {
  const own = items.filter((i) => i.section === section);
  if (own.length === 0) {
    const none = EMPTY[section] ?? (files ? '- None.' : undefined);
    return none ? [`${level} ${HEADINGS[section]}`, '', none, ''] : [];
  }
  own.sort((a, b) => a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return [`${level} ${HEADINGS[section]}`, '', ...own.map((i) => i.text), ''];
}

export function render(input: RenderInput, items: readonly Item[]): Rendered {
  const ex = input.extraction;
  const docs: Doc[] = [];
  const layout = LAYOUT[input.format];
  for (const part of layout) {
    const lines: string[] = [];
    const files = input.format === 'files';
    if (input.format === 'message') {
      lines.push(`# Handoff: ${title(ex)}`, '', ...header(input), '');
    } else if (input.format === 'agents-md') {
      lines.push(AGENTS_MD_BEGIN, `## Handoff from ${agentLabel(ex.primary.info.agent)}: ${title(ex)}`, '', ...header(input), '');
    } else if (part.name === 'HANDOFF.md') {
      lines.push(`# Handoff: ${title(ex)}`, '', ...header(input), '', 'The state of the work is in STATE.md (files, commands), TASKS.md (plan, todos, requests) and DECISIONS.md (decisions, constraints).', '');
    } else {
      lines.push(`# ${part.name.replace(/\.md$/, '')}: ${title(ex)}`, '', `Part of a handoff compiled by sp from ${sourceLine(ex)}; read HANDOFF.md first. \`[seq N]\` points at event N of sp session \`${ex.primary.info.id}\`.`, '');
    }
    const level = input.format === 'agents-md' ? '###' : '##';
    for (const section of part.sections) lines.push(...sectionLines(section, items, level, files));
    if (input.format !== 'files' || part.name === 'HANDOFF.md') {
      lines.push(`${level} Pointers`, '', ...pointers(ex), '', `${level} ${input.format === 'message' ? 'What to do now' : 'Next'}`, '', next(input), '');
    }
    if (input.format === 'agents-md') lines.push(AGENTS_MD_END);
    docs.push({ name: part.name, text: `${lines.join('\n').replace(/\n+$/, '')}\n` });
  }
  const text = docs.length === 1 ? docs[0].text : docs.map((d) => `<!-- file: ${d.name} -->\n${d.text}`).join('\n');
  return { docs, text };
}

/** "3 more commands [seq 5, 9–12]: `npm test` ×2, `git status`" for items that did not fit. */
export function digestLine(kind: string, items: readonly Item[], primary: string): string {
  const seqs = items.flatMap((i) => (i.session === primary ? i.seqs.slice(0, 1) : []));
  const names = new Map<string, number>();
  for (const i of items) {
    const name = oneLine((i.quote ?? i.kind).slice(0, 200), 60);
    names.set(name, (names.get(name) ?? 0) + 1);
  }
  const top = [...names.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, 3)
    .map(([name, n]) => `${code(name)}${n > 1 ? ` ×${n}` : ''}`);
  const more = names.size > 3 ? ', …' : '';
  return `- ${plural(items.length, `more ${kind}`)}${seqs.length ? ` [seq ${formatSeqs(seqs, 4)}]` : ''}: ${top.join(', ')}${more}`;
}
