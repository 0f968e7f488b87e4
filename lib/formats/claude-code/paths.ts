// The layout of Claude Code's transcript format under a home (docs/formats/claude.md §1; Qoder CLI
// keeps the same under its own home), and what a transcript's path says about its session:
// `<home>/projects/<slug>/<sessionId>.jsonl`, its subagents in `<sessionId>/subagents/agent-<agentId>.jsonl`
// (+ `.meta.json`), its tasks in `<home>/tasks/<sessionId>/`.
import { basename, dirname, join, resolve } from 'node:path';

export function projectsDir(home: string): string {
  return join(home, 'projects');
}

export function tasksDir(home: string, sessionId: string): string {
  return join(home, 'tasks', sessionId);
}

export function fileHistoryDir(home: string, sessionId: string): string {
  return join(home, 'file-history', sessionId);
}

/** `<dir>/<sessionId>/subagents` next to the transcript `<dir>/<sessionId>.jsonl`. */
export function subagentsDir(transcript: string): string {
  return join(dirname(transcript), basename(transcript, '.jsonl'), 'subagents');
}

const SUBAGENT_FILE = /^agent-(.+)\.jsonl$/;

/** The subagent id of `agent-<id>.jsonl`, or undefined for any other name. */
export function subagentIdOf(fileName: string): string | undefined {
  return SUBAGENT_FILE.exec(fileName)?.[1];
}

/** The native id the capture gives a subagent transcript: it is unique only within its parent. */
export function subagentNativeId(parentNativeId: string, agentId: string): string {
  return `${parentNativeId}/agent-${agentId}`;
}

export interface TranscriptLayout {
  /** The session id from the file name (the client trusts the name over the lines). */
  nativeId: string;
  /** The client's home, when the file sits at `<home>/projects/<slug>/…`. */
  home?: string;
  /** Set for `…/<parentId>/subagents/agent-<agentId>.jsonl`. */
  subagent?: { parentNativeId: string; agentId: string; parentPath: string };
}

/** What a transcript's path tells: its native id, its home, and whether it is a subagent's. */
export function layoutOf(path: string): TranscriptLayout {
  const file = resolve(path);
  const name = basename(file);
  const agentId = subagentIdOf(name);
  const parentDirOfFile = dirname(file);
  if (agentId !== undefined && basename(parentDirOfFile) === 'subagents') {
    const sessionDir = dirname(parentDirOfFile);
    const parentNativeId = basename(sessionDir);
    const projectDir = dirname(sessionDir);
    return {
      nativeId: subagentNativeId(parentNativeId, agentId),
      home: homeOfProjectDir(projectDir),
      subagent: { parentNativeId, agentId, parentPath: join(projectDir, `${parentNativeId}.jsonl`) },
    };
  }
  return { nativeId: name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : name, home: homeOfProjectDir(parentDirOfFile) };
}

function homeOfProjectDir(projectDir: string): string | undefined {
  const projects = dirname(projectDir);
  return basename(projects) === 'projects' ? dirname(projects) : undefined;
}
