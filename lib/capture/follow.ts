// `--follow` for any agent: run a capture step, then wait for a change and run it again. fs.watch
// wakes us at once; a short stat poll catches what fs.watch misses (some filesystems, renames,
// files that did not exist yet), and a slower rescan catches new files in places nobody watches.
// Steps never overlap, and a change seen during a step triggers another step right after it.
import { watch, statSync, type FSWatcher } from 'node:fs';

export interface FollowOptions {
  /** The files and directories to watch; asked again after every step, so new files join. */
  targets(): string[];
  /** Reads and emits whatever is new. Called once at the start, then after every change. */
  step(): Promise<void>;
  signal: AbortSignal;
  /** Stat the targets this often (ms). 50 ms keeps new events within 100 ms of an append. */
  pollMs?: number;
  /** Run a step at least this often (ms), changed or not. */
  rescanMs?: number;
}

function signature(path: string): string {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'absent';
  }
}

export async function follow(options: FollowOptions): Promise<void> {
  const pollMs = options.pollMs ?? 50;
  const rescanMs = options.rescanMs ?? 1000;
  const watchers = new Map<string, FSWatcher>();
  const seen = new Map<string, string>();
  let dirty = false;
  let wake: (() => void) | undefined;

  const poke = () => {
    dirty = true;
    wake?.();
  };
  const syncWatchers = (targets: string[]) => {
    const wanted = new Set(targets);
    for (const [path, watcher] of watchers) {
      if (!wanted.has(path)) {
        watcher.close();
        watchers.delete(path);
      }
    }
    for (const path of wanted) {
      if (watchers.has(path)) continue;
      try {
        const watcher = watch(path, { persistent: false }, poke);
        // A watched file that goes away is picked up by the poll; a watcher error must not end the process.
        watcher.on('error', () => {
          watcher.close();
          watchers.delete(path);
        });
        watchers.set(path, watcher);
      } catch {
        // Not there yet: the poll notices when it appears.
      }
    }
  };
  const changed = (targets: string[]): boolean => {
    let any = false;
    for (const path of targets) {
      const now = signature(path);
      if (seen.get(path) !== now) {
        seen.set(path, now);
        any = true;
      }
    }
    return any;
  };

  const onAbort = () => wake?.();
  options.signal.addEventListener('abort', onAbort);
  try {
    while (!options.signal.aborted) {
      dirty = false;
      const before = options.targets();
      changed(before); // remember what the step is about to read
      await options.step();
      const targets = options.targets();
      syncWatchers(targets);
      if (changed(targets)) dirty = true;
      if (dirty || options.signal.aborted) continue;
      await new Promise<void>((resolve) => {
        const started = Date.now();
        const timer = setInterval(() => {
          if (options.signal.aborted || changed(targets) || Date.now() - started >= rescanMs) finish();
        }, pollMs);
        const finish = () => {
          clearInterval(timer);
          wake = undefined;
          resolve();
        };
        wake = finish;
        if (dirty) finish();
      });
    }
  } finally {
    options.signal.removeEventListener('abort', onAbort);
    for (const watcher of watchers.values()) watcher.close();
  }
}

/**
 * An AbortSignal that fires on the first SIGINT or SIGTERM, so a follower can finish its step,
 * flush its output and store its cursor. A second signal exits at once.
 */
export function stopOnSignals(onSecond: () => void = () => process.exit(130)): AbortSignal {
  const controller = new AbortController();
  const handler = () => {
    if (controller.signal.aborted) onSecond();
    else controller.abort();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return controller.signal;
}
