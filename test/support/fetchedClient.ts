// Where `node scripts/clients.mjs prepare` (run by `npm test` before vitest) installs a real client
// that is not a devDependency (the script says why): one folder per package@version in the cache.
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Adapter } from '../../lib/adapter/interface.js';

export function fetchedClientBin(adapter: Adapter): string {
  const client = adapter.client;
  if (!client) throw new Error(`${adapter.id} names no real client`);
  const cache = process.env.SP_CLIENTS_CACHE ?? join(homedir(), '.cache', 'sp-clients');
  return join(cache, `${client.package.replace('/', '+')}@${client.pinned}`, 'node_modules', '.bin', client.bin);
}
