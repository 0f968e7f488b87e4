// Finding Claude Code sessions under its home (`--home`, `$CLAUDE_CONFIG_DIR` or ~/.claude); the
// reading of the layout is the format's (lib/formats/claude-code/discover.ts).
import { resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { discoverTranscripts, findTranscript } from '../../lib/formats/claude-code/discover.js';
import { HOME_ENV, defaultHome } from './paths.js';

export { openTranscript } from '../../lib/formats/claude-code/discover.js';

export function discoverSessions(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  return discoverTranscripts(resolve(options.home ?? defaultHome()), HOME_ENV, options);
}

export function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  return findTranscript(id, resolve(options.home ?? defaultHome()), HOME_ENV, options);
}
