// Paths of the Qwen Code fixtures (fixtures/qwen/README.md).
const F = new URL('../../fixtures/qwen/', import.meta.url).pathname;

export const HOME = `${F}corpus/.qwen`;
export const CHATS = `${HOME}/projects/-home-frank-acme-api/chats/`;
export const FEATURE = `${CHATS}5b9fc1a9-155a-439a-92db-56b55ac98811.jsonl`;
export const FAILING = `${CHATS}1979a61b-1f78-43eb-bdec-2a31005e9698.jsonl`;
export const PUBLIC_BRANCH = `${F}public/019f0000-0000-7000-8000-000000000004.jsonl`;
export const CORPUS = [FEATURE, FAILING];
export const ALL = [...CORPUS, PUBLIC_BRANCH];
