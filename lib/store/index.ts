// The store's public surface (used by sp-sync, sp-verify, sp-materialize, the MCP server and flows).
export { Store, invalidEvent, redactionState, MANIFEST_VERSION, type Manifest, type RedactionRecord, type SearchHit, type OpenOptions, type IngestItem, type IngestResult, type AppendResult } from './store.js';
export type { SessionSummary } from './derive.js';
export { eventKey, searchText } from './derive.js';
export { resolveStoreDir, spHome, machineId } from './paths.js';
export { generateKeys, loadKeys, ensureKeys, trustedKeys, checkSignature, keyIdOf, keysDir, type KeyPair, type Signature, type SignatureCheck } from './identity.js';
export { verifySessionDir, verifyStore, verifyReceipt, isReceipt, isManifest, RECEIPT_TYPE, type StoredSessionReport, type ReceiptReport } from './verify.js';
export { recordHandoff, recordHandoffIfStored, type HandoffOptions, type HandoffResult, type StoredHandoffOptions } from './handoff.js';
export type { SpEvent } from '../core/event.js';
export { splitStoredInputs, verifyStoredInputs, formatStoredReport, verifyArtifacts, type StoredInputs, type StoredVerifyReport, type ArtifactsReport } from './verify.js';
export { convergedView, mergeChains, ownChain, type ConvergedView, type MachineChain, type SeenMark } from './converge.js';
export { refreshConverged, recordAck } from './handoff.js';
