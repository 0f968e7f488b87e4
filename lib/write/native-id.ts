// The shape of native session ids, on its own: each adapter's paths.ts declares its format with it,
// and a capture must not load the writer (lib/write/writer.ts re-exports both) to get a pattern.

/** The shape of an agent's native session ids, declared once next to the agent (its paths.ts). */
export interface NativeIdFormat {
  /** The agent's display name, for the diagnostic. */
  agent: string;
  /** Matches exactly the ids the client makes and accepts (anchored). */
  pattern: RegExp;
  /** The format in words: `a UUID`, `YYYYMMDD_HHMMSS_<hex>` … */
  described: string;
}

/** Any RFC 4122 UUID (8-4-4-4-12 hex), the session id of most clients. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
