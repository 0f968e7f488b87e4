// `sp-materialize kilo`: canonical events → a NEW Kilo Code CLI session in `<data dir>/kilo.db`
// (docs/formats/kilo.md §5), by OpenCode's format writer (lib/formats/opencode/write.ts, which says
// what the client needs). What is Kilo's own, as 7.7.7 writes it: the database name (`KILO_DB`
// overrides it for the default data dir), the version, the default agent `code` (on every message
// and in the session's `agent` column), a session model column `{id, providerID, variant}`, the
// gateway's `kilo` provider for a bare model name, and the project id cached in `.git/kilo`.
import { join, resolve } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { expandTilde } from '../../lib/fs/paths.js';
import { materializeStore, type StoreMaterializeResult, type StoreWriter } from '../../lib/formats/opencode/write.js';
import { owner } from './owner.js';
import { DB_NAME, DEFAULT_MODEL, HOME_ENV, KILO_VERSION, NATIVE_ID, dbOfHome } from './paths.js';

/** Kilo's default agent (its "Code" mode). */
const MODE = 'code';

const writer: StoreWriter = {
  owner,
  version: KILO_VERSION,
  bin: 'kilo',
  mode: MODE,
  fallbackProvider: 'kilo',
  defaultModel: DEFAULT_MODEL,
  nativeId: NATIVE_ID,
  dataDirName: 'kilo',
  homeEnv: HOME_ENV,
  projectCache: 'kilo',
  // KILO_DB names the client's database for its own data dir; a --home given is written as it is.
  dbOfHome: (home, isDefault) => (isDefault ? dbOfHome(home) : join(resolve(expandTilde(home)), DB_NAME)),
  sessionColumns: (model) => ({ agent: MODE, ...(model ? { model: JSON.stringify({ id: model.modelID, providerID: model.providerID, variant: 'default' }) } : {}) }),
  // The variable Hermes documents for its writer; every SQLite writer honours it (tests, slow disks).
  busySetting: () => process.env.SP_HERMES_BUSY_MS,
};

export function materializeKilo(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<StoreMaterializeResult> {
  return materializeStore(writer, events, options);
}
