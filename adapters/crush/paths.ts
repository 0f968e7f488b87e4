// Where Crush keeps sessions (docs/formats/crush.md §1): each project has its own data directory
// (`options.data_directory`, default `<project>/.crush`) holding `crush.db`; the global data dir
// (`$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush`, else `~/.local/share/crush`) keeps
// `projects.json`, the list of projects and their data directories. A session inside a database is
// `<crush.db>#<session id>`.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { envPath } from '../../lib/fs/paths.js';

export const HOME_ENV = 'CRUSH_GLOBAL_DATA';
export const DB_NAME = 'crush.db';
export const PROJECTS_FILE = 'projects.json';

/** The global data dir: `$CRUSH_GLOBAL_DATA`, `$XDG_DATA_HOME/crush`, `~/.local/share/crush`. */
export function defaultHome(): string {
  return envPath(HOME_ENV) ?? join(envPath('XDG_DATA_HOME') ?? join(homedir(), '.local', 'share'), 'crush');
}

/** A session is `<crush.db>#<id>`. */
export { parseDbLocator as parseLocator, formatDbLocator as formatLocator, type DbLocator as Locator } from '../../lib/fs/paths.js';
