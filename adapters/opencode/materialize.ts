// `sp-materialize opencode`: canonical events → a NEW OpenCode session in `<data dir>/opencode.db`
// (docs/formats/opencode.md §5), by the format's writer (lib/formats/opencode/write.ts, which says
// what the client needs). What is OpenCode's own: the database name (`OPENCODE_DB` overrides it for
// the default data dir), the version the session row names, its default agent `build`, and a
// session model column `{id, providerID}`.
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { materializeStore, type StoreMaterializeResult, type StoreWriter } from '../../lib/formats/opencode/write.js';
import { owner } from './owner.js';
import { dbOfHome, DEFAULT_MODEL, HOME_ENV, NATIVE_ID } from './paths.js';

/** The client version the session row names (the one the writer was verified with). */
export const OPENCODE_VERSION = '1.18.33';

export type OpenCodeMaterializeResult = StoreMaterializeResult;

const writer: StoreWriter = {
  owner,
  version: OPENCODE_VERSION,
  bin: 'opencode',
  mode: 'build',
  fallbackProvider: 'opencode',
  defaultModel: DEFAULT_MODEL,
  nativeId: NATIVE_ID,
  dataDirName: 'opencode',
  homeEnv: HOME_ENV,
  projectCache: 'opencode',
  dbOfHome,
  sessionColumns: (model) => (model ? { model: JSON.stringify({ id: model.modelID, providerID: model.providerID }) } : {}),
  // The variable Hermes documents for its writer; every SQLite writer honours it (tests, slow disks).
  busySetting: () => process.env.SP_HERMES_BUSY_MS,
};

export function materializeOpenCode(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<OpenCodeMaterializeResult> {
  return materializeStore(writer, events, options);
}
