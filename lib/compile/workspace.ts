// The workspace as it is now, for the handoff: git state and the last test run. The event log says
// what happened; the next agent also needs to know what the working tree looks like at hand-over
// (uncommitted changes, the branch, commits made since, whether the tests pass). Every item here is
// observed at compile time, not read from the log, and names the command it came from.
//
// The folder comes from the session (hostile data) or --workspace, so git runs read-only and
// without anything the repository's own config could make it execute: no fsmonitor, no hooks, no
// external diff or textconv drivers, no optional locks (git status would otherwise refresh the
// index, a write). Nothing is written to the workspace.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import type { Cmd } from './extract.js';
import { provenance, type Item } from './items.js';
import { code, oneLine } from './text.js';

export interface WorkspaceOptions {
  /** The folder to look at. */
  dir: string;
  /** The compiled session's id (items carry it as their session). */
  session: string;
  /** When the session started (epoch seconds): commits after it are "made since the session started". */
  since?: number;
  /** The last test command seen in the session. */
  lastTest?: Cmd;
  /** Run that test command again (only with --rerun-tests). */
  rerunTests?: boolean;
  /** Bound of a test re-run, in ms. */
  testTimeoutMs?: number;
}

/** Commands that run a test suite: the only ones --rerun-tests re-runs. */
const TEST_COMMAND = /^(?:(?:npx|pnpm|yarn|bunx?|uv run|poetry run|python3? -m)\s+)?(?:npm (?:run )?test|npm t\b|pnpm test|yarn test|vitest|jest|mocha|pytest|py\.test|go test|cargo test|cargo nextest|make (?:test|check)|rspec|bundle exec rspec|mvn test|gradle test|\.\/gradlew test|dotnet test|deno test|bun test|tox|nox|phpunit|mix test|swift test|ctest)(?:\s|$)/;

/**
 * Whether a command line runs tests and nothing else: every part of a `cd x && …` / `;` chain is a
 * `cd` or a test runner, and there is no pipe, redirection, substitution or second line (such a
 * command is only ever shown, never re-run).
 */
export function safeToRerun(cmd: string): boolean {
  if (/[`$()|<>\n\r]/.test(cmd)) return false;
  const parts = cmd.split(/\s*(?:&&|;)\s*/).map((p) => p.trim()).filter(Boolean);
  const tests = parts.filter((p) => TEST_COMMAND.test(p));
  return tests.length > 0 && parts.every((p) => TEST_COMMAND.test(p) || /^cd\s+[^\s&;]+$/.test(p));
}

/** Whether a command line runs a test suite somewhere in it (`npm test 2>&1 | tail` counts). */
export function runsTests(cmd: string): boolean {
  return cmd.split(/\s*(?:&&|\|\||;|\|)\s*/).some((p) => TEST_COMMAND.test(p.trim()));
}

/** The last command of the session that ran tests. */
export function lastTestCommand(commands: readonly Cmd[]): Cmd | undefined {
  for (let i = commands.length - 1; i >= 0; i -= 1) if (runsTests(commands[i].cmd)) return commands[i];
  return undefined;
}

const GIT_SAFE = ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'diff.external=', '-c', 'core.pager=cat', '-c', 'color.ui=false'];
const GIT_TIMEOUT_MS = 10_000;

interface GitRun {
  ok: boolean;
  out: string;
}

function git(dir: string, args: string[]): GitRun {
  const run = spawnSync('git', [...GIT_SAFE, '-C', dir, ...args], {
    encoding: 'utf8',
    timeout: GIT_TIMEOUT_MS,
    maxBuffer: 8 << 20,
    env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { ok: run.status === 0 && !run.error, out: run.stdout ?? '' };
}

/** `git status --porcelain -z` in counts: what kind of change, how many paths. */
export function summarizeStatus(porcelainZ: string): { counts: Record<string, number>; paths: string[] } {
  const counts: Record<string, number> = {};
  const paths: string[] = [];
  const fields = porcelainZ.split('\0');
  for (let i = 0; i < fields.length; i += 1) {
    const field = fields[i];
    if (field.length < 4) continue;
    const xy = field.slice(0, 2);
    const path = field.slice(3);
    // A rename or copy is followed by its source path in the next field.
    if (xy[0] === 'R' || xy[0] === 'C') i += 1;
    const kind =
      xy === '??' ? 'untracked'
      : xy.includes('U') || xy === 'AA' || xy === 'DD' ? 'conflicted'
      : xy.includes('R') ? 'renamed'
      : xy.includes('A') ? 'added'
      : xy.includes('D') ? 'deleted'
      : 'modified';
    counts[kind] = (counts[kind] ?? 0) + 1;
    paths.push(path);
  }
  return { counts, paths };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A workspace item; `command` undefined: it comes from the log (its seqs say where), not observed now. */
function item(session: string, key: string, order: number, text: string, command: string | undefined, detail: Record<string, unknown>, value: number): Item {
  return {
    id: `workspace:${key}`,
    kind: 'workspace',
    priority: 1,
    section: 'workspace',
    session,
    seqs: [],
    text: command === undefined ? text : `${text} (observed now: ${code(command)})`,
    value,
    order,
    detail: command === undefined ? { observed: 'log', ...detail } : { observed: 'now', command, ...detail },
  };
}

/** What the workspace looks like now, as context items (none when `dir` is not a folder). */
export function observeWorkspace(options: WorkspaceOptions): Item[] {
  const { dir, session } = options;
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  const items: Item[] = [];
  const top = git(dir, ['rev-parse', '--show-toplevel']);
  if (top.ok) items.push(...gitItems(dir, session, options.since));
  const test = testItem(options);
  if (test) items.push(test);
  return items;
}

function gitItems(dir: string, session: string, since: number | undefined): Item[] {
  const items: Item[] = [];
  const branch = git(dir, ['symbolic-ref', '--short', '-q', 'HEAD']);
  const head = git(dir, ['log', '-1', '--no-show-signature', '--format=%h%x00%s']);
  const [hash, subject] = head.ok ? head.out.trim().split('\0') : [];
  const counts = git(dir, ['rev-list', '--left-right', '--count', '@{upstream}...HEAD']);
  const upstream = git(dir, ['rev-parse', '--abbrev-ref', '@{upstream}']);
  let where = branch.ok ? `on branch ${code(branch.out.trim())}` : 'detached HEAD';
  if (hash) where += ` at ${code(hash)} “${oneLine(subject ?? '', 120)}”`;
  const detail: Record<string, unknown> = { branch: branch.ok ? branch.out.trim() : null, head: hash ?? null };
  if (counts.ok && upstream.ok) {
    const [behind, ahead] = counts.out.trim().split(/\s+/).map(Number);
    where += `; ${ahead} ahead, ${behind} behind ${code(upstream.out.trim())}`;
    Object.assign(detail, { upstream: upstream.out.trim(), ahead, behind });
  } else if (!hash) where += ' (no commits yet)';
  items.push(item(session, 'head', 0, `- Git: ${where}.`, 'git symbolic-ref; git log -1; git rev-list --left-right --count @{upstream}...HEAD', detail, 40));

  const status = git(dir, ['status', '--porcelain=v1', '-z', '--untracked-files=normal', '--no-renames']);
  if (status.ok) {
    const { counts: byKind, paths } = summarizeStatus(status.out);
    if (paths.length === 0) items.push(item(session, 'status', 1, '- Working tree: clean.', 'git status --porcelain', { changed: 0 }, 30));
    else {
      const kinds = Object.entries(byKind).map(([k, n]) => `${n} ${k}`).join(', ');
      const shown = paths.slice(0, 12).map(code).join(', ') + (paths.length > 12 ? `, … ${paths.length - 12} more` : '');
      const stat = git(dir, ['diff', '--no-ext-diff', '--no-textconv', '--shortstat', 'HEAD']);
      const diffstat = stat.ok && stat.out.trim() ? `; uncommitted diff: ${stat.out.trim()}` : '';
      items.push(item(session, 'status', 1, `- Working tree: ${plural(paths.length, 'changed path')} (${kinds})${diffstat}: ${shown}.`, 'git status --porcelain; git diff --shortstat HEAD', { changed: paths.length, kinds: byKind, diffstat: stat.out.trim() || null }, 60));
    }
  }

  if (since !== undefined && Number.isFinite(since)) {
    const after = `@${Math.floor(since)}`;
    const log = git(dir, ['log', `--since=${after}`, '--no-show-signature', '--format=%h%x00%s', '-n', '50']);
    const commits = log.ok ? log.out.split('\n').filter(Boolean).map((l) => l.split('\0')) : [];
    if (commits.length > 0) {
      const oldest = commits[commits.length - 1][0];
      const parent = git(dir, ['rev-parse', '--verify', '-q', `${oldest}^`]);
      const stat = parent.ok ? git(dir, ['diff', '--no-ext-diff', '--no-textconv', '--shortstat', `${oldest}^`, 'HEAD']) : undefined;
      const list = commits.slice(0, 5).map(([h, s]) => `${code(h)} ${oneLine(s ?? '', 80)}`).join('; ') + (commits.length > 5 ? `; … ${commits.length - 5} more` : '');
      items.push(item(session, 'commits', 2, `- Commits since the session started: ${commits.length >= 50 ? '50 or more' : commits.length}${stat?.ok && stat.out.trim() ? ` (${stat.out.trim()})` : ''}: ${list}.`, `git log --since=${after}`, { commits: commits.length }, 45));
    } else if (log.ok) items.push(item(session, 'commits', 2, '- Commits since the session started: none.', `git log --since=${after}`, { commits: 0 }, 15));
  }
  return items;
}

/** Lines from the start and the end of an output. */
function headTail(text: string, head = 5, tail = 10): string[] {
  const lines = text.split(/\r?\n/).map((l) => l.trimEnd()).filter(Boolean);
  if (lines.length <= head + tail) return lines;
  return [...lines.slice(0, head), `… ${lines.length - head - tail} lines …`, ...lines.slice(-tail)];
}

function testItem(options: WorkspaceOptions): Item | undefined {
  const last = options.lastTest;
  if (!last) return undefined;
  const status = (exit: number | null | undefined, interrupted?: boolean) =>
    interrupted ? 'interrupted' : exit === 0 ? 'passed (exit 0)' : typeof exit === 'number' ? `failed (exit ${exit})` : 'exit status unknown';
  const logged = `the session last ran ${code(last.cmd)} ${provenance(options.session, options.session, [last.seq])}: ${status(last.exit, last.interrupted)}`;
  if (!options.rerunTests) {
    return { ...item(options.session, 'tests', 3, `- Tests: ${logged}; not re-run (--rerun-tests runs it again here).`, undefined, { logged_exit: last.exit ?? null, rerun: false }, 50), seqs: [last.seq] };
  }
  // The command is the session's own text: re-run only a recognised test command, whole (a cut
  // one-line copy ends with …), in the workspace, bounded in time and output.
  if (last.cmd.endsWith('…') || !safeToRerun(last.cmd)) {
    return { ...item(options.session, 'tests', 3, `- Tests: ${logged}; not re-run (only a plain test-runner command is re-run).`, undefined, { logged_exit: last.exit ?? null, rerun: false }, 50), seqs: [last.seq] };
  }
  const timeout = options.testTimeoutMs ?? 120_000;
  const started = Date.now();
  const run = spawnSync('sh', ['-c', last.cmd], { cwd: options.dir, encoding: 'utf8', timeout, maxBuffer: 16 << 20, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: process.env.CI ?? '1' } });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const timedOut = run.error !== undefined && (run.error as NodeJS.ErrnoException).code === 'ETIMEDOUT';
  const outcome = timedOut ? `timed out after ${Math.round(timeout / 1000)} s` : run.status === 0 ? 'passed (exit 0)' : `failed (exit ${run.status ?? run.signal})`;
  const output = headTail(`${run.stdout ?? ''}\n${run.stderr ?? ''}`);
  const body = output.length ? `\n${output.map((l) => `  > ${oneLine(l, 200)}`).join('\n')}` : '';
  return {
    ...item(options.session, 'tests', 3, `- Tests: re-run now: ${outcome} in ${seconds} s (${logged}).${body}`, last.cmd, { logged_exit: last.exit ?? null, rerun: true, exit: run.status ?? null, timed_out: timedOut }, 70),
    seqs: [last.seq],
  };
}
