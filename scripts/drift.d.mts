// Types for scripts/drift.mjs (imported by test/drift.test.ts).
export interface Shapes { types: Set<string>; fields: Set<string> }
export interface TargetResult { target: string; ok: boolean; reason: string; ms: number }
export interface CheckResult { agent: string; no_recorder?: boolean; read_ok: boolean; read_reason: string; fresh_files: string[]; session_dir?: string; targets: TargetResult[]; ms: number }
export interface DriftRow {
  agent: string;
  package: string;
  pinned: string;
  newest: string | null;
  checked_at: string;
  status: 'checked' | 'same' | 'no recorder' | 'error';
  read_ok: boolean | null;
  new_types: string[];
  new_fields: string[];
  targets: TargetResult[];
  write_resume_ok: boolean | null;
  regressions: string[];
  notes: string[];
}
export interface ClientLike { id: string; client?: { package: string; bin: string; pinned: string } }
export function recordType(record: unknown): string;
export function shapesOfText(text: string, shapes?: Shapes, file?: string): Shapes;
export function shapesOfDocument(text: string, shapes?: Shapes, file?: string): Shapes;
export function recordFiles(files: string[]): string[];
export function fixtureRecordFiles(dir: string): string[];
export function freshRecordFiles(result: CheckResult): string[];
export function jsonlFiles(dir: string, into?: string[]): string[];
export function shapesOfFiles(files: string[]): Shapes;
export function newShapes(fresh: Shapes, known: Shapes): { types: string[]; fields: string[] };
export function regressionsOf(newest: CheckResult | undefined, pinned: CheckResult | undefined): string[];
export function exitCodeOf(rows: DriftRow[]): number;
export const COLUMNS: string[];
export function cellsOf(row: DriftRow): string[];
export function renderTable(rows: DriftRow[]): string;
export function renderMarkdown(rows: DriftRow[]): string;
export function npmView(pkg: string): string;
export function installedVersion(pkg: string): string | undefined;
export function scriptsAllowed(pkg: string, manifest?: { devDependencies?: Record<string, string>; allowScripts?: Record<string, boolean> }): boolean;
export function installClient(scratch: string, client: { package: string; bin: string; pinned: string }, version: string, log?: (line: string) => void): string;
export function drift(options: {
  adapters: Record<string, ClientLike>;
  only?: string[];
  force?: boolean;
  view?: (pkg: string) => string;
  /** The version node_modules holds (default: read from it). */
  installed?: (pkg: string) => string | undefined;
  install: (client: { package: string; bin: string; pinned: string }, version: string) => string | Promise<string>;
  check: (agent: string, bins: Record<string, string>, which: 'newest' | 'pinned') => Promise<CheckResult>;
  fixturesOf: (agent: string) => string[];
  freshOf: (agent: string, result: CheckResult) => string[];
  checkedAt?: string;
  log?: (line: string) => void;
}): Promise<DriftRow[]>;
export function renderPins(report: { checked_at: string; rows: DriftRow[] }): string;
