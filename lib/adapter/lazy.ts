// Adapters load their code on first use: the registry holds each agent's name, home and fidelity
// table, and its discover/capture/materialize functions import their modules when first called. A
// command that touches one agent (or, like --version, none) does not load the other ten at start-up.

/** `load`, called once: later calls share its promise. */
export function once<M>(load: () => Promise<M>): () => Promise<M> {
  let loading: Promise<M> | undefined;
  return () => (loading ??= load());
}

/** The items `iterate` gives, once `load` has imported the module it needs. */
export async function* lazyIterable<M, T>(load: () => Promise<M>, iterate: (module: M) => AsyncIterable<T>): AsyncGenerator<T> {
  yield* iterate(await load());
}
