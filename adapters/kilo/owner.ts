// Kilo Code CLI as the owner of its data dir, for the shared reader of OpenCode's format
// (lib/formats/opencode/): same tables and JSON, its own database name and agent id.
import type { DataDirOwner } from '../../lib/formats/opencode/locator.js';
import { DB_NAME, HOME_ENV, defaultHome } from './paths.js';

export const AGENT = 'kilo';

export const owner: DataDirOwner = { agent: AGENT, label: 'Kilo Code CLI', dbName: DB_NAME, defaultHome, homeHint: HOME_ENV };
