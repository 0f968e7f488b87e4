// Runs a command without the yargs layer (for hot pipeline stages), with runCli's error handling.
import { reportError } from '../cli/cli.js';
import { setProgramName } from '../cli/diagnostics.js';

export async function runFast(name: string, body: () => Promise<number> | number): Promise<never> {
  setProgramName(name);
  let code: number;
  try {
    code = await body();
  } catch (err) {
    code = reportError(err);
  }
  if (process.stdout.writableLength > 0) await new Promise((r) => process.stdout.once('drain', r));
  process.exit(code);
}
