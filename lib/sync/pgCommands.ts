// sp-sync's PostgreSQL team-remote commands: `remote init NAME`, `remote grant NAME ROLE PROJECT`
// and `search --remote NAME TEXT` (push, pull and clone go through remote.ts like any remote).
import { EXIT_CHECK_FAILED, EXIT_OK, UserError, warn } from '../cli/diagnostics.js';
import { Store, resolveStoreDir } from '../store/index.js';
import { toIso } from '../core/event.js';
import type { CommonArgs } from './commands.js';
import { getRemote, type RemoteConfig } from './remote.js';
import { connect, grantProject, maskUrl, searchTeam } from './pg.js';

function pgRemote(args: CommonArgs, name: string | undefined): RemoteConfig {
  const store = Store.open(resolveStoreDir(args.store), { readonly: true });
  try {
    const remote = getRemote(store, name);
    if (remote.kind !== 'pg') throw new UserError(`remote ${remote.name} is not a PostgreSQL remote (${remote.kind}); init, grant and search --remote are for postgres:// remotes`);
    return remote;
  } finally {
    store.close();
  }
}

export async function pgRemoteCommand(args: CommonArgs & { name?: string; url?: string; project?: string }, action: 'init' | 'grant'): Promise<number> {
  if (!args.name) throw new UserError(`remote ${action} needs the remote's name (see --help)`);
  const remote = pgRemote(args, args.name);
  const where = maskUrl(remote.url);
  const client = await connect(remote.url);
  try {
    if (action === 'init') {
      const { initSchema } = await import('./pg.js');
      const r = await initSchema(client);
      if (args.json) process.stdout.write(JSON.stringify({ remote: remote.name, ...r }) + '\n');
      else if (!args.quiet) warn(remote.name, r.applied.length > 0 ? `schema at version ${r.to} (applied ${r.applied.join(', ')})` : `schema at version ${r.to} already; nothing to do`);
      return EXIT_OK;
    }
    const role = args.url;
    if (!role || !args.project) throw new UserError('usage: sp-sync remote grant NAME ROLE PROJECT');
    await grantProject(client, role, args.project, where);
    if (!args.quiet) warn(remote.name, `role ${role} may read project ${JSON.stringify(args.project)}`);
    return EXIT_OK;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A --since/--until value: an ISO date (or date-time), or seconds since the epoch. */
function parseWhen(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new UserError(`${option}: not a date (2026-05-01, 2026-05-01T12:00Z, or epoch seconds): ${JSON.stringify(value)}`);
  return ms / 1000;
}

export async function remoteSearchCommand(
  args: CommonArgs & { text: string; limit: number; remote?: string; agent?: string; project?: string; machine?: string; since?: string | number; until?: string | number },
): Promise<number> {
  if (args.text.trim() === '') throw new UserError('nothing to search for');
  const remote = pgRemote(args, args.remote === '' ? undefined : args.remote);
  const { Redactor } = await import('../redact/ensure.js');
  const redactor = await Redactor.load();
  const client = await connect(remote.url);
  try {
    const hits = await searchTeam(
      client,
      args.text,
      {
        agent: args.agent,
        project: args.project,
        machine: args.machine,
        since: parseWhen(args.since === undefined ? undefined : String(args.since), '--since'),
        until: parseWhen(args.until === undefined ? undefined : String(args.until), '--until'),
        limit: args.limit,
      },
      maskUrl(remote.url),
    );
    // Snippets are shown redacted: a teammate may have pushed with --allow-unredacted.
    for (const h of hits) {
      const shown = { ...h, snippet: redactor.redactText(h.snippet) ?? '' };
      if (args.json) process.stdout.write(JSON.stringify(shown) + '\n');
      else {
        const when = shown.ts !== null ? toIso(shown.ts).slice(0, 16).replace('T', ' ') : '-';
        process.stdout.write(`${shown.machine}  ${shown.session}  seq ${shown.seq}  ${when}  ${shown.agent ?? '-'}  ${shown.project || '-'}  ${shown.type ?? '-'}: ${shown.snippet}\n`);
      }
    }
    return hits.length > 0 ? EXIT_OK : EXIT_CHECK_FAILED;
  } finally {
    await client.end().catch(() => {});
  }
}
