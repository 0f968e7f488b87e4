// Finding ATIF trajectories: every `*.json` under the home (Harbor writes one per trial, as
// `<trial>/agent/trajectory.json`) whose `schema_version` says ATIF, newest first.
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { filesUnder, findByIdPrefix } from '../../lib/capture/discover.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { expandTilde } from '../../lib/fs/paths.js';
import { AGENT, defaultHome, readTrajectory } from './paths.js';
import { versionOf } from './schemas.js';

const MAX_DEPTH = 4;
/** Discovery opens files up to this size; a larger trajectory is captured with --path only. */
const MAX_DISCOVERED_BYTES = 64 * 1024 * 1024;

/** Trajectory candidates: `*.json` files up to MAX_DISCOVERED_BYTES, outside hidden folders and node_modules. */
function* jsonFiles(home: string): Generator<string> {
  const walk = filesUnder(home, { maxDepth: MAX_DEPTH, enter: (name) => name !== 'node_modules' && !name.startsWith('.'), accept: (name) => name.endsWith('.json') });
  for (const path of walk) {
    try {
      if (statSync(path).size <= MAX_DISCOVERED_BYTES) yield path;
    } catch {
      // gone meanwhile
    }
  }
}

/** The session a trajectory file holds; a UserError when it is not an ATIF trajectory. */
export async function openTrajectory(path: string, details = false): Promise<SessionRef> {
  const file = resolve(expandTilde(path));
  const { doc, mtime } = readTrajectory(file);
  const version = versionOf(doc.schema_version);
  if (!version) throw new UserError(`not an ATIF trajectory: /schema_version is ${JSON.stringify(doc.schema_version)}, not ATIF-v1.0 … ATIF-v1.7`, file);
  if (typeof doc.session_id !== 'string' || doc.session_id === '') throw new UserError('not an ATIF trajectory: /session_id must be a non-empty string', file);
  const ref: SessionRef = { agent: AGENT, native_id: doc.session_id, path: file, mtime, atif_version: version };
  if (details && Array.isArray(doc.steps)) {
    for (const s of doc.steps as Array<{ source?: unknown; message?: unknown }>) {
      if (typeof s !== 'object' || s === null || s.source !== 'user' || typeof s.message !== 'string') continue;
      ref.first_prompt = promptTitle(s.message);
      if (ref.first_prompt !== undefined) break;
    }
    ref.messages = doc.steps.length;
    ref.tool_calls = doc.steps.reduce((n: number, s) => n + (Array.isArray((s as { tool_calls?: unknown }).tool_calls) ? ((s as { tool_calls: unknown[] }).tool_calls.length) : 0), 0);
  }
  return ref;
}

export async function* discoverTrajectories(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  try {
    if (!statSync(home).isDirectory()) throw new Error('ENOTDIR');
  } catch {
    throw new UserError(`cannot read the ATIF trajectory folder (set --home or SP_ATIF_HOME)`, home);
  }
  const refs: SessionRef[] = [];
  for (const path of jsonFiles(home)) {
    try {
      refs.push(await openTrajectory(path, options.details));
    } catch {
      // Other JSON files (results, configs) are not trajectories.
    }
  }
  refs.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0));
  yield* refs;
}

export async function findTrajectory(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  return findByIdPrefix(discoverTrajectories({ home: options.home }), id, `no ATIF trajectory "${id}" under ${resolve(options.home ?? defaultHome())} (sp-capture atif --list shows them)`);
}
