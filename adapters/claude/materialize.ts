// `sp-materialize claude`: canonical events → a NEW Claude Code transcript that the real client
// resumes. The format's writer is lib/formats/claude-code/writer.ts (shared with Qoder CLI, which
// writes the same format); this file names Claude Code's paths, ids, default model and resume command.
import type { SpEvent } from '../../lib/core/event.js';
import {
  checkedTranscriptPathOf,
  transcriptPathOf,
  writeClaudeCodeTranscript,
  type ClaudeCodeTarget,
  type ClaudeMaterializeOptions,
  type ClaudeMaterializeResult,
} from '../../lib/formats/claude-code/writer.js';
import { DEFAULT_MODEL, HOME_ENV, NATIVE_ID, builtInHome, defaultHome } from './paths.js';
import { projectSlug, resolveCwd } from '../../lib/formats/claude-code/slug.js';

export { CLIENT_VERSION, STUB_RESULT, type ClaudeLossEntry, type ClaudeMaterializeOptions, type ClaudeMaterializeResult } from '../../lib/formats/claude-code/writer.js';

/** Claude Code as a reader of its own transcript format. */
export const CLAUDE_CODE: ClaudeCodeTarget = {
  agent: 'claude',
  projectSlug,
  resolveCwd,
  defaultHome,
  home: (home) => ({ variable: HOME_ENV, value: home, builtIn: builtInHome() }),
  idFormat: NATIVE_ID,
  defaultModel: DEFAULT_MODEL,
  resumeArgv: (sessionId, model) => ['claude', '--resume', sessionId, ...(model ? ['--model', model] : [])],
};

/** The transcript path the client looks up for a session id in a cwd (already resolved). */
export function transcriptPath(home: string, cwd: string, sessionId: string): string {
  return transcriptPathOf(projectSlug, home, cwd, sessionId);
}

/** transcriptPath, checked to lie inside the home after resolving symlinks (a linked project folder is refused). */
export function checkedTranscriptPath(home: string, cwd: string, sessionId: string): string {
  return checkedTranscriptPathOf(projectSlug, home, cwd, sessionId);
}

export async function materializeClaude(events: AsyncIterable<SpEvent>, options: ClaudeMaterializeOptions = {}): Promise<ClaudeMaterializeResult> {
  return writeClaudeCodeTranscript(events, options, CLAUDE_CODE);
}
