// Where OpenTelemetry log exports are looked for. OTel has no agent home: sp's "home" for it is a
// folder of exports (SP_OTEL_HOME, default ~/.otel/exports), each a file the Collector's file
// exporter (one OTLP/JSON logs request per line, `.jsonl`) or an OTLP/JSON request (`.json`) wrote.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { envPath } from '../../lib/fs/paths.js';

export const AGENT = 'otel';
export const HOME_ENV = 'SP_OTEL_HOME';

export function defaultHome(): string {
  // Not the current directory: listing every agent's sessions (sp-mcp) must not parse whatever JSON lies there.
  return envPath(HOME_ENV) ?? join(homedir(), '.otel', 'exports');
}

/** An export file holds no id of its own when it holds no session: its path names it. */
export function fileId(path: string): string {
  return createHash('sha256').update(resolve(path)).digest('hex').slice(0, 16);
}

/** Discovery opens files up to this size; a larger export is captured with --path only. */
export const MAX_DISCOVERED_BYTES = 64 * 1024 * 1024;
