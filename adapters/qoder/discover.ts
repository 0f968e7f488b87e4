// Finding Qoder CLI sessions: the Claude Code layout under the Qoder home (projects/<slug>/<uuid>.jsonl),
// read by the format's discovery (lib/formats/claude-code/discover.ts), then named as Qoder's.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { findByIdPrefix } from '../../lib/capture/discover.js';
import { discoverTranscripts, openTranscript, summarize } from '../../lib/formats/claude-code/discover.js';
import { HOME_ENV, defaultHome, projectsDir } from './paths.js';

export const AGENT = 'qoder';

function asQoder(ref: SessionRef): SessionRef {
  return { ...ref, agent: AGENT };
}

export async function openSession(path: string): Promise<SessionRef> {
  return asQoder(await openTranscript(path));
}

export async function* discoverSessions(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const home = resolve(options.home ?? defaultHome());
  if (!existsSync(projectsDir(home))) throw new UserError('cannot read the Qoder CLI projects folder: ENOENT (set --home or QODER_CONFIG_DIR)', projectsDir(home));
  for await (const ref of discoverTranscripts(home, HOME_ENV, { ...options, details: false })) yield asQoder(options.details ? await summarize(ref) : ref);
}

export async function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  const sessions = discoverSessions({ home: options.home, onDiagnostic: options.onDiagnostic });
  return findByIdPrefix(sessions, id, `no Qoder CLI session "${id}" under ${projectsDir(resolve(options.home ?? defaultHome()))} (sp-capture qoder --list shows the sessions)`);
}
