// What sp knows about its stdout: whether it is a terminal and how wide it is.
// SP_FORCE_TTY=1 makes sp treat stdout as a terminal (tests, and `sp … | less -R` by hand);
// SP_FORCE_TTY=0 the opposite. COLUMNS overrides the width a terminal reports.

export function stdoutIsTTY(env: NodeJS.ProcessEnv = process.env, stream: { isTTY?: boolean } = process.stdout): boolean {
  if (env.SP_FORCE_TTY === '1') return true;
  if (env.SP_FORCE_TTY === '0') return false;
  return stream.isTTY === true;
}

/**
 * Whether a listing should print a table: stdout is a terminal (or SP_FORCE_TTY=1) and no --json.
 * Here rather than in listing.ts so a command that prints no table decides it without loading the
 * table renderer and its Unicode width data.
 */
export function wantsTable(options: { json?: boolean; env?: NodeJS.ProcessEnv; out?: { isTTY?: boolean; write?(text: string): unknown } } = {}): boolean {
  return options.json !== true && stdoutIsTTY(options.env ?? process.env, options.out ?? process.stdout);
}

/** Columns to render for: COLUMNS, else the terminal's, else 80; never below 20. */
export function terminalWidth(env: NodeJS.ProcessEnv = process.env, stream: { columns?: number } = process.stdout): number {
  const fromEnv = Number.parseInt(env.COLUMNS ?? '', 10);
  const width = Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : stream.columns && stream.columns > 0 ? stream.columns : 80;
  return Math.max(20, Math.min(width, 1000));
}

/** Rows of the screen: LINES, else the terminal's, else 24. */
export function terminalHeight(env: NodeJS.ProcessEnv = process.env, stream: { rows?: number } = process.stdout): number {
  const fromEnv = Number.parseInt(env.LINES ?? '', 10);
  if (Number.isFinite(fromEnv) && fromEnv > 0) return fromEnv;
  return stream.rows && stream.rows > 0 ? stream.rows : 24;
}
