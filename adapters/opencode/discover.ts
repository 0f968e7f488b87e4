// Finding OpenCode sessions: the format's discovery (lib/formats/opencode/discover.ts) over
// `opencode.db` and the ≤ 1.1 `storage/` of OpenCode's data dir.
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import * as store from '../../lib/formats/opencode/discover.js';
import { owner } from './owner.js';

export const openSession = (path: string): Promise<SessionRef> => store.openSession(owner, path);
export const discoverSessions = (options: DiscoverOptions = {}): AsyncGenerator<SessionRef> => store.discoverSessions(owner, options);
export const findSession = (id: string, options: DiscoverOptions = {}): Promise<SessionRef> => store.findSession(owner, id, options);
