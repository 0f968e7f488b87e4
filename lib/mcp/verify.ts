// verify over MCP for a file the caller names. The file may be anything under a read root (an SSH
// key, a config file), so what comes back says where a line is damaged and of what kind, never what
// it holds: a line that is not a JSON object is reported by its number and byte range only, schema
// issues without the property paths, and session ids and checksums only when they have the shape sp
// writes. sp-verify on the command line, where the user reads their own files, keeps its excerpts.
import { splitLines, type Line } from '../core/lines.js';
import { parseJsonObject } from '../core/json.js';
import type { EventValidator } from '../core/schema.js';
import type { Damage, Verifier, VerifyReport } from '../core/verify.js';
import type { Budget, Confinement } from './confine.js';

const CANONICAL_SESSION = /^sess_[0-9a-f]{32}$/;
const CANONICAL_CHECKSUM = /^sha256:[0-9a-f]{64}$/;
/** Positions listed per answer; the count covers the rest. */
const MAX_POSITIONS = 20;
/**
 * Lines that belong to no session (not JSON, or no session/seq) the verifier is shown: it keeps one
 * entry for each, so a file of a million such lines would grow the server and its answer. The rest
 * are counted.
 */
const MAX_STREAM_DAMAGE = 100;

/** A validator whose issues say what is wrong, not where in the (possibly foreign) object. */
export function pathlessValidator(inner: EventValidator): EventValidator {
  return {
    validate: (value) => inner.validate(value).map((issue) => ({ path: 'event', message: issue.message })),
    validateManifest: (manifest) => inner.validateManifest(manifest),
  };
}

/** Why a line is not a JSON object, without the parser's message (it quotes the line). */
function kindOf(line: Line, reason: string | undefined): string {
  if (line.invalidUtf8) return 'not valid UTF-8';
  if (reason?.startsWith('invalid JSON')) return 'not JSON';
  if (reason?.startsWith('nested')) return 'JSON nested too deep';
  return 'not a JSON object';
}

export interface FileVerification {
  report: VerifyReport;
  /** Lines that are not JSON objects: how many, and where the first ones are. */
  malformed: { count: number; positions: Array<{ line: number; bytes: [number, number] }> };
  /** Damaged lines counted but not listed in stream_damage (over its cap). */
  unlisted: number;
}

const placeable = (value: Record<string, unknown>): boolean => typeof value.session === 'string' && Number.isInteger(value.seq) && (value.seq as number) >= 0;

export async function verifyFile(confinement: Confinement, path: string, verifier: Verifier, budget: Budget): Promise<FileVerification> {
  const file = await confinement.openFile(path, 'path');
  const where = new Map<string, { line: number; bytes: [number, number]; kind: string; terminated: boolean }>();
  const malformed: FileVerification['malformed'] = { count: 0, positions: [] };
  let streamDamage = 0;
  let unlisted = 0;
  for await (const line of splitLines(file.chunks(budget))) {
    budget.check();
    if (line.text.trim() === '') continue;
    const parsed: { value?: Record<string, unknown>; reason?: string } = line.invalidUtf8 ? {} : parseJsonObject(line.text);
    if (parsed.value) {
      budget.event();
      if (!placeable(parsed.value) && ++streamDamage > MAX_STREAM_DAMAGE) unlisted += 1;
      else verifier.push(path, line, parsed.value);
      continue;
    }
    const kind = kindOf(line, parsed.reason);
    malformed.count += 1;
    const position = { line: line.number, bytes: [line.start, line.end] as [number, number] };
    if (malformed.positions.length < MAX_POSITIONS) malformed.positions.push(position);
    if (++streamDamage > MAX_STREAM_DAMAGE) {
      unlisted += 1;
      continue;
    }
    where.set(`${path}:${line.number}`, { ...position, kind, terminated: line.terminated });
    // The verifier sees an empty line: its own message would quote the text.
    verifier.badLine(path, { ...line, text: '' }, kind);
  }
  const report = verifier.finish();
  if (unlisted > 0) report.ok = false;
  const clean = (damage: Damage | undefined): void => {
    if (!damage) return;
    const bad = where.get(damage.where);
    if (bad) {
      damage.message = `line ${bad.line} (bytes ${bad.bytes[0]}–${bad.bytes[1]}) is ${bad.kind}${bad.terminated ? '' : ', and the file ends inside it'}`;
    }
    if (damage.session !== undefined && !CANONICAL_SESSION.test(damage.session)) damage.session = '(not a canonical session id)';
  };
  for (const damage of report.stream_damage) clean(damage);
  report.sessions.forEach((session, i) => {
    clean(session.damage);
    if (!CANONICAL_SESSION.test(session.session)) session.session = `(session ${i + 1}: not a canonical session id)`;
    if (session.head !== undefined && !CANONICAL_CHECKSUM.test(session.head)) session.head = '(not a canonical checksum)';
  });
  return { report, malformed, unlisted };
}
