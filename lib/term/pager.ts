// Paging like git: text taller than the screen goes through $SP_PAGER, else $PAGER, else
// `less -FRX` (quit if one screen, keep colours, leave the text on the screen). The pager's
// command line is split on spaces and spawned as argv, never through a shell, so a hostile PAGER
// value cannot run anything but the program it names. An empty value or "cat" means no pager; a
// pager that cannot start falls back to plain stdout.
import { spawn } from 'node:child_process';

export interface PageOptions {
  /** stdout is a terminal (only then is a pager used). */
  isTTY: boolean;
  /** --no-pager. */
  noPager?: boolean;
  rows: number;
  env?: NodeJS.ProcessEnv;
  out?: NodeJS.WritableStream;
}

/** The pager's argv; undefined when none is to be used. */
export function pagerCommand(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const value = env.SP_PAGER ?? env.PAGER;
  if (value === undefined) return ['less', '-FRX'];
  const argv = value.trim().split(/\s+/).filter((part) => part !== '');
  if (argv.length === 0 || argv[0] === 'cat') return undefined;
  return argv;
}

/** Writes `text` to stdout, through the pager when it is taller than the screen. */
export async function page(text: string, options: PageOptions): Promise<void> {
  const out = options.out ?? process.stdout;
  const env = options.env ?? process.env;
  const argv = options.isTTY && !options.noPager ? pagerCommand(env) : undefined;
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (!argv || lines < options.rows) {
    await write(out, text);
    return;
  }
  const started = await runPager(argv, text, env);
  if (!started) await write(out, text);
}

function write(out: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve) => (out.write(text) ? resolve() : out.once('drain', () => resolve())));
}

/** Resolves true once the pager has exited, false if it could not be started. */
function runPager(argv: string[], text: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  return new Promise((resolve) => {
    // less reads LESS when -FRX is not given on its command line; keep colours in any case.
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'inherit', 'inherit'], env: { LESS: 'FRX', ...env } });
    let spawned = false;
    // Ctrl-C belongs to the pager while it runs (as with git): sp waits for it to exit.
    const ignore = () => undefined;
    process.on('SIGINT', ignore);
    child.once('close', () => process.off('SIGINT', ignore));
    child.once('spawn', () => {
      spawned = true;
      // The user quitting the pager early closes the pipe: not an error.
      child.stdin.on('error', () => undefined);
      child.stdin.end(text);
    });
    child.once('error', () => {
      if (!spawned) {
        process.off('SIGINT', ignore);
        resolve(false);
      }
    });
    child.once('close', () => resolve(spawned));
  });
}
