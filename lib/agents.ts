// How people call each agent sp knows: one table for every place that names an agent in text
// (relay headers, compiled handoffs). The adapters' own displayName says the same; lib/ cannot
// import adapters/, so the names live here.
export const AGENT_LABELS: Readonly<Record<string, string>> = {
  claude: 'Claude Code',
  codex: 'Codex CLI',
  pi: 'Pi',
  hermes: 'Hermes Agent',
  opencode: 'OpenCode',
  copilot: 'Copilot CLI',
  gemini: 'Gemini CLI',
  qwen: 'Qwen Code',
  qoder: 'Qoder CLI',
  cursor: 'Cursor',
  aider: 'Aider',
  atif: 'an ATIF trajectory',
  otel: 'OpenTelemetry telemetry',
};

/** Targets whose sessions keep a tree the client continues on (the others get one branch per session). */
export const TREE_TARGETS: ReadonlySet<string> = new Set(['pi']);

/** The agent's name for a reader; an agent sp does not know keeps its id. */
export const agentLabel = (agent: string): string => AGENT_LABELS[agent] ?? agent;
