// One agent's drift check, run by scripts/drift.mjs through vitest (vitest.drift.config.ts) so it
// reuses the acceptance runners as they are. The client binaries come from SP_CLIENT_BIN_<AGENT>
// (the newest release in a scratch prefix, or the pinned one), so the same code checks either.
//
// 1. Fresh recording: a corpus session of the agent is written into a fresh home and the client
//    resumes it against the mock model: what the client appends is recorded by that client version.
//    The recorders are the relay matrix's targets and test/support/driftTargets.ts's.
// 2. Read: sp captures the session back; the probe turn must come out as a user message followed
//    by an assistant message. Every native file the client wrote or changed is copied out, for the
//    drift script to list record types and fields the fixtures never had.
// 3. Write+resume: the captured session is relayed into every writer target (the relay matrix's and
//    test/support/driftTargets.ts's) and resumed by that target's client (SP_CLIENT_BIN_<TARGET> when set), within the time left of the budget.
//
// In: SP_DRIFT_AGENT, SP_DRIFT_OUT (result JSON), SP_DRIFT_WORK, SP_DRIFT_BUDGET_MS. Out: the JSON.
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { it } from 'vitest';
import { getAdapter } from '../../adapters/index.js';
import { captureAll, captureRef } from '../contract/testAdapter.js';
import { limited, runCell, type MatrixSource } from '../support/matrix.js';
import { WRITE_TARGETS, recorderOf } from '../support/driftTargets.js';
import { PROBE } from '../support/matrixTargets.js';
import { relay } from '../../lib/relay/relay.js';
import type { SpEvent } from '../../lib/core/event.js';

const agent = process.env.SP_DRIFT_AGENT ?? '';
const out = process.env.SP_DRIFT_OUT ?? '';
const work = process.env.SP_DRIFT_WORK ?? '';
const budgetMs = Number(process.env.SP_DRIFT_BUDGET_MS ?? 120_000);

interface TargetResult { target: string; ok: boolean; reason: string; ms: number }
interface CheckResult {
  agent: string;
  /** No way to record with this client yet (not a relay target with a corpus source). */
  no_recorder?: boolean;
  read_ok: boolean;
  read_reason: string;
  /** Native JSON(L) files the client wrote or changed, copied under <work>/fresh/ (relative names). */
  fresh_files: string[];
  /** A session kept as one JSON document: the folder of the one sp wrote (relative), whose documents are its records. */
  session_dir?: string;
  targets: TargetResult[];
  ms: number;
}

/** Every file under `dir` with its size and modification time (to see what the client touched). */
function snapshot(dir: string, into = new Map<string, string>()): Map<string, string> {
  if (!existsSync(dir)) return into;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) snapshot(path, into);
    else if (entry.isFile()) {
      const s = statSync(path);
      into.set(path, `${s.size}:${s.mtimeMs}`);
    }
  }
  return into;
}

/** What every target's probe holds (OpenCode's is one word: `SP-MATRIX-PROBE-reply-OK`). */
const PROBE_MARK = PROBE.slice(0, PROBE.indexOf(':'));

/** The probe turn came back: a user message holding the probe, an assistant message after it. */
function readReason(events: SpEvent[]): string {
  const at = events.findIndex((e) => e.type === 'message.user' && JSON.stringify(e.payload).includes(PROBE_MARK));
  if (at < 0) return `the probe turn is not among the ${events.length} events read (0 turns read is the drift this watches for)`;
  if (!events.slice(at + 1).some((e) => e.type === 'message.assistant')) return 'no assistant message after the probe turn';
  return '';
}

it(`drift check: ${agent}`, async () => {
  const started = Date.now();
  const result: CheckResult = { agent, read_ok: false, read_reason: '', fresh_files: [], targets: [], ms: 0 };
  const save = () => {
    result.ms = Date.now() - started;
    writeFileSync(out, JSON.stringify(result, null, 2));
  };
  try {
    const recorder = recorderOf(agent);
    if (!recorder) {
      result.no_recorder = true;
      result.read_reason = `no recorder: ${agent} is not a writer target with a source session (test/support/matrix.ts, driftTargets.ts)`;
      return;
    }
    const { target: self, source } = recorder;
    // 1. The client records its own turn onto a session of its own format.
    const dir = join(work, 'record');
    mkdirSync(dir, { recursive: true });
    const place = self.prepare(dir);
    const outcome = await relay(getAdapter(agent), (async function* () { yield* await source.capture(); })(), { ...place.options, thinking: 'keep-text', branches: 'active' });
    const written = outcome.results[0]!;
    const before = snapshot(dir);
    const observed = await self.resume(written, place);
    if (!observed.accepted) {
      result.read_reason = `the client did not resume the session sp wrote, so it recorded nothing: ${observed.why ?? ''}`;
      result.targets.push({ target: agent, ok: false, reason: observed.why ?? 'not accepted', ms: Date.now() - started });
      return;
    }
    // Session records only (JSON lines and JSON documents): a client also unpacks skills, locks and databases.
    const changed = [...snapshot(dir)].filter(([path, stamp]) => before.get(path) !== stamp && /\.jsonl?$/.test(path)).map(([path]) => path);
    const freshDir = join(work, 'fresh');
    if (written.path.endsWith('.json')) result.session_dir = relative(dir, dirname(written.path));
    for (const path of changed) {
      const name = relative(dir, path);
      mkdirSync(join(freshDir, name, '..'), { recursive: true });
      copyFileSync(path, join(freshDir, name));
      result.fresh_files.push(name);
    }
    // 2. sp reads it back: the session sp wrote, now continued by the client (or the newest one it made).
    const adapter = getAdapter(agent);
    let events = (await captureAll(adapter, written.path)).events;
    if (readReason(events)) {
      // Some clients continue in a new session (a fork): the newest one in the home.
      for await (const ref of adapter.discover({ home: place.options.home as string | undefined, details: true })) {
        events = (await captureRef(adapter, ref)).events;
        break;
      }
    }
    result.read_reason = readReason(events);
    result.read_ok = result.read_reason === '';
    if (!result.read_ok) return;
    // 3. Relay the fresh session into every writer target; each target's client resumes it.
    // Two at a time (the clients mostly wait on their start-up), each started only while the budget lasts.
    const fresh: MatrixSource = { agent, name: 'fresh', capture: async () => events };
    result.targets = await limited(
      WRITE_TARGETS.map((target) => async (): Promise<TargetResult> => {
        if (Date.now() - started > budgetMs) return { target: target.id, ok: false, reason: 'not checked: the time budget ran out', ms: 0 };
        const cell = await runCell(fresh, target, 'history', join(work, 'relay'));
        return { target: target.id, ok: cell.pass, reason: cell.reason, ms: cell.ms };
      }),
      2,
    );
  } finally {
    save();
  }
}, 15 * 60_000);
