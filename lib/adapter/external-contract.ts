// `sp adapter test <program>`: the contract checks an external adapter must pass, run against the
// program itself in a throw-away home: it describes itself validly; it lists (an empty home, then the
// session it wrote); it writes a reference session under the home it was given; what it captures of
// that session validates, numbers and chains, and keeps the conversation; and an unknown session is
// refused with an error line rather than a hang or a crash. Each check is one row of the report.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Adapter } from './interface.js';
import { Chainer, computeChecksum } from '../core/chain.js';
import { UserError } from '../cli/diagnostics.js';
import { canonicalSessionId, type SpEvent } from '../core/event.js';
import { externalLimits, loadExternalAdapter, type Description } from './external.js';

export interface CheckRow {
  check: string;
  status: 'pass' | 'fail' | 'skip';
  detail: string;
}

const BASE_TS = 1_767_261_600;
const TURNS: Array<['user' | 'assistant', string]> = [
  ['user', 'sp adapter test: what does the build script do?'],
  ['assistant', 'It compiles the TypeScript sources and copies the schemas.'],
  ['user', 'sp adapter test: and where does the output go?'],
  ['assistant', 'Into dist/, one file per source module.'],
];

/** The reference session every adapter is asked to write: four turns, chained. */
export function referenceSession(cwd: string): SpEvent[] {
  const session = canonicalSessionId('sp-adapter-test', 'reference');
  const chainer = new Chainer();
  const events: SpEvent[] = [
    { session, seq: 0, ts: BASE_TS, agent: 'sp-adapter-test', type: 'session.start', actor: 'system', payload: { native_id: 'reference', cwd } } as SpEvent,
    ...TURNS.map(([role, text], i) => ({
      session,
      seq: i + 1,
      ts: BASE_TS + i + 1,
      agent: 'sp-adapter-test',
      type: role === 'user' ? 'message.user' : 'message.assistant',
      actor: role === 'user' ? 'user' : 'agent:sp-adapter-test',
      payload: { content: [{ type: 'text', text }] },
    }) as SpEvent),
  ];
  return events.map((e) => chainer.chain(e));
}

const texts = (events: SpEvent[]): string[] =>
  events
    .filter((e) => e.type === 'message.user' || e.type === 'message.assistant')
    .map((e) => ((e.payload as { content?: Array<{ type?: string; text?: string }> }).content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('\n'));

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

/** Runs every check against `program`; never throws for what the adapter does wrong. */
export async function contractCheck(program: string): Promise<CheckRow[]> {
  const rows: CheckRow[] = [];
  const row = (check: string, status: CheckRow['status'], detail: string) => rows.push({ check, status, detail });
  const why = (err: unknown) => (err instanceof UserError ? `${err.where ? `${err.where}: ` : ''}${err.message}` : `crashed: ${(err as Error).message}`);
  // Generous for a real adapter, short enough that a hanging one does not stall the report.
  const base = externalLimits();
  const limits = { ...base, timeoutMs: Math.min(base.timeoutMs, 30_000) };

  let adapter: Adapter;
  let description: Description;
  try {
    ({ adapter, description } = await loadExternalAdapter(program, undefined, limits));
    row('describe', 'pass', `${description.name} ${description.version}, protocol 1, home ${description.homeEnv} (${description.defaultHome})`);
  } catch (err) {
    row('describe', 'fail', why(err));
    return rows;
  }

  const home = mkdtempSync(join(tmpdir(), 'sp-adapter-test-'));
  const cwd = mkdtempSync(join(tmpdir(), 'sp-adapter-test-cwd-'));
  try {
    try {
      const found = [];
      for await (const ref of adapter.discover({ home })) found.push(ref);
      row('list: empty home', found.length === 0 ? 'pass' : 'fail', `${found.length} sessions in a new, empty home`);
    } catch (err) {
      row('list: empty home', 'fail', why(err));
    }

    if (!description.materialize || !adapter.materialize) {
      for (const check of ['materialize', 'list: the written session', 'capture', 'round trip']) row(check, 'skip', 'the adapter does not write (capabilities.materialize)');
    } else {
      const reference = referenceSession(cwd);
      let nativeId: string | undefined;
      try {
        const result = await adapter.materialize(from(reference), { home, cwd });
        nativeId = result.session_id;
        row('materialize', 'pass', `${result.session_id}: ${(result.files as string[] | undefined)?.length ?? 1} file(s) under the home; resume: ${result.resume}`);
      } catch (err) {
        row('materialize', 'fail', why(err));
      }
      let ref;
      if (nativeId !== undefined) {
        try {
          for await (const r of adapter.discover({ home })) if (r.native_id === nativeId) ref = r;
          row('list: the written session', ref ? 'pass' : 'fail', ref ? `${ref.native_id} at ${ref.path}` : `${nativeId} is not listed`);
        } catch (err) {
          row('list: the written session', 'fail', why(err));
        }
      } else row('list: the written session', 'skip', 'nothing was written');
      if (ref && description.capture) {
        try {
          const chainer = new Chainer();
          const events: SpEvent[] = [];
          for await (const e of adapter.capture(ref)) events.push(chainer.chain(e));
          let previous = '';
          const broken = events.findIndex((e, i) => {
            const ok = e.seq === i && e.checksum === computeChecksum(previous, e);
            previous = e.checksum ?? '';
            return !ok;
          });
          const starts = events[0]?.type === 'session.start';
          row('capture', broken === -1 && starts ? 'pass' : 'fail', broken !== -1 ? `event ${broken} does not chain` : starts ? `${events.length} events: valid, seq 0..${events.length - 1}, chained` : 'the first event is not session.start');
          const want = TURNS.map(([, text]) => text);
          const got = texts(events);
          const kept = want.every((text, i) => got[i] === text) && got.length === want.length;
          row('round trip', kept ? 'pass' : 'fail', kept ? `the ${want.length} messages read back in order` : `read back ${JSON.stringify(got).slice(0, 200)}`);
        } catch (err) {
          row('capture', 'fail', why(err));
          row('round trip', 'skip', 'capture failed');
        }
      } else {
        row('capture', 'skip', ref ? 'the adapter does not capture' : 'no written session to capture');
        row('round trip', 'skip', 'no capture');
      }
    }

    if (description.capture) {
      try {
        let n = 0;
        for await (const _ of adapter.capture({ agent: description.name, native_id: 'sp-no-such-session', path: join(home, 'sp-no-such-session') })) n++;
        row('unknown session', 'fail', `captured ${n} events of a session that does not exist`);
      } catch (err) {
        const clean = err instanceof UserError;
        row('unknown session', clean ? 'pass' : 'fail', clean ? `refused: ${why(err)}` : why(err));
      }
    } else row('unknown session', 'skip', 'the adapter does not capture');
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
  return rows;
}

/** The report as an aligned table. */
export function formatRows(rows: CheckRow[]): string {
  const width = Math.max(...rows.map((r) => r.check.length));
  return rows.map((r) => `${r.status.toUpperCase().padEnd(4)}  ${r.check.padEnd(width)}  ${r.detail}`).join('\n') + '\n';
}
