// Finding Kilo Code CLI sessions: the format's discovery (lib/formats/opencode/discover.ts) over
// `kilo.db` (and a `storage/` JSON store, should an old data dir hold one) of Kilo's data dir.
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import * as store from '../../lib/formats/opencode/discover.js';
import { owner } from './owner.js';

export const openSession = (path: string): Promise<SessionRef> => store.openSession(owner, path);
export const discoverSessions = (options: DiscoverOptions = {}): AsyncGenerator<SessionRef> => store.discoverSessions(owner, options);
export const findSession = (id: string, options: DiscoverOptions = {}): Promise<SessionRef> => store.findSession(owner, id, options);
