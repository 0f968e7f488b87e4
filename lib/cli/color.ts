// Whether to colour output: --color / --no-color on any binary, else NO_COLOR (https://no-color.org)
// turns it off and FORCE_COLOR on, else only a terminal gets colour. lib/term and the flows ask here.
let chosen: boolean | undefined;

/** The --color / --no-color flag of this run (undefined: not given). */
export function setColor(flag: boolean | undefined): void {
  chosen = flag;
}

export function colorEnabled(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  if (chosen !== undefined) return chosen;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}
