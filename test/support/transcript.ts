// Reads a written Claude Code transcript back and checks the structure the client relies on
// (docs/formats/claude.md §5–§7). Returns the problems found, so a test can show all of them.
import { readFileSync } from 'node:fs';

export type Line = Record<string, any>;

export const TRANSCRIPT_TYPES = new Set(['user', 'assistant', 'attachment', 'system']);

export function readTranscript(path: string): Line[] {
  const text = readFileSync(path, 'utf8');
  if (!text.endsWith('\n')) throw new Error(`${path}: no final newline`);
  return text.slice(0, -1).split('\n').map((l, i) => {
    try {
      return JSON.parse(l) as Line;
    } catch {
      throw new Error(`${path}:${i + 1}: not JSON`);
    }
  });
}

/** Blocks of a message's content, a plain string counted as one text block. */
export function blocksOf(line: Line): Line[] {
  const c = line.message?.content;
  return typeof c === 'string' ? [{ type: 'text', text: c }] : Array.isArray(c) ? c : [];
}

/**
 * Structural problems of a transcript: uuids, the parent chain, timestamps, the envelope,
 * assistant envelopes, tool_use/tool_result pairing and placement, the final last-prompt.
 */
export function transcriptProblems(lines: Line[], expect: { sessionId: string; cwd: string; allowRoots?: boolean }): string[] {
  const problems: string[] = [];
  const uuids = new Set<string>();
  const byUuid = new Map<string, Line>();
  let lastMs = 0;
  let lastUuid: string | null = null;
  const messageIdsSeen = new Map<string, number>();
  let previousMessageId: string | undefined;
  const transcript = lines.filter((l) => TRANSCRIPT_TYPES.has(l.type));
  if (transcript.length === 0) problems.push('no transcript lines');
  transcript.forEach((line, i) => {
    const where = `line ${lines.indexOf(line) + 1} (${line.type})`;
    if (typeof line.uuid !== 'string' || uuids.has(line.uuid)) problems.push(`${where}: missing or repeated uuid`);
    uuids.add(line.uuid);
    byUuid.set(line.uuid, line);
    const boundary = line.type === 'system' && line.subtype === 'compact_boundary';
    if (i === 0 || boundary) {
      if (line.parentUuid !== null) problems.push(`${where}: the first line and a compact boundary have parentUuid null`);
    } else if (line.parentUuid === null && expect.allowRoots) {
      // a new root where the source has one
    } else if (typeof line.parentUuid !== 'string' || !byUuid.has(line.parentUuid)) {
      problems.push(`${where}: parentUuid ${line.parentUuid} is not an earlier line`);
    }
    const ms = Date.parse(line.timestamp);
    if (!Number.isFinite(ms) || ms <= lastMs) problems.push(`${where}: timestamp ${line.timestamp} does not increase`);
    lastMs = ms;
    for (const [k, v] of Object.entries({ sessionId: expect.sessionId, cwd: expect.cwd, userType: 'external', isSidechain: false })) {
      if (line[k] !== v) problems.push(`${where}: ${k} is ${JSON.stringify(line[k])}, not ${JSON.stringify(v)}`);
    }
    for (const k of ['version', 'gitBranch', 'entrypoint']) if (typeof line[k] !== 'string') problems.push(`${where}: no ${k}`);
    if (line.type === 'assistant') {
      const m = line.message ?? {};
      if (typeof m.id !== 'string' || !m.id) problems.push(`${where}: no message.id`);
      if (typeof m.model !== 'string' || !m.model) problems.push(`${where}: no message.model`);
      if (!Array.isArray(m.content) || m.content.length !== 1) problems.push(`${where}: content is not an array of one block`);
      if (m.type !== 'message' || m.role !== 'assistant' || !('stop_reason' in m) || !('stop_sequence' in m) || typeof m.usage !== 'object') {
        problems.push(`${where}: incomplete assistant envelope`);
      }
      // Lines of one message are adjacent (results may follow); a message id never comes back later.
      if (m.id !== previousMessageId && messageIdsSeen.has(m.id)) problems.push(`${where}: message.id ${m.id} reused by a later message`);
      messageIdsSeen.set(m.id, i);
      previousMessageId = m.id;
    } else if (line.type === 'user' && blocksOf(line).some((b) => b.type === 'tool_result')) {
      // a tool_result line does not end the assistant message it answers
    } else {
      previousMessageId = undefined;
    }
    lastUuid = line.uuid;
  });

  // Pairing: every tool_use has exactly one result, in a user line after it that points at its line.
  const useLine = new Map<string, Line>();
  const resultCount = new Map<string, number>();
  for (const line of transcript) {
    for (const b of blocksOf(line)) {
      if (line.type === 'assistant' && b.type === 'tool_use') {
        if (!/^[A-Za-z0-9_-]+$/.test(b.id)) problems.push(`tool id ${b.id} has characters outside [A-Za-z0-9_-]`);
        const earlier = useLine.get(b.id);
        if (earlier && !boundaryBetween(lines, earlier, line)) problems.push(`tool id ${b.id} used twice`);
        useLine.set(b.id, line);
      }
      if (line.type === 'user' && b.type === 'tool_result') {
        const use = useLine.get(b.tool_use_id);
        if (!use) problems.push(`tool_result ${b.tool_use_id} has no tool_use before it`);
        else if (line.parentUuid !== use.uuid) problems.push(`tool_result ${b.tool_use_id} is not parented to its tool_use line`);
        resultCount.set(b.tool_use_id, (resultCount.get(b.tool_use_id) ?? 0) + 1);
        if (blocksOf(line).length !== 1) problems.push(`tool_result ${b.tool_use_id} shares its user line`);
      }
    }
  }
  for (const id of useLine.keys()) if (!resultCount.has(id)) problems.push(`tool_use ${id} has no tool_result`);

  const last = lines[lines.length - 1];
  if (last?.type !== 'last-prompt') problems.push('the file does not end with a last-prompt record');
  else if (last.leafUuid !== lastUuid) problems.push('last-prompt does not point at the last transcript line');
  for (const line of lines) {
    if (!TRANSCRIPT_TYPES.has(line.type) && 'sessionId' in line && line.sessionId !== expect.sessionId) {
      problems.push(`${line.type} record names session ${line.sessionId}`);
    }
  }
  return problems;
}

/** A compaction's preserved segment is written again after its boundary, with the same tool ids. */
function boundaryBetween(lines: Line[], a: Line, b: Line): boolean {
  return lines.slice(lines.indexOf(a), lines.indexOf(b)).some((l) => l.type === 'system' && l.subtype === 'compact_boundary');
}

/** The conversation as the client will see it: user/assistant text, tool ids, thinking, in file order. */
export function conversationItems(lines: Line[]): string[] {
  const items: string[] = [];
  for (const line of lines) {
    if (line.type !== 'user' && line.type !== 'assistant') continue;
    for (const b of blocksOf(line)) {
      if (b.type === 'text') items.push(`${line.type}:text:${b.text}`);
      else if (b.type === 'tool_use') items.push(`tool_use:${b.id}`);
      else if (b.type === 'tool_result') items.push(`tool_result:${b.tool_use_id}`);
      else if (b.type === 'thinking') items.push(`thinking:${b.thinking}`);
      else items.push(`${line.type}:${b.type}`);
    }
  }
  return items;
}
