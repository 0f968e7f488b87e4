// Paths of the Codex fixtures (fixtures/codex/README.md), shared by the capture, writer and acceptance tests.
export const F = new URL('../../fixtures/codex/', import.meta.url).pathname;
const day = 'sessions/2026/11/30';
export const S1_HOME = `${F}corpus/S1-feature`;
export const S1 = `${S1_HOME}/${day}/rollout-2026-11-30T05-06-52-01a22ad9-47d0-73f1-b186-11146d50904a.jsonl`;
export const S1P = `${F}corpus/S1-feature-paginated/${day}/rollout-2026-11-30T05-06-58-01a22ad9-5f3e-7843-bf5d-a2a73f6eb4c8.jsonl`;
export const S2 = `${F}corpus/S2-debug/${day}/rollout-2026-11-30T05-07-06-01a22ad9-7cda-7dc3-af4a-0f4bdf56c072.jsonl`;
export const S3 = `${F}corpus/S3-long/${day}/rollout-2026-11-30T05-07-12-01a22ad9-94fc-7ae2-9539-88c29f4141fc.jsonl`;
const STAGE0 = `${F}public/agent-sessions/Resources/Fixtures/stage0/agents/codex/`;
export const SMALL = `${STAGE0}small.jsonl`;
export const LARGE = `${STAGE0}large.jsonl`;
export const DRIFT = `${STAGE0}schema_drift.jsonl`;
export const BRIDGE = `${F}public/session-bridge/tests/fixtures/codex_sample.jsonl`;
export const CURRENT = `${F}public/transession/tests/fixtures/codex_current_sample.jsonl`;
export const DRAG_DROP = `${F}public/openai-codex/codex-rs/core/tests/fixtures/rollout_drag_drop_image.json`;

export const CORPUS = [S1, S1P, S2, S3];
export const PUBLIC = [SMALL, LARGE, DRIFT, BRIDGE, CURRENT];
