// The operations layer: one session resolver and the pipeline stages, called by every front door
// (bin/*, the MCP tools, sp serve, index.ts, flows/*). See resolve.ts, stages.ts, errors.ts.
export { OpsError, OPS_ERROR_KINDS, isOpsError, asOpsError, type OpsErrorKind } from './errors.js';
export {
  resolveSessions,
  resolveSession,
  adapterOf,
  homeOf,
  agentsFor,
  isPathSelector,
  type Registry,
  type Selector,
  type SessionSelector,
  type ResolveOptions,
  type ResolvedSession,
} from './resolve.js';
export {
  capture,
  redact,
  compile,
  compileInputs,
  relay,
  relayInputs,
  writeLedgerReport,
  ingest,
  collect,
  eventsInput,
  eventsOf,
  type Events,
  type CaptureOptions,
  type RedactOptions,
  type CompileOptions,
  type CompiledHandoff,
  type CompileInputsOptions,
  type RelayStageOptions,
  type IngestOptions,
} from './stages.js';
