// Native session files for the capture benchmarks: a recorded corpus session of each agent,
// repeated until it reaches a size (MB) or a line count, every repetition with fresh ids so the
// adapter sees one long, consistent session rather than the same records again:
//   - every UUID except the session's own id, Pi's 8-hex entry ids and tool-call ids (call_…,
//     toolu_…, fc_…) get a per-repetition variant;
//   - the first record of a repetition (parentUuid / parentId null) hangs under the last record of
//     the previous one, so the session stays one linear conversation;
//   - header records (Codex session_meta, Pi's session line) are written once.
// Files are cached in bench/out/native/<agent>-<size>.jsonl.
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { outDir, root } from './lib.mjs';

/** The recorded session each agent's native files are made from (the longest corpus scenario). */
const SOURCES = {
  claude: { dir: 'fixtures/claude/corpus/S3-long/.claude/projects/-home-alice-acme-api', headerTypes: [] },
  codex: { dir: 'fixtures/codex/corpus/S3-long/sessions/2026/11/30', headerTypes: ['session_meta'] },
  pi: { dir: 'fixtures/pi/corpus/S3-long/agent/sessions/--home-carol-acme-api--', headerTypes: ['session'] },
};

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const PI_ID = /"(id|parentId)":"([0-9a-f]{8})"/g;
// Not Codex's "call_id" key itself: renamed, no output of a later repetition would find its call.
const CALL_ID = /\b(call|toolu|fc)_(?!id\b)([A-Za-z0-9]+)/g;

export function sourceFile(agent) {
  const dir = join(root, SOURCES[agent].dir);
  const name = readdirSync(dir).find((n) => n.endsWith('.jsonl'));
  return join(dir, name);
}

/** The session id a file name carries (kept in every repetition). */
function sessionIdOf(path) {
  return basename(path).match(UUID)?.[0];
}

/** A per-repetition variant of a hex id: same length, the last 6 hex digits shifted by the repetition. */
function variant(hex, k) {
  const tail = hex.slice(-6);
  const shifted = ((parseInt(tail, 16) + k * 7919) % 0x1000000).toString(16).padStart(6, '0');
  return hex.slice(0, -6) + shifted;
}

function rewrite(line, k, sessionId) {
  if (k === 0) return line;
  return line
    .replace(UUID, (u) => (u === sessionId ? u : variant(u, k)))
    .replace(PI_ID, (_, key, id) => `"${key}":"${variant(id, k)}"`)
    .replace(CALL_ID, (_, kind, id) => `${kind}_${id}r${k}`);
}

/** The last entry id of a repetition: what the next repetition's first record hangs under. */
function lastIdOf(body, agent) {
  for (let i = body.length - 1; i >= 0; i--) {
    const m = agent === 'claude' ? /"uuid":"([0-9a-f-]{36})"/.exec(body[i]) : agent === 'pi' ? /"id":"([0-9a-f]{8})"/.exec(body[i]) : null;
    if (m) return m[1];
  }
  return undefined;
}

/**
 * The native file of `agent` at `size` ('10mb', '1024mb', or '100000lines'), made if missing.
 * Returns { path, lines, mb }.
 */
export function nativeFile(agent, size) {
  const source = sourceFile(agent);
  const dir = join(outDir, 'native', agent);
  // Claude and Codex find the session id in the file name; keep the recorded name in its own folder.
  const path = join(dir, size, basename(source));
  mkdirSync(dirname(path), { recursive: true });
  if (!existsSync(path)) {
    const limitBytes = size.endsWith('mb') ? Number(size.slice(0, -2)) * 1024 * 1024 : Infinity;
    const limitLines = size.endsWith('lines') ? Number(size.slice(0, -5)) : Infinity;
    const sessionId = sessionIdOf(source);
    const all = readFileSync(source, 'utf8').split('\n').filter(Boolean);
    const isHeader = (line) => SOURCES[agent].headerTypes.some((t) => line.startsWith(`{"type":"${t}"`) || line.includes(`"type":"${t}","payload"`));
    const header = all.filter(isHeader);
    const body = all.filter((l) => !isHeader(l));
    const lastId = lastIdOf(body, agent);
    const fd = openSync(`${path}.tmp`, 'w');
    let bytes = 0;
    let lines = 0;
    let buffer = header.join('\n') + '\n';
    for (let k = 0; bytes < limitBytes && lines < limitLines; k++) {
      const parent = k === 0 || !lastId ? undefined : rewrite(agent === 'claude' ? lastId : lastId, k - 1, sessionId);
      for (const original of body) {
        let line = rewrite(original, k, sessionId);
        if (parent) line = line.replace('"parentUuid":null', `"parentUuid":"${parent}"`).replace('"parentId":null', `"parentId":"${parent}"`);
        buffer += line + '\n';
        lines++;
        if (buffer.length > 1 << 20) {
          bytes += writeSync(fd, buffer);
          buffer = '';
        }
        if (lines >= limitLines) break;
      }
    }
    bytes += writeSync(fd, buffer);
    closeSync(fd);
    renameSync(`${path}.tmp`, path);
  }
  const mb = statSync(path).size / (1024 * 1024);
  return { path, mb };
}
