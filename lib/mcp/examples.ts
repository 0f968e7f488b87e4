// Agent ids in tool descriptions (text a model reads): made from the ids the server is handed (the
// registry's), never written here, so that an example is always an id the tools accept.

export interface AgentExamples {
  /** A few ids: `a, b, c`. */
  some: string;
  /** Two ids for a `homes` example. */
  pair: readonly [string, string];
  /** Every id, for the server's instructions. */
  all: string;
}

export function agentExamples(ids: readonly string[]): AgentExamples {
  const first = ids[0] ?? 'agent';
  const second = ids[1] ?? first;
  return { some: ids.slice(0, 3).join(', '), pair: [first, second], all: ids.join(', ') };
}
