// Finding OpenTelemetry log exports: `*.jsonl` and `*.json` files under the home whose records are
// agent telemetry, newest first. `open` takes any such file.
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { findByIdPrefix } from '../../lib/capture/discover.js';
import { expandTilde } from '../../lib/fs/paths.js';
import { readExport } from './capture.js';
import { AGENT, MAX_DISCOVERED_BYTES, defaultHome, fileId } from './paths.js';

export async function openExport(path: string): Promise<SessionRef> {
  const file = resolve(expandTilde(path));
  const items = readExport(file);
  if (items.length === 0) throw new UserError('holds no OpenTelemetry records (an empty export)', file);
  const first = items.find((i) => i.kind === 'event' && i.event.session);
  const ref: SessionRef = { agent: AGENT, native_id: first?.kind === 'event' && first.event.session ? first.event.session : fileId(file), path: file, mtime: statSync(file).mtimeMs / 1000 };
  const sessions = new Set(items.flatMap((i) => (i.kind === 'event' && i.event.session ? [i.event.session] : [])));
  if (sessions.size > 1) ref.sessions = sessions.size;
  return ref;
}

export async function* discoverExports(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  let names: string[];
  try {
    names = readdirSync(home);
  } catch {
    throw new UserError('cannot read the OpenTelemetry export folder (set --home or SP_OTEL_HOME)', home);
  }
  const refs: SessionRef[] = [];
  for (const name of names.filter((n) => n.endsWith('.jsonl') || n.endsWith('.json'))) {
    try {
      if (statSync(join(home, name)).size > MAX_DISCOVERED_BYTES) continue;
      const ref = await openExport(join(home, name));
      if (ref.native_id !== fileId(ref.path)) refs.push(ref);
    } catch {
      // not an export
    }
  }
  refs.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0));
  yield* refs;
}

export async function findExport(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  return findByIdPrefix(discoverExports({ home: options.home }), id, `no OpenTelemetry export of session "${id}" under ${resolve(options.home ?? defaultHome())}`);
}
