// OpenCode as the owner of its data dir, for the format's shared reader (lib/formats/opencode/).
import type { DataDirOwner } from '../../lib/formats/opencode/locator.js';
import { DB_NAME, HOME_ENV, defaultHome } from './paths.js';

export const AGENT = 'opencode';

export const owner: DataDirOwner = { agent: AGENT, label: 'OpenCode', dbName: DB_NAME, defaultHome, homeHint: HOME_ENV };
