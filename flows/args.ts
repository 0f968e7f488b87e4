// The argument style every flow shares: `--from AGENT --to AGENT --session ID`, with the
// positionals `FROM TO [SESSION]` as shortcuts. A helper module, not a command (no shebang).
import type { Argv } from 'yargs';
import { adapters } from '../adapters/index.js';
import { UserError } from '../lib/cli/diagnostics.js';

export interface AgentPair {
  from?: string;
  to?: string;
  session?: string;
}

/** The positional FROM TO [SESSION] and the flags --from/--to/--session, on one yargs builder. */
export function agentPairOptions(y: Argv, what: { from: string; to: string }): Argv {
  return y
    .positional('agents', { type: 'string', array: true, describe: 'FROM TO [SESSION]: shortcuts for --from, --to, --session' })
    .option('from', { type: 'string', describe: `${what.from} (${Object.keys(adapters).sort().join(', ')})` })
    .option('to', { type: 'string', describe: what.to })
    .option('session', { type: 'string', describe: 'the session: a native id, a unique prefix, a canonical sess_… id or a session file' })
    .option('latest', { type: 'boolean', default: false, describe: 'the newest session (with --cwd: of that project)' });
}

/** --from/--to/--session merged with the positionals; a flag and a positional that disagree are a usage error. */
export function agentPair(args: AgentPair & { agents?: unknown[] }): AgentPair {
  const positional = (args.agents ?? []).map(String);
  if (positional.length > 3) throw new UserError(`unexpected argument ${positional[3]}`);
  const [from, to, session] = positional;
  for (const [flag, given, value] of [['--from', args.from, from], ['--to', args.to, to], ['--session', args.session, session]] as const) {
    if (given !== undefined && value !== undefined && given !== value) throw new UserError(`${flag} ${given} and the positional ${value} disagree: give one`);
  }
  return { from: args.from ?? from, to: args.to ?? to, session: args.session ?? session };
}
