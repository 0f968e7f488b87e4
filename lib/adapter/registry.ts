// lib/ names no agent: what it needs to know about one (its label, capabilities, tool vocabulary,
// compile profile) it asks the adapter registry. Imports flow bin/ → adapters/ → lib/, so lib/
// cannot import the registry: adapters/index.ts hands it over here when it is loaded, and every
// program that reads or writes sessions loads it (bin/*, the MCP server, the tests).
import type { Adapter } from './interface.js';
import { UserError } from '../cli/diagnostics.js';
import type { Vocabulary } from '../relay/vocabulary/types.js';

let registry: Readonly<Record<string, Adapter>> | undefined;

/** Called once by adapters/index.ts with every adapter by id. */
export function registerAdapters(all: Readonly<Record<string, Adapter>>): void {
  registry = all;
}

/** Every registered adapter by id; throws when adapters/index.ts was never loaded (a programming error). */
export function registeredAdapters(): Readonly<Record<string, Adapter>> {
  if (!registry) throw new Error('the adapter registry is not loaded: import adapters/index.js before asking lib/ about an agent');
  return registry;
}

/** The adapter of an agent id; undefined for an id no adapter has (ids in events are data). */
export function adapterOf(agent: string | undefined): Adapter | undefined {
  if (agent === undefined) return undefined;
  const all = registeredAdapters();
  return Object.prototype.hasOwnProperty.call(all, agent) ? all[agent] : undefined;
}

/** How prose names an agent; an id no adapter has keeps its id. */
export function agentLabel(agent: string): string {
  const adapter = registry && Object.prototype.hasOwnProperty.call(registry, agent) ? registry[agent] : undefined;
  return adapter ? adapter.label ?? adapter.displayName : agent;
}

/** The ids of the agents whose sessions keep a tree the client continues on. */
export function treeAgents(): string[] {
  return Object.values(registeredAdapters())
    .filter((a) => a.capabilities.tree)
    .map((a) => a.id);
}

/** Vocabularies loaded so far, by agent: the relay loads each one it needs before translating. */
export class Vocabularies {
  private readonly loaded = new Map<string, Vocabulary | undefined>();

  async load(agent: string | undefined): Promise<Vocabulary | undefined> {
    if (agent === undefined) return undefined;
    if (!this.loaded.has(agent)) {
      const adapter = adapterOf(agent);
      this.loaded.set(agent, adapter?.vocabulary ? await adapter.vocabulary() : undefined);
    }
    return this.loaded.get(agent);
  }

  /** A vocabulary `load` fetched before (undefined for an agent without one). */
  get(agent: string | undefined): Vocabulary | undefined {
    return agent === undefined ? undefined : this.loaded.get(agent);
  }
}

/**
 * The adapter with its declared capabilities enforced where a caller could ask for more: a
 * capture with a cursor from an agent whose sessions are read whole stops with the reason.
 */
export function withCapabilityChecks(adapter: Adapter): Adapter {
  const incremental = adapter.capabilities.incremental;
  if (incremental === true) return adapter;
  return {
    ...adapter,
    async *capture(ref, options) {
      if (options?.cursor) throw new UserError(`incremental capture (--cursor) is not supported for ${adapter.displayName}: ${incremental.whyNot}`, ref.path);
      yield* adapter.capture(ref, options);
    },
  };
}
