// Adapters load their code on first use: the registry holds each agent's name, home and fidelity
// table, and its discover/capture/materialize functions import their modules when first called. A
// command that touches one agent (or, like --version, none) loads no other agent's code at start-up.
import type { Adapter, CaptureOptions, DiscoverOptions, MaterializeOptions, MaterializeResult, SessionRef } from './interface.js';
import type { SpEvent } from '../core/event.js';

/** `load`, called once: later calls share its promise. */
export function once<M>(load: () => Promise<M>): () => Promise<M> {
  let loading: Promise<M> | undefined;
  return () => (loading ??= load());
}

/** The items `iterate` gives, once `load` has imported the module it needs. */
export async function* lazyIterable<M, T>(load: () => Promise<M>, iterate: (module: M) => AsyncIterable<T>): AsyncGenerator<T> {
  yield* iterate(await load());
}

/**
 * An adapter's discover, open and find from its discover module (each agent names them its own way),
 * imported on first call. No `find`: the member stays absent, so the CLI searches `discover`.
 */
export function lazyDiscovery<M>(
  load: () => Promise<M>,
  discover: (module: M) => (options: DiscoverOptions) => AsyncIterable<SessionRef>,
  open: (module: M) => (path: string) => Promise<SessionRef>,
  find?: (module: M) => (id: string, options?: DiscoverOptions) => Promise<SessionRef>,
): Pick<Adapter, 'discover' | 'open' | 'find'> {
  const loaded = once(load);
  // open gets the path alone: some open functions take a second argument of their own.
  const members: Pick<Adapter, 'discover' | 'open' | 'find'> = {
    discover: (options) => lazyIterable(loaded, (m) => discover(m)(options)),
    open: async (path) => open(await loaded())(path),
  };
  if (find) members.find = async (id, options) => find(await loaded())(id, options);
  return members;
}

/** An adapter's capture from its capture module, imported when the first session is read. */
export function lazyCapture<M>(
  load: () => Promise<M>,
  capture: (module: M) => (ref: SessionRef, options?: CaptureOptions) => AsyncIterable<SpEvent>,
): Adapter['capture'] {
  const loaded = once(load);
  return (ref, options) => lazyIterable(loaded, (m) => capture(m)(ref, options));
}

/** An adapter's materialize from its writer module, imported when the first session is written. */
export function lazyMaterialize<M>(
  load: () => Promise<M>,
  materialize: (module: M) => (events: AsyncIterable<SpEvent>, options?: MaterializeOptions) => Promise<MaterializeResult>,
): NonNullable<Adapter['materialize']> {
  const loaded = once(load);
  return async (events, options) => materialize(await loaded())(events, options);
}
