// Finding sessions in Claude Code's layout: every `<home>/projects/<slug>/<id>.jsonl` (subagent transcripts
// belong to their parent and are not listed on their own), newest first by modification time, as
// `claude -c` picks them. `--list` details come from one streaming pass over each file.
import { existsSync, readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../adapter/interface.js';
import { findByIdPrefix, noteTime, sessionFilesByFolder } from '../../capture/discover.js';
import { promptTitle } from '../../capture/titles.js';
import { UserError } from '../../cli/diagnostics.js';
import { toEpochSeconds } from '../../core/event.js';
import { sourceLines, statSessionFile } from '../../capture/read-position.js';
import { isObject, jsonObject } from '../../core/json.js';
import { layoutOf, projectsDir, subagentIdOf, subagentsDir } from './paths.js';
import { projectSlug, resolveCwd, MAX_SLUG_LENGTH } from './slug.js';

/** Envelope values a session shares: the capture announces them once in session.start. */
export interface HeadInfo {
  sessionId?: string;
  cwd?: string;
  version?: string;
  gitBranch?: string;
  userType?: string;
  entrypoint?: string;
  agentId?: string;
  slug?: string;
  model?: string;
  title?: string;
  firstTs?: number;
}

const HEAD_KEYS = ['sessionId', 'cwd', 'version', 'gitBranch', 'userType', 'entrypoint', 'agentId', 'slug'] as const;

/**
 * The session-level values from the head of a transcript: for each envelope key, the value of the
 * first line that has it (so a capture that starts on a growing file agrees with a later one),
 * the first real model and timestamp, and a title if one is written early. Bounded: it stops once
 * it knows enough, or after `maxLines`, so a huge file costs only its first lines.
 */
export async function scanHead(path: string, end: number, options: { completeOnly?: boolean; maxLines?: number } = {}): Promise<HeadInfo> {
  const info: HeadInfo = {};
  const maxLines = options.maxLines ?? 400;
  let customTitle: string | undefined;
  let aiTitle: string | undefined;
  for await (const line of sourceLines(path, 0, end, 1)) {
    if (options.completeOnly && !line.terminated) break;
    const record = jsonObject(line.text);
    if (record) {
      for (const key of HEAD_KEYS) {
        if (info[key] === undefined && typeof record[key] === 'string') info[key] = record[key] as string;
      }
      if (info.firstTs === undefined) info.firstTs = toEpochSeconds(record.timestamp);
      const message = record.message;
      if (info.model === undefined && record.type === 'assistant' && isObject(message) && typeof message.model === 'string' && message.model !== '<synthetic>') {
        info.model = message.model;
      }
      if (record.type === 'custom-title' && typeof record.customTitle === 'string') customTitle = record.customTitle;
      if (record.type === 'ai-title' && typeof record.aiTitle === 'string') aiTitle = record.aiTitle;
    }
    if (line.number >= maxLines) break;
    if (info.cwd !== undefined && info.version !== undefined && info.model !== undefined && info.firstTs !== undefined && (customTitle ?? aiTitle) !== undefined) break;
  }
  const title = customTitle ?? aiTitle;
  if (title !== undefined) info.title = title;
  return info;
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string').map((b) => (b as { text: string }).text);
  return texts.length > 0 ? texts.join(' ') : undefined;
}

function isToolResultLine(content: unknown): boolean {
  return Array.isArray(content) && content.some((b) => isObject(b) && b.type === 'tool_result');
}

/** What `--list` shows for one transcript: one full streaming pass. */
export async function summarize(ref: SessionRef): Promise<SessionRef> {
  const out: SessionRef = { ...ref };
  const size = statSync(ref.path).size;
  const assistantIds = new Set<string>();
  let prompts = 0;
  let untaggedAssistant = 0;
  let toolCalls = 0;
  let customTitle: string | undefined;
  let aiTitle: string | undefined;
  let summary: string | undefined;
  for await (const line of sourceLines(ref.path, 0, size, 1)) {
    const record = jsonObject(line.text);
    if (!record) continue;
    noteTime(out, record.timestamp);
    if (out.cwd === undefined && typeof record.cwd === 'string') out.cwd = record.cwd;
    if (out.git_branch === undefined && typeof record.gitBranch === 'string' && record.gitBranch !== '') out.git_branch = record.gitBranch;
    const message = isObject(record.message) ? record.message : undefined;
    switch (record.type) {
      case 'user': {
        const content = message?.content;
        if (isToolResultLine(content) || record.isMeta === true || record.isCompactSummary === true) break;
        prompts += 1;
        if (out.first_prompt === undefined) {
          const text = textOf(content);
          if (text !== undefined) out.first_prompt = promptTitle(text);
        }
        break;
      }
      case 'assistant': {
        if (typeof message?.id === 'string') assistantIds.add(message.id);
        else untaggedAssistant += 1;
        if (Array.isArray(message?.content)) toolCalls += message.content.filter((b) => isObject(b) && b.type === 'tool_use').length;
        if (out.model === undefined && typeof message?.model === 'string' && message.model !== '<synthetic>') out.model = message.model;
        break;
      }
      case 'tool_use':
        toolCalls += 1;
        break;
      case 'custom-title':
        if (typeof record.customTitle === 'string') customTitle = record.customTitle;
        break;
      case 'ai-title':
        if (typeof record.aiTitle === 'string') aiTitle = record.aiTitle;
        break;
      case 'summary':
        if (typeof record.summary === 'string') summary = record.summary;
        break;
    }
  }
  const title = customTitle ?? aiTitle ?? summary;
  if (title !== undefined) out.title = title;
  out.messages = prompts + assistantIds.size + untaggedAssistant;
  out.tool_calls = toolCalls;
  out.subagents = listSubagentFiles(ref.path).length;
  return out;
}

/** `agent-<id>.jsonl` files of a transcript's subagents, sorted by name. */
export function listSubagentFiles(transcript: string): Array<{ agentId: string; path: string; metaPath: string }> {
  const dir = subagentsDir(transcript);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: Array<{ agentId: string; path: string; metaPath: string }> = [];
  for (const name of names.sort()) {
    const agentId = subagentIdOf(name);
    if (agentId === undefined) continue;
    out.push({ agentId, path: join(dir, name), metaPath: join(dir, `agent-${agentId}.meta.json`) });
  }
  return out;
}

/** A subagent's `.meta.json` ({agentType, description, toolUseId, spawnDepth}); undefined when absent or unreadable. */
export function readSubagentMeta(metaPath: string, onProblem?: (what: string) => void): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(metaPath, 'utf8');
  } catch {
    return undefined;
  }
  const value = jsonObject(text);
  if (!value) onProblem?.(`not a JSON object, ignored`);
  return value;
}

/**
 * The project folders of a home. A home without `projects/` has no sessions yet (the client makes
 * it with the first one); a home that is not there at all is a mistake worth one clear line.
 */
function projectFolders(home: string, homeEnv: string): Dirent[] {
  const projects = projectsDir(home);
  try {
    return readdirSync(projects, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && existsSync(home) && statSync(home).isDirectory()) return [];
    const where = code === 'ENOENT' && !existsSync(home) ? home : projects;
    const what = where === home ? 'cannot read the Claude home' : 'cannot read the Claude projects folder';
    throw new UserError(`${what}: ${code ?? (err as Error).message} (set --home or ${homeEnv})`, where);
  }
}

/** The ref of one transcript file, wherever it lies. */
export async function openTranscript(path: string): Promise<SessionRef> {
  const file = resolve(path);
  const { mtime } = statSessionFile(file, 'Claude transcript (.jsonl)', path);
  const layout = layoutOf(file);
  const ref: SessionRef = { agent: 'claude', native_id: layout.nativeId, path: file, mtime };
  if (layout.home !== undefined) ref.home = layout.home;
  if (layout.subagent) {
    ref.parent_native_id = layout.subagent.parentNativeId;
    ref.agent_id = layout.subagent.agentId;
  }
  const head = await scanHead(file, statSync(file).size, { maxLines: 50 });
  if (head.cwd !== undefined) ref.cwd = head.cwd;
  return ref;
}

/** Whether a project folder holds the sessions of `cwd`: the client's slug, or the 200-char prefix it also accepts. */
function folderMatches(folder: string, slug: string): boolean {
  if (folder === slug) return true;
  return slug.length > MAX_SLUG_LENGTH && folder.length > MAX_SLUG_LENGTH && folder.slice(0, MAX_SLUG_LENGTH) === slug.slice(0, MAX_SLUG_LENGTH);
}

/** Every main transcript under the home, newest first (by mtime, then path), without reading them. */
function listTranscripts(home: string, homeEnv: string, onDiagnostic?: DiscoverOptions['onDiagnostic']): Array<SessionRef & { folder: string }> {
  const found: Array<SessionRef & { folder: string }> = [];
  for (const { folder, name, path, mtime } of sessionFilesByFolder(projectsDir(home), projectFolders(home, homeEnv), onDiagnostic)) {
    found.push({ agent: 'claude', native_id: basename(name, '.jsonl'), path, mtime, home, folder });
  }
  found.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || a.path.localeCompare(b.path));
  return found;
}

/**
 * Sessions under `home` (resolved), newest first; `cwd` keeps one project's (its slug folder, or a
 * recorded cwd equal to it). `homeEnv` is the client's variable a missing home points the user to.
 */
export async function* discoverTranscripts(home: string, homeEnv: string, options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const wantCwd = options.cwd !== undefined ? resolveCwd(options.cwd) : undefined;
  const wantSlug = wantCwd !== undefined ? projectSlug(wantCwd) : undefined;
  for (const { folder, ...ref } of listTranscripts(home, homeEnv, options.onDiagnostic)) {
    let cwd: string | undefined;
    try {
      cwd = (await scanHead(ref.path, statSync(ref.path).size, { maxLines: 50 })).cwd;
    } catch {
      continue; // deleted while we looked
    }
    if (wantSlug !== undefined && !folderMatches(folder, wantSlug) && (cwd === undefined || resolve(cwd) !== wantCwd)) continue;
    if (cwd !== undefined) ref.cwd = cwd;
    yield options.details ? await summarize(ref) : ref;
  }
}

/** The transcript of a session id (or a unique prefix of one) under `home` (resolved). */
export async function findTranscript(id: string, home: string, homeEnv: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  const refs = (function* () {
    for (const { folder: _folder, ...ref } of listTranscripts(home, homeEnv, options.onDiagnostic)) yield ref;
  })();
  return findByIdPrefix(refs, id, `no Claude session "${id}" under ${projectsDir(home)} (sp-capture claude --list shows the sessions)`, { where: home });
}
