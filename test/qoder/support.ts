// Paths of the Qoder CLI fixtures (fixtures/qoder/README.md).
const F = new URL('../../fixtures/qoder/', import.meta.url).pathname;

export const HOME = `${F}assembled/.qoder`;
export const ASSEMBLED = `${HOME}/projects/-home-ivan-probe/7c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5.jsonl`;
export const MINIMAL = `${F}harness/minimal-resumable.jsonl`;
export const BROKEN_CHAIN = `${F}harness/broken-chain.jsonl`;
export const ALL = [ASSEMBLED, MINIMAL];
