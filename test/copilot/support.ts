// Fixture paths for the Copilot CLI tests.
export const COPILOT = new URL('../../fixtures/copilot/', import.meta.url).pathname;
export const HOME = `${COPILOT}corpus/.copilot`;
/** OpenAI wire (gpt-4.1), resumed once. */
export const OPENAI = `${HOME}/session-state/67f33fd5-d20a-4bad-a942-cd54b8907c3f/events.jsonl`;
/** Anthropic wire (claude-sonnet-4.5): signed thinking blocks. */
export const ANTHROPIC = `${HOME}/session-state/37ff58dd-12dc-4017-8e24-403f3eda6806/events.jsonl`;
/** agent-sessions (MIT): a 1.0.77 file with string arguments, subagent events and trimmed ids. */
export const PUBLIC_SMALL = `${COPILOT}public/agent-sessions/small.jsonl`;
export const ALL = [OPENAI, ANTHROPIC, PUBLIC_SMALL];
