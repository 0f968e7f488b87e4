// Paths of the Gemini CLI fixtures (fixtures/gemini/README.md).
const F = new URL('../../fixtures/gemini/', import.meta.url).pathname;

export const HOME = `${F}corpus/.gemini`;
export const CHATS = `${HOME}/tmp/acme-api/chats/`;
export const FEATURE = `${CHATS}session-2026-11-30T05-46-3222ee9e.jsonl`;
export const FAILING = `${CHATS}session-2026-11-30T05-46-3b7eba0a.jsonl`;
export const INTERACTIVE = `${CHATS}session-2026-11-30T05-46-c5c0d891.jsonl`;
export const PUBLIC_V040 = `${F}public/jsonl_v040.jsonl`;
export const CORPUS = [FEATURE, FAILING, INTERACTIVE];
export const ALL = [...CORPUS, PUBLIC_V040];
