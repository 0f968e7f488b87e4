// Context items (seed §7.2): what the extractor kept, on the active branch, turned into rendered
// markdown lines with provenance, a priority and a value. P0 items are kept verbatim or the compile
// fails; P1 items are chosen by value per token; P2 items are the extractive summary.
import { commandErrorQuote, commandErrors, commandResult, inputSummary, toolErrorLines, type Cmd, type Decision, type Extractor, type Msg, type SessionState } from './extract.js';
import { summarize } from './summarize.js';
import { code, coverKey, cutText, formatSeqs, normalizeKey, oneLine, relativePath, verbatimPart } from './text.js';

export type Priority = 0 | 1 | 2;

export const SECTIONS = [
  'goal',
  'problems',
  'workspace',
  'open',
  'decisions',
  'constraints',
  'reply',
  'files',
  'commands',
  'done',
  'requests',
  'summary',
  'excerpts',
  'digest',
  'diffs',
] as const;
export type Section = (typeof SECTIONS)[number];

export type ItemKind =
  | 'goal'
  | 'request'
  | 'todo'
  | 'plan-step'
  | 'decision'
  | 'failed-command'
  | 'unanswered-call'
  | 'unanswered-request'
  | 'constraint'
  | 'memory'
  | 'reply'
  | 'file'
  | 'diff'
  | 'command'
  | 'tool-error'
  | 'excerpt'
  | 'digest'
  | 'workspace'
  | 'summary';

export interface Item {
  /** Stable and unique: kind, session and seq. */
  id: string;
  kind: ItemKind;
  priority: Priority;
  section: Section;
  session: string;
  /** Provenance: the events this item comes from (the first one holds `quote`). */
  seqs: number[];
  /** The rendered markdown (a bullet, maybe with indented lines), provenance included. */
  text: string;
  /** Source text quoted verbatim from the event at seqs[0]. */
  quote?: string;
  /** Worth for ranking P1 and P2 items (value per token decides). */
  value: number;
  /** Where the item goes within its section. */
  order: number;
  /** Structured detail for the compiled event (status, decision and reason …). */
  detail?: Record<string, unknown>;
}

/** What the handoff does not carry, for the relay header and the `dropped` list. */
export interface Loss {
  kind: string;
  reason: string;
  session: string;
  count: number;
  ranges: Array<[number, number]>;
}

export interface Extraction {
  primary: SessionState;
  children: SessionState[];
  items: Item[];
  losses: Loss[];
  /** The latest prompt, when the source agent did not finish answering it. */
  unanswered?: Msg;
  /** Open todos or plan steps remain. */
  openWork: boolean;
  compactions: number[];
  abandoned: Array<[number, number]>;
  /** Decisions in the handoff that only text suggests (no `decision` event says so): what --extract-decisions records. */
  guessedDecisions: Decision[];
}

/** Added to a guessed decision's order, to follow every recorded one (small enough to keep the fractions). */
const GUESS_ORDER = 1e9;

/**
 * The decisions on the session's path, recorded ones (decision events) first: a guess from message
 * or summary text that repeats a recorded decision (its whole sentence or what was decided) is left
 * out, so the event's wording and provenance win.
 */
export function pathDecisions(state: SessionState): Decision[] {
  const all = state.decisions.all().filter((d) => state.onPath(d.seq));
  const recorded = all.filter((d) => d.source === 'event');
  const known = new Set(recorded.flatMap((d) => [normalizeKey(d.text), normalizeKey(d.decision)]));
  const guesses = all.filter((d) => d.source !== 'event' && !known.has(normalizeKey(d.text)) && !known.has(normalizeKey(d.decision)));
  return [...recorded, ...guesses];
}

/** `[seq 4]`, `[seq 29, 32]`, or `[sess_2452fa80 seq 5]` for another session of the stream. */
export function provenance(primary: string, session: string, seqs: readonly number[]): string {
  const list = formatSeqs(seqs);
  return session === primary ? `[seq ${list}]` : `[${session.slice(0, 13)} seq ${list}]`;
}

/** A quote for markdown: one line, backticks and all kept (it must stay verbatim). */
function quoteLine(text: string, max: number): string {
  return cutText(text.replace(/\s*\n\s*/g, ' ').trim(), max);
}

/** Indented continuation lines of a bullet. */
function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => (l ? `  ${l}` : l))
    .join('\n');
}

const OPEN_STATUSES = new Set(['pending', 'in_progress', 'in-progress', 'active', 'open', 'todo', 'blocked', 'started']);
const DONE_STATUSES = new Set(['completed', 'complete', 'done', 'finished']);

export function extract(ex: Extractor, primaryId: string): Extraction {
  const collect = new ItemCollector(ex.sessions.get(primaryId)!, ex.descendants(primaryId));
  const { primary, children, items } = collect;
  // The order of the steps is the order of the items (and what `covered` holds when the summary runs).
  const latest = collect.goalAndRequests();
  const openWork = collect.todosAndPlan();
  const guessed = collect.decisionsAndConstraints();
  const { commands, lastFailure, unanswered } = collect.problems(latest);
  const { replies, lastReply } = collect.lastWord();
  collect.files();
  collect.commandsAndToolErrors(commands, lastFailure);
  collect.summary(replies, lastReply);
  const { losses, abandoned } = notCarried(primary, children);
  return {
    primary,
    children,
    items,
    losses,
    unanswered,
    openWork,
    compactions: primary.compactions.filter((c) => /compact/i.test(c.kind) && primary.onPath(c.seq)).map((c) => c.seq),
    abandoned,
    guessedDecisions: guessed,
  };
}

/**
 * Builds the items of one extraction, section by section. The steps share the sessions, the items
 * so far, and the texts already quoted (`covered`: the summary leaves those out).
 */
class ItemCollector {
  readonly items: Item[] = [];
  readonly covered = new Set<string>(); // normalized texts already quoted by an item
  private readonly span: number;

  constructor(
    readonly primary: SessionState,
    readonly children: SessionState[],
  ) {
    this.span = Math.max(1, primary.info.lastSeq - primary.info.firstSeq);
  }

  /** 0 at the start of the session, 1 at its end. */
  readonly recency = (seq: number): number => Math.min(1, Math.max(0, (seq - this.primary.info.firstSeq) / this.span));
  readonly prov = (session: string, seqs: readonly number[]): string => provenance(this.primary.info.id, session, seqs);

  /** The latest request (P0, verbatim), the first one, and those between; returns the latest. */
  goalAndRequests(): Msg | undefined {
    const { primary, items, covered, recency, prov } = this;
    const P = primary.info.id;
    const requests = primary.requests.all().filter((m) => primary.onPath(m.seq));
    const first = primary.firstRequest && primary.onPath(primary.firstRequest.seq) ? primary.firstRequest : requests[0];
    const latest = requests[requests.length - 1];
    if (latest) {
      // The latest request is the current intent: P0, verbatim (multi-line requests stay multi-line).
      const body = latest.text.includes('\n') ? `\n${indent(`> ${latest.text.split('\n').join('\n> ')}`)}` : ` ${latest.text}`;
      items.push({
        id: `goal:${latest.seq}`,
        kind: 'goal',
        priority: 0,
        section: 'goal',
        session: P,
        seqs: [latest.seq],
        text: `- ${first && first.seq !== latest.seq ? 'Latest request' : 'Request'} ${prov(P, [latest.seq])}:${body}${imageNote(latest)}`,
        quote: latest.text,
        value: 0,
        order: 2,
      });
      covered.add(coverKey(latest.text));
    }
    if (first && latest && first.seq !== latest.seq) {
      const text = quoteLine(first.text, 1200);
      items.push({
        id: `goal:${first.seq}`,
        kind: 'goal',
        priority: 1,
        section: 'goal',
        session: P,
        seqs: [first.seq],
        text: `- First request ${prov(P, [first.seq])}: ${text}${imageNote(first)}`,
        quote: verbatimPart(text),
        value: 200,
        order: 1,
      });
      covered.add(coverKey(first.text));
    }
    for (const m of requests) {
      if (m.seq === latest?.seq || m.seq === first?.seq) continue;
      const text = quoteLine(m.text, 400);
      items.push({
        id: `request:${m.seq}`,
        kind: 'request',
        priority: 1,
        section: 'requests',
        session: P,
        seqs: [m.seq],
        text: `- ${prov(P, [m.seq])} ${text}${imageNote(m)}`,
        quote: verbatimPart(text),
        value: 40 + 30 * recency(m.seq),
        order: m.seq,
      });
      covered.add(coverKey(m.text));
    }
    return latest;
  }

  /** Todos of every session and the steps of the latest checklist; returns whether any is still open. */
  todosAndPlan(): boolean {
    const { primary, children, items, recency, prov } = this;
    const P = primary.info.id;
    let openWork = false;
    for (const s of [primary, ...children]) {
      for (const t of s.todoStates()) {
        if (t.removed) continue;
        const status = t.status.toLowerCase();
        const open = !DONE_STATUSES.has(status) && (OPEN_STATUSES.has(status) || !/cancel|skip|delet|remov|obsolete/.test(status));
        const where = prov(s.info.id, t.seqs);
        if (open) {
          openWork = true;
          items.push({
            id: `todo:${s.info.id}:${t.id}`,
            kind: 'todo',
            priority: 0,
            section: 'open',
            session: s.info.id,
            seqs: t.seqs,
            text: `- [ ] ${t.content} — ${status.replace(/_/g, ' ')} ${where}`,
            quote: t.content,
            value: 0,
            order: t.seqs[0],
            detail: { status: t.status, todo_id: t.id },
          });
        } else {
          items.push({
            id: `todo:${s.info.id}:${t.id}`,
            kind: 'todo',
            priority: 1,
            section: 'done',
            session: s.info.id,
            seqs: t.seqs,
            text: `- [x] ${t.content} — ${status.replace(/_/g, ' ')} ${where}`,
            quote: t.content,
            value: 30 + 30 * recency(t.seqs[t.seqs.length - 1]),
            order: t.seqs[0],
            detail: { status: t.status, todo_id: t.id },
          });
        }
      }
    }
    const plan = primary.plans.all().filter((p) => primary.onPath(p.seq)).pop();
    if (plan) {
      plan.steps.forEach((step, i) => {
        const where = prov(P, [plan.seq]);
        items.push({
          id: `plan:${plan.seq}:${i + 1}`,
          kind: 'plan-step',
          priority: step.done ? 1 : 0,
          section: step.done ? 'done' : 'open',
          session: P,
          seqs: [plan.seq],
          text: `- [${step.done ? 'x' : ' '}] ${step.text} — ${step.done ? 'checked' : 'open'} in the agent's checklist ${where}`,
          quote: step.text,
          value: step.done ? 30 + 30 * recency(plan.seq) : 0,
          order: plan.seq + i / 1000,
          detail: { status: step.done ? 'completed' : 'pending', step: i + 1 },
        });
        if (!step.done) openWork = true;
      });
    }
    return openWork;
  }

  /** Decisions on the path, then the latest constraints; returns the decisions only text suggests. */
  decisionsAndConstraints(): Decision[] {
    const { primary, items, covered, prov } = this;
    const P = primary.info.id;
    const seenDecisions = new Set<string>();
    const guessed: Decision[] = [];
    for (const d of pathDecisions(primary)) {
      const key = normalizeKey(d.text);
      if (seenDecisions.has(key)) continue;
      seenDecisions.add(key);
      covered.add(key);
      const from = d.source === 'summary' ? ' (from the client’s compaction summary)' : '';
      items.push({
        id: `decision:${d.seq}:${seenDecisions.size}`,
        kind: 'decision',
        priority: 0,
        section: 'decisions',
        session: P,
        seqs: [d.seq],
        text: `- ${d.text}${from} ${prov(P, [d.seq])}`,
        quote: d.source === 'event' ? d.decision : d.text,
        value: 0,
        // Recorded decisions lead the section, then the guesses from text (each group in session order).
        order: (d.source === 'event' ? 0 : GUESS_ORDER) + d.seq + seenDecisions.size / 1e6,
        detail: { decision: d.decision, ...(d.reason ? { reason: d.reason } : {}) },
      });
      if (d.source !== 'event') guessed.push(d);
    }
    // Constraints: the latest statement of each (a restatement, or a shorter cut of it, is the same),
    // at most the 50 latest, shown in the order they were said.
    const kept: Array<{ key: string; c: { seq: number; text: string; source: 'user' | 'memory' } }> = [];
    for (const c of [...primary.constraints.all()].reverse()) {
      if (kept.length >= 50) break;
      if (!primary.onPath(c.seq)) continue;
      const key = normalizeKey(c.text);
      if (!key || seenDecisions.has(key) || kept.some((k) => k.key.includes(key) || key.includes(k.key))) continue;
      kept.push({ key, c });
    }
    kept.reverse().forEach(({ key, c }, n) => {
      covered.add(key);
      const text = quoteLine(c.text, 600);
      items.push({
        id: `${c.source === 'memory' ? 'memory' : 'constraint'}:${c.seq}:${n + 1}`,
        kind: c.source === 'memory' ? 'memory' : 'constraint',
        priority: 1,
        section: 'constraints',
        session: P,
        seqs: [c.seq],
        text: `- ${c.source === 'memory' ? 'Remembered: ' : ''}${text} ${prov(P, [c.seq])}`,
        quote: verbatimPart(text),
        // What the user said must or must not happen outranks everything else in P1.
        value: c.source === 'memory' ? 200 : 300,
        order: c.seq + n / 1e6,
      });
    });
    return guessed;
  }

  /** The last failing command, tool calls without a result, an unfinished latest request. */
  problems(latest: Msg | undefined): { commands: Array<{ s: SessionState; c: Cmd }>; lastFailure?: Cmd; unanswered?: Msg } {
    const { primary, children, items, prov } = this;
    const P = primary.info.id;
    const commands: Array<{ s: SessionState; c: Cmd }> = [];
    for (const s of [primary, ...children]) for (const c of s.commands.all()) if (s.onPath(c.seq)) commands.push({ s, c });
    const failures = primary.failures.all().filter((c) => primary.onPath(c.seq));
    const lastFailure = failures[failures.length - 1];
    if (lastFailure) {
      const errors = commandErrors(lastFailure);
      const lines = [`- Last failing command ${prov(P, [lastFailure.seq])}: ${commandLine(lastFailure)}`];
      for (const e of errors) lines.push(`  - ${e}`);
      const resolved = lastFailure.resolvedBy !== undefined && primary.onPath(lastFailure.resolvedBy) ? lastFailure.resolvedBy : undefined;
      lines.push(resolved !== undefined ? `  - the same command succeeded later ${prov(P, [resolved])}` : '  - not run successfully since');
      items.push({
        id: `failed:${lastFailure.seq}`,
        kind: 'failed-command',
        priority: 0,
        section: 'problems',
        session: P,
        seqs: resolved !== undefined ? [lastFailure.seq, resolved] : [lastFailure.seq],
        text: lines.join('\n'),
        quote: commandErrorQuote(lastFailure) ?? lastFailure.cmd,
        value: 0,
        order: 1,
        detail: { cmd: lastFailure.cmd, exit_code: lastFailure.exit ?? null, error: errors, resolved_by: resolved ?? null },
      });
    }
    for (const s of [primary, ...children]) {
      for (const call of s.pending.values()) {
        if (!s.onPath(call.seq)) continue;
        const input = inputSummary(call.input);
        items.push({
          id: `call:${s.info.id}:${call.seq}`,
          kind: 'unanswered-call',
          priority: 0,
          section: 'problems',
          session: s.info.id,
          seqs: [call.seq],
          text: `- Tool call without a recorded result ${prov(s.info.id, [call.seq])}: ${call.name}${input ? ` ${code(input)}` : ''} — it may or may not have run; check its effect before repeating it`,
          quote: call.name,
          value: 0,
          order: 2 + call.seq / 1e9,
        });
      }
    }
    let unanswered: Msg | undefined;
    if (latest && !primary.answered(latest)) {
      unanswered = latest;
      items.push({
        id: `unanswered:${latest.seq}`,
        kind: 'unanswered-request',
        priority: 0,
        section: 'problems',
        session: P,
        seqs: [latest.seq],
        text: `- The latest request ${prov(P, [latest.seq])} (under Goal) was not finished: the source agent's turn ended without a final answer`,
        value: 0,
        order: 3,
      });
    }
    return { commands, lastFailure, unanswered };
  }

  /** The source agent's last message; returns the replies on the path and that last one. */
  lastWord(): { replies: Msg[]; lastReply?: Msg } {
    const { primary, items, prov } = this;
    const P = primary.info.id;
    const replies = primary.replies.all().filter((m) => primary.onPath(m.seq));
    const lastReply = replies[replies.length - 1];
    if (lastReply) {
      const text = cutText(lastReply.text.trim(), 1500);
      items.push({
        id: `reply:${lastReply.seq}`,
        kind: 'reply',
        priority: 1,
        section: 'reply',
        session: P,
        seqs: [lastReply.seq],
        text: `- The source agent's last message ${prov(P, [lastReply.seq])}:\n${indent(`> ${text.split('\n').join('\n> ')}`)}`,
        quote: verbatimPart(text),
        value: 150,
        order: lastReply.seq,
      });
    }
    return { replies, lastReply };
  }

  /** Every edited file of every session, with the last diff of each. */
  files(): void {
    const { primary, children, items, recency, prov } = this;
    const cwd = primary.info.cwd;
    for (const s of [primary, ...children]) {
      for (const f of s.fileStates()) {
        const seqs = f.edits.map((e) => e.seq);
        const added = f.edits.reduce((n, e) => n + e.added, f.older.added);
        const removed = f.edits.reduce((n, e) => n + e.removed, f.older.removed);
        const editCount = f.edits.length + f.older.count;
        const firstKind = f.edits[0].kind;
        const lastKind = f.edits[f.edits.length - 1].kind;
        const what = lastKind === 'delete' ? 'deleted' : firstKind === 'create' ? 'created' : firstKind === 'modify' || editCount > 1 ? 'modified' : 'written';
        const path = relativePath(f.path, s.info.cwd ?? cwd);
        const edits = editCount === 1 ? '1 edit' : `${editCount} edits`;
        const by = s === primary ? '' : ` (by the ${s.info.agent} subagent)`;
        const last = seqs[seqs.length - 1];
        items.push({
          id: `file:${s.info.id}:${f.path}`,
          kind: 'file',
          priority: 1,
          section: 'files',
          session: s.info.id,
          seqs: [...new Set([seqs[0], ...seqs.slice(-4)])],
          text: `- ${code(path)} — ${what}, ${edits}, +${added} −${removed}${by} ${prov(s.info.id, seqs)}`,
          quote: f.path,
          value: 60 + 25 * recency(last),
          order: last,
          detail: { path: f.path, edits: editCount, added, removed, change: what },
        });
        if (f.diff) {
          const lines = f.diff.diff.split('\n');
          const changed = lines.filter((l) => /^[+-](?![+-]{2}\s)/.test(l)).slice(0, 12);
          if (changed.length > 0) {
            const body = changed.map((l) => cutText(l, 160)).join('\n');
            items.push({
              id: `diff:${s.info.id}:${f.diff.seq}`,
              kind: 'diff',
              priority: 2,
              section: 'diffs',
              session: s.info.id,
              seqs: [f.diff.seq],
              text: `- ${code(path)} ${prov(s.info.id, [f.diff.seq])}:\n${indent(`\`\`\`diff\n${body}\n\`\`\``)}`,
              quote: verbatimPart(changed[0].slice(1).trim()) || undefined,
              value: 20 + 15 * recency(f.diff.seq),
              order: f.diff.seq,
            });
          }
        }
      }
    }
  }

  /** Commands (errors first) and tool errors; the last failing command is already under problems. */
  commandsAndToolErrors(commands: Array<{ s: SessionState; c: Cmd }>, lastFailure: Cmd | undefined): void {
    const { primary, children, items, recency, prov } = this;
    for (const { s, c } of commands) {
      if (s === primary && c === lastFailure) continue;
      const where = prov(s.info.id, [c.seq]);
      const errors = c.failed ? commandErrors(c) : [];
      const result = c.failed ? undefined : commandResult(c);
      const tail = c.failed ? (errors.length ? `: ${errors.join(' — ')}` : '') : result ? `: ${result}` : '';
      items.push({
        id: `command:${s.info.id}:${c.seq}`,
        kind: 'command',
        priority: 1,
        section: 'commands',
        session: s.info.id,
        seqs: [c.seq],
        text: `- ${commandLine(c)}${c.failed ? ' (failed)' : ''} ${where}${oneLine(tail, 400)}`,
        quote: c.cmd,
        value: (c.failed ? 90 : 25) + 25 * recency(c.seq),
        // Errors first, then the rest, each newest first.
        order: (c.failed ? 0 : 1e12) - c.seq,
        detail: { cmd: c.cmd, exit_code: c.exit ?? null, failed: c.failed },
      });
    }
    for (const s of [primary, ...children]) {
      for (const t of s.toolErrors.all()) {
        if (!s.onPath(t.seq)) continue;
        const { errors, quote } = toolErrorLines(t);
        items.push({
          id: `tool-error:${s.info.id}:${t.seq}`,
          kind: 'tool-error',
          priority: 1,
          section: 'commands',
          session: s.info.id,
          seqs: [t.seq],
          text: `- ${t.name}${t.input ? ` ${code(t.input)}` : ''} → error ${prov(s.info.id, [t.seq])}: ${oneLine(errors.join(' — '), 400)}`,
          quote: verbatimPart(quote),
          value: 70 + 25 * recency(t.seq),
          order: -t.seq,
        });
      }
    }
  }

  /** The extractive summary of the replies before the last one, leaving out what is covered. */
  summary(replies: Msg[], lastReply: Msg | undefined): void {
    const { items, covered, recency, prov } = this;
    const P = this.primary.info.id;
    for (const item of summarize(replies.filter((m) => m !== lastReply), { recency, covered, provenance: (seqs) => prov(P, seqs), session: P })) {
      items.push(item);
    }
  }
}

/** What the handoff does not carry: private reasoning, images, raw output, abandoned branches, what the rings evicted. */
function notCarried(primary: SessionState, children: SessionState[]): { losses: Loss[]; abandoned: Array<[number, number]> } {
  const P = primary.info.id;
  const losses: Loss[] = [];
  const lossFrom = (s: SessionState, kind: string, reason: string, t: { count: number; first: number; last: number }) => {
    if (t.count > 0) losses.push({ kind, reason, session: s.info.id, count: t.count, ranges: [[t.first, t.last]] });
  };
  for (const s of [primary, ...children]) {
    lossFrom(s, 'thinking', 'private reasoning is not carried to another agent', s.thinking);
    lossFrom(s, 'image', 'images are not carried in a text handoff', s.images);
    lossFrom(s, 'tool-output', 'raw tool output is not carried; commands, errors and edits are summarized', s.toolResults);
    if (s.filesOverflow.count > 0) lossFrom(s, 'file.edit', 'more than 5000 files were edited; the rest were not tracked', s.filesOverflow);
  }
  const abandoned = primary.abandoned();
  if (abandoned.length > 0) {
    losses.push({ kind: 'branch', reason: 'on an abandoned branch (the conversation went back to an earlier point)', session: P, count: abandoned.reduce((n, [a, b]) => n + b - a + 1, 0), ranges: abandoned });
  }
  const evicted = (kind: string, ring: { evicted: number; evictedFirst: number; evictedLast: number }, what: string) => {
    if (ring.evicted > 0) losses.push({ kind, reason: `older than the ${what} the compiler keeps`, session: P, count: ring.evicted, ranges: [[ring.evictedFirst, ring.evictedLast]] });
  };
  evicted('request', primary.requests, '300 most recent requests');
  evicted('excerpt', primary.replies, '300 most recent agent messages');
  evicted('command', primary.commands, '200 most recent commands');
  evicted('decision', primary.decisions, '300 most recent decisions');
  evicted('constraint', primary.constraints, '100 most recent constraints');
  evicted('tool-error', primary.toolErrors, '50 most recent tool errors');
  return { losses, abandoned };
}

/** `cmd` → exit 1 (or interrupted, or failed when no exit code was recorded). */
function commandLine(c: Cmd): string {
  return `${code(c.cmd)} → ${c.interrupted ? 'interrupted' : c.exit === undefined || c.exit === null ? 'failed' : `exit ${c.exit}`}`;
}

function imageNote(m: Msg): string {
  return m.images > 0 ? ` (+${m.images} image${m.images > 1 ? 's' : ''}, not carried)` : '';
}
