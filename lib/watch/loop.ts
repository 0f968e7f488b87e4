// The long-running part of `sp watch`: scan, then wait for a change (fs.watch on the folders the
// sessions live in) or the poll interval (for what fs.watch misses: network filesystems, new
// folders), whichever comes first; push to the remotes every --push interval. A busy store and a
// remote that is down are retried with exponential backoff; the state only moves for what was
// stored, and a push sends everything its remote has not got, so a retry loses nothing. SIGINT or
// SIGTERM ends the loop after the current step.
import { watch, type FSWatcher } from 'node:fs';
import type { ScanResult } from './scan.js';

/** Doubling delays from `first` up to `cap`; reset after a success. */
export class Backoff {
  private failures = 0;
  constructor(
    private readonly first: number,
    private readonly cap: number,
  ) {}
  next(): number {
    const delay = Math.min(this.cap, this.first * 2 ** Math.min(this.failures, 30));
    this.failures += 1;
    return delay;
  }
  reset(): void {
    this.failures = 0;
  }
  get failing(): boolean {
    return this.failures > 0;
  }
}

export interface LoopOptions {
  /** One scan (it saves the state); its result says which folders to listen on and whether the store was busy. */
  scan(): Promise<ScanResult>;
  /** One push to every configured remote; throws when a remote could not be reached. */
  push?(): Promise<void>;
  /** Poll interval (ms): a scan at least this often. */
  intervalMs: number;
  /** Push interval (ms); undefined: no pushing. */
  pushEveryMs?: number;
  signal: AbortSignal;
  log(where: string, what: string): void;
  /** Called after each step (tests and --verbose). */
  onStep?(result: ScanResult): void;
}

/** Listens on folders for changes; a folder that cannot be watched is left to the poll. */
class Listener {
  private readonly watchers = new Map<string, FSWatcher>();
  constructor(
    private readonly poke: () => void,
    private readonly max = 2000,
  ) {}
  sync(folders: string[]): void {
    const wanted = new Set(folders.slice(0, this.max));
    for (const [path, w] of this.watchers) {
      if (!wanted.has(path)) {
        w.close();
        this.watchers.delete(path);
      }
    }
    for (const path of wanted) {
      if (this.watchers.has(path)) continue;
      try {
        const w = watch(path, { persistent: false }, this.poke);
        w.on('error', () => {
          w.close();
          this.watchers.delete(path);
        });
        this.watchers.set(path, w);
      } catch {
        // gone, or not watchable here: the poll covers it
      }
    }
  }
  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}

/** Runs until the signal aborts; resolves after the step that was running then has finished. */
export async function watchLoop(options: LoopOptions): Promise<void> {
  const storeBackoff = new Backoff(250, Math.max(options.intervalMs, 30_000));
  const pushBackoff = new Backoff(1000, Math.max(1000, Math.min(options.pushEveryMs ?? 300_000, 300_000)));
  let dirty = false;
  let wake: (() => void) | undefined;
  // A burst of appends is one scan: a change wakes the loop 50 ms later.
  let debounce: NodeJS.Timeout | undefined;
  const poke = () => {
    dirty = true;
    if (debounce || !wake) return;
    debounce = setTimeout(() => {
      debounce = undefined;
      wake?.();
    }, 50);
  };
  const listener = new Listener(poke);
  const onAbort = () => wake?.();
  options.signal.addEventListener('abort', onAbort);
  let nextPush = options.pushEveryMs !== undefined ? Date.now() + options.pushEveryMs : Infinity;
  try {
    while (!options.signal.aborted) {
      dirty = false;
      let delay = options.intervalMs;
      const result = await options.scan();
      options.onStep?.(result);
      if (result.busy) {
        delay = storeBackoff.next();
      } else {
        storeBackoff.reset();
        listener.sync(result.folders);
      }
      if (options.signal.aborted) break;
      if (options.push && Date.now() >= nextPush) {
        try {
          await options.push();
          pushBackoff.reset();
          nextPush = Date.now() + options.pushEveryMs!;
        } catch (err) {
          const wait = pushBackoff.next();
          options.log('push', `${(err as Error).message}; trying again in ${Math.round(wait / 1000)} s (nothing is lost: the next push sends all that is missing)`);
          nextPush = Date.now() + wait;
        }
      }
      if (options.signal.aborted) break;
      // While the store is busy, changes do not cut the backoff short.
      if (dirty && !result.busy) continue;
      const until = Math.min(Date.now() + delay, nextPush);
      await new Promise<void>((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(finish, Math.max(0, until - Date.now()));
        wake = result.busy ? () => options.signal.aborted && finish() : finish;
        if (options.signal.aborted) finish();
      });
    }
  } finally {
    if (debounce) clearTimeout(debounce);
    options.signal.removeEventListener('abort', onAbort);
    listener.close();
  }
}
