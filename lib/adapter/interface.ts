// The adapter interface: what every `adapters/<agent>/` folder exports (its index.ts), and the
// cursor that makes capture incremental. The registry of adapters lives in `adapters/index.ts`
// so that imports flow one way: bin/ → adapters/ → lib/.
import type { EncodingName } from '../compile/encoding.js';
import type { Level, SpEvent } from '../core/event.js';
import type { Vocabulary } from '../relay/vocabulary/types.js';

/** One native session an adapter found. */
export interface SessionRef {
  agent: string;
  native_id: string;
  /** The transcript file (or database) that holds it. */
  path: string;
  cwd?: string;
  title?: string;
  /** The first user prompt, cut to 120 characters. */
  first_prompt?: string;
  /** Epoch seconds of the first and last record. */
  first_ts?: number;
  last_ts?: number;
  messages?: number;
  tool_calls?: number;
  /** File modification time, epoch seconds. */
  mtime?: number;
  /** Native id of the session this one was forked from or spawned by (subagents, compression children). */
  parent_native_id?: string;
  [extra: string]: unknown;
}

export interface DiscoverOptions {
  /** The agent's home (e.g. ~/.claude); the adapter's default when absent. */
  home?: string;
  /** Only sessions whose cwd is this directory. */
  cwd?: string;
  /** Compute counts, prompts and timestamps (reads every file); `--list` wants them. */
  details?: boolean;
  onDiagnostic?: Diagnose;
}

/** Reports a problem that capture survived: `where` is file:line, `what` says what was wrong. */
export type Diagnose = (where: string, what: string) => void;

/** How far a capture read one source (a file, or a database table). */
export interface SourcePosition {
  /** Byte offset just past the last consumed line. */
  offset: number;
  /** Number of the last consumed line (1-based; 0 before the first). */
  line: number;
  /** Byte offset where the last consumed line starts, and the SHA-256 of its bytes: detects rewrites. */
  last_line_start?: number;
  last_line_sha256?: string;
  /** For databases: the last row id consumed. */
  rowid?: number;
  [extra: string]: unknown;
}

/** Stored between incremental captures (`--cursor FILE`). */
export interface Cursor {
  version: 1;
  agent: string;
  native_id: string;
  sources: Record<string, SourcePosition>;
  /** Per canonical session: the next seq to assign and the chain tail to continue from. */
  sessions: Record<string, { next_seq: number; checksum?: string }>;
  /** Adapter-specific state needed to continue (e.g. native uuid → seq for parent links). */
  state?: unknown;
}

export interface CaptureOptions {
  /** Also carry each record's native line(s) verbatim in `origin.raw`. */
  raw?: boolean;
  /** Store images as content-addressed files here and reference them by hash. */
  artifactsDir?: string;
  /** Continue after this cursor: only what was appended since is emitted. */
  cursor?: Cursor;
  /** Receives the cursor to store after the capture finished (checksums are filled in by the caller). */
  onCursor?: (cursor: Cursor) => void;
  onDiagnostic?: Diagnose;
}

export interface MaterializeOptions {
  /** The target agent's home; the adapter's default when absent. */
  home?: string;
  /** The project directory the new session belongs to; default: the captured session's cwd. */
  cwd?: string;
  /** Keep the native session id and records (same-agent move, L2); refuse if the target exists. */
  sameId?: boolean;
  /** Compute everything, write nothing. */
  dryRun?: boolean;
  /** Create the cwd when it does not exist (some clients refuse to resume into a missing folder). */
  mkcwd?: boolean;
  /** `all` keeps every branch of a tree (default); `active` writes only the path to the active leaf. */
  branch?: 'all' | 'active';
  /** The model the target should continue with (e.g. when the source is another agent). */
  model?: string;
  /** Materialize this canonical session of a stream that holds several (default: the first). */
  session?: string;
  /** Where a `--artifacts` capture stored images (content-addressed), to inline them again. */
  artifactsDir?: string;
  /** The resume-safety pass (default on). Off: ids, reasoning and unpaired tool calls are written as they are. */
  safety?: boolean;
  /** Write even with an experimental writer (one no real client has checked; see Adapter.experimental). */
  experimental?: boolean;
  /** Back up a store the writer changes in place (a shared database) before writing (default on). */
  backup?: boolean;
  /** The version of the target's format to write, for targets with several (ATIF: `--atif-version`); default the latest. */
  formatVersion?: string;
  /** Receives every native line in file order (for `--dry-run` previews); called in dry runs too. */
  onLine?: (line: string) => void;
  /** Each change the writer made to carry the session over (stubbed, dropped, transformed). */
  onLoss?: (entry: LossEntry) => void;
}

export interface LossEntry {
  /**
   * dropped: not written; stubbed: something added so the target accepts it; transformed: written
   * differently; translated: a tool call (or its result) in the target's vocabulary (`from` → `to`);
   * rendered: written as plain text (no counterpart in the target); carried: written as it was.
   */
  action: 'dropped' | 'stubbed' | 'transformed' | 'translated' | 'rendered' | 'carried';
  /** A short code that groups entries in summaries (`stub-result`, `orphan-result` …). */
  code: string;
  /** The canonical event concerned (its seq and type), when there is one. */
  seq?: number;
  type?: string;
  /** What it was and what it became (tool names for translated/rendered calls). */
  from?: string;
  to?: string;
  reason: string;
}

export interface MaterializeResult {
  agent: string;
  session_id: string;
  path: string;
  cwd: string;
  /** A shell command that resumes the new session with the real client. */
  resume: string;
  /** The same command as data (its folder, argv and the home variable when not the default), for spawn. */
  resume_exec?: { cwd?: string; argv: string[]; env: Record<string, string> };
  /** Records (lines, rows) written. */
  records: number;
  dry_run?: boolean;
  [extra: string]: unknown;
}

/** What one event type keeps through this adapter, per fidelity level (docs/design.md §3). */
export interface Fidelity {
  level: Level;
  capture: string;
  materialize: string;
}
export type FidelityTable = Record<string, Fidelity>;

export interface Adapter {
  /** The agent's name on the command line: `claude`, `codex`, `pi`, `hermes`. */
  id: string;
  displayName: string;
  /** The environment variable that overrides the home, and the home it names by default. */
  homeEnv: string;
  /**
   * Variables the client sets in the environment of the tools and MCP servers it starts (Claude Code
   * sets CLAUDECODE=1): how sp-mcp tells which agent is calling it. The home variable counts too.
   */
  clientEnv?: readonly string[];
  defaultHome(): string;
  /** Sessions found under the home, newest first. */
  discover(options: DiscoverOptions): AsyncIterable<SessionRef>;
  /** The session a native file (or database) holds, wherever it lies. */
  open(path: string, options?: DiscoverOptions): Promise<SessionRef>;
  /** A session by native id (or a unique prefix of one); absent: the CLI searches `discover`. */
  find?(id: string, options?: DiscoverOptions): Promise<SessionRef>;
  /** Files and folders `--follow` watches for a session (side files too); absent: `ref.path`. */
  watchPaths?(ref: SessionRef): string[] | Promise<string[]>;
  /** Canonical events of one native session, unchained (the caller chains them). */
  capture(ref: SessionRef, options?: CaptureOptions): AsyncIterable<SpEvent>;
  /** The model a writer gives assistant messages that name none (and the target continues with). */
  defaultModel?: string;
  /** Writes a new native session from canonical events; absent for read-only adapters. */
  materialize?(events: AsyncIterable<SpEvent>, options?: MaterializeOptions): Promise<MaterializeResult>;
  /** How prose names the agent (relay headers, compiled handoffs, the web UI); default: displayName. */
  label?: string;
  /**
   * The model family named like this agent (or its vendor) and its provider: how model and provider
   * names of that family start (`claude-…`, `anthropic/…` → anthropic). The relay reads it to tell
   * whose reasoning a session holds.
   */
  modelFamily?: { provider: string; names: RegExp };
  /** What the agent's sessions and clients can hold and do: read here, never by comparing ids. */
  capabilities: Capabilities;
  /** Its native tools as intents and back (relay, capture-time derivation), loaded on first use. */
  vocabulary?(): Promise<Vocabulary>;
  /** How a handoff is compiled for it (`sp-compile <agent>`); absent: not a compile target. */
  compileProfile?: CompileProfile;
  fidelity: FidelityTable;
  /** The real client the tests run (its pinned devDependency); the drift watch checks its newest release. */
  client?: RealClient;
  /** The command its client is started with when there is no `client` from the npm registry (pip, a download). */
  command?: string;
}

/** An agent's real client as published on the npm registry. */
export interface RealClient {
  /** The npm package, e.g. `@openai/codex`. */
  package: string;
  /** The binary it installs (node_modules/.bin/<bin>). */
  bin: string;
  /** The exact version package.json pins and the suite runs. */
  pinned: string;
}

/** Everything sp decides per agent, declared by the agent's adapter (adapters/<agent>/index.ts). */
export interface Capabilities {
  /** Its sessions keep a tree the client continues on (a relay keeps every branch in one session). */
  tree: boolean;
  /** Where its writer takes images: in a user message, in a tool result. */
  images: { userMessage: boolean; toolResult: boolean };
  /** The provider it sends to whatever the model's name; absent: the one its model names (Pi, Hermes …). */
  provider?: string;
  /**
   * Another session's reasoning it can take as its own thinking: `provider` when the same provider
   * made it, `signed` only with the signature the provider verifies, `own` none (it replays only its
   * own encrypted reasoning).
   */
  thinking: 'provider' | 'signed' | 'own';
  /** `--cursor` capture continues where the last one stopped; otherwise why a session is read whole. */
  incremental: true | { whyNot: string };
  /** Its writer can keep the native session id (`--same-id`); otherwise why not. */
  sameId: true | { whyNot: string };
  /** Set when no real client has checked the writer: why. Relays then write only when asked (`--experimental`). */
  experimental?: string;
  /** Why its writer carries every tool call as text, when it does (the ledger says it instead of "no tool for"). */
  textOnlyToolCalls?: string;
  /**
   * An interchange format rather than an agent (ATIF): it keeps every tool call, thinking block and
   * image as the source made them, so the relay passes events through untranslated.
   */
  keepsSourceTerms?: boolean;
}

/** How a handoff is compiled for an agent: token counting, the room it has, where instructions go. */
export interface CompileProfile {
  /**
   * What budgets are counted with: a base encoding or a registered estimate by name, or an estimate
   * this profile declares (then every profile can name it).
   */
  tokenizer: string | EstimatingTokenizer;
  /** Context window in tokens. */
  window: number;
  /** Tokens the agent needs for itself: system prompt, tool definitions, the reply. */
  reserve: number;
  /** The default handoff budget (it states the work, it does not refill the window). */
  budget: number;
  /** The instructions file `--format agents-md` writes a section into. */
  instructionsFile: string;
}

/** An estimating tokenizer: ceil(count in `base` × `factor`), for models that publish no local tokenizer. */
export interface EstimatingTokenizer {
  /** Its name in outputs and on the command line (`--tokenizer`). */
  name: string;
  base: EncodingName;
  factor: number;
}
