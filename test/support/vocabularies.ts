// Every agent's tool vocabulary, loaded from its adapter (adapters/<agent>/vocabulary.ts) through the
// registry, keyed by agent id: what the relay translates with.
import { adapters } from '../../adapters/index.js';
import type { Vocabulary } from '../../lib/relay/vocabulary/types.js';

export const VOCABULARIES: Record<string, Vocabulary> = Object.fromEntries(
  await Promise.all(
    Object.values(adapters)
      .filter((adapter) => adapter.vocabulary)
      .map(async (adapter) => [adapter.id, await adapter.vocabulary!()] as const),
  ),
);
