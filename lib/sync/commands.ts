// The sp-sync subcommands over the store (bin/sp-sync.ts parses arguments and calls these).
import { describeBadLine, inputsFrom, readObjects, NdjsonWriter, type BadLine } from '../core/ndjson.js';
import { EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE, UserError, warn } from '../cli/diagnostics.js';
import { createProgress } from '../cli/progress.js';
import { Store, resolveStoreDir, spHome, machineId, generateKeys, keysDir, redactionState, type IngestItem, type RedactionRecord } from '../store/index.js';
import type { Redactor } from '../redact/ensure.js';
import { toIso } from '../core/event.js';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import type { SyncReport } from './remote.js';

export interface CommonArgs {
  store?: string;
  quiet: boolean;
  json: boolean;
}

function openWriter(args: CommonArgs): Store {
  return Store.open(resolveStoreDir(args.store));
}

function openReader(args: CommonArgs): Store {
  return Store.open(resolveStoreDir(args.store), { readonly: true });
}

/** A reader for ls and search: a store that does not exist says so (exit 1) instead of listing nothing. */
function openExistingReader(args: CommonArgs): Store {
  const dir = resolveStoreDir(args.store);
  if (!existsSync(join(dir, 'sessions'))) {
    throw new UserError(`no store here (sp-sync ingest creates it, sp archive fills it; --store DIR or SP_HOME names another)`, dir, EXIT_CHECK_FAILED);
  }
  return openReader(args);
}

/** The input's events; a line that is not JSON is reported (file:line) and counted in `bad`, and the rest go on. */
async function* items(files: string[] | undefined, bad: { lines: number }): AsyncGenerator<IngestItem> {
  const onBadLine = (line: BadLine) => {
    bad.lines += 1;
    warn(`${line.source}:${line.line.number}`, `${describeBadLine(line)}; not stored`);
  };
  for await (const { value, line, source } of readObjects(inputsFrom(files), { onBadLine })) yield { event: value, where: `${source}:${line.number}` };
}

/**
 * Passes the items through, copying each `sha256:` artifact an event references from `from` into
 * the store's artifacts/ (hash checked); a blob missing from `from` is a warning, not a failure.
 */
async function* withArtifacts(source: AsyncIterable<IngestItem>, from: string, storeDir: string): AsyncGenerator<IngestItem> {
  const { artifactRefsIn, copyArtifact } = await import('../core/artifacts.js');
  const to = join(storeDir, 'artifacts');
  const done = new Set<string>();
  for await (const item of source) {
    for (const ref of artifactRefsIn(item.event)) {
      if (done.has(ref)) continue;
      done.add(ref);
      const outcome = copyArtifact(from, to, ref.slice('sha256:'.length));
      const whose = `${String(item.event.session)} seq ${String(item.event.seq)}`;
      if (outcome === 'missing') warn(from, `artifact ${ref} referenced by ${whose} is not there`);
      else if (outcome === 'mismatch') warn(from, `artifact ${ref} referenced by ${whose} does not hash to its name; not stored`);
    }
    yield item;
  }
}

/** The machine's redactor (sp-redact's rules and key), loaded only by the commands that use it. */
async function loadRedactor(): Promise<Redactor> {
  const { Redactor } = await import('../redact/ensure.js');
  return Redactor.load();
}

export async function ingestCommand(args: CommonArgs & { files?: string[]; artifacts?: string; redact?: boolean }): Promise<number> {
  // Redaction is on unless --no-redact (lib/ops ingest): the store, and every remote it is pushed to,
  // never holds a secret the rules find; an unredacted ingest is recorded in the manifest.
  const { ingest } = await import('../ops/stages.js');
  const store = openWriter(args);
  const progress = createProgress({ unit: 'events', quiet: args.quiet });
  try {
    // Every good event is stored; a bad line (not JSON, or not an event) makes the exit status 2.
    const bad = { lines: 0 };
    const read = args.artifacts !== undefined ? withArtifacts(items(args.files, bad), args.artifacts, store.dir) : items(args.files, bad);
    const redacted = args.redact !== false;
    const { secrets: found, ...result } = await ingest(store, read, { redact: redacted, onBatch: (n, session) => progress.tick(n, session) });
    progress.done();
    if (args.json) process.stdout.write(JSON.stringify(result) + '\n');
    else if (!args.quiet) {
      const secrets = found > 0 ? `; ${found} secret${found === 1 ? '' : 's'} redacted` : '';
      warn(undefined, `${result.added} new event${result.added === 1 ? '' : 's'} stored, ${result.skipped} already stored, in ${result.sessions.length} session${result.sessions.length === 1 ? '' : 's'} (${store.dir})${secrets}`);
      // The search text goes in after the log (lib/store/search-index.ts): say what the next search adds.
      const unsearched = store.unsearched();
      if (unsearched > 0) warn(undefined, `${unsearched} event${unsearched === 1 ? '' : 's'} to add to the search index: the next sp-sync search does`);
    }
    if (!redacted && result.added > 0 && !args.quiet) {
      warn(undefined, 'stored unredacted (--no-redact): the manifest says so, and sp-sync push refuses these sessions without --allow-unredacted');
    }
    return result.rejected > 0 || bad.lines > 0 ? EXIT_USAGE : EXIT_OK;
  } finally {
    progress.done();
    store.close();
  }
}

/** The terminal tables (lib/term/views.ts) when stdout is a terminal and no --json; undefined: print as before. */
async function tableViews(args: CommonArgs): Promise<typeof import('../term/views.js') | undefined> {
  const { wantsTable } = await import('../term/listing.js');
  return wantsTable({ json: args.json }) ? import('../term/views.js') : undefined;
}

export async function lsCommand(args: CommonArgs & { all: boolean }): Promise<number> {
  const redactor = await loadRedactor();
  const store = openExistingReader(args);
  try {
    // Titles are first prompts: shown redacted, for sessions stored before ingest redacted by default.
    const sessions = store.sessions({ all: args.all }).map((s) => ({ ...s, title: redactor.redactText(s.title), uri: redactor.redactText(s.uri), redaction: redactionState(store.manifest(s.id)) }));
    if (args.json) {
      for (const s of sessions) process.stdout.write(JSON.stringify(s) + '\n');
      return EXIT_OK;
    }
    const views = await tableViews(args);
    if (views) {
      views.printStoredSessions(sessions);
      return EXIT_OK;
    }
    for (const s of sessions) {
      const when = s.last_ts !== null ? toIso(s.last_ts).slice(0, 16).replace('T', ' ') : '-';
      const marks = (s.deleted ? '[deleted] ' : '') + (s.redaction === 'unredacted' ? '[unredacted] ' : '');
      process.stdout.write([s.id, (s.agent ?? '-').padEnd(6), String(s.events).padStart(6), when, (s.owner ?? '-').padEnd(6), marks + (s.title ?? '')].join('  ') + '\n');
    }
    return EXIT_OK;
  } finally {
    store.close();
  }
}

export async function logCommand(args: CommonArgs & { session: string; since?: number; local?: boolean }): Promise<number> {
  const store = openReader(args);
  try {
    const id = store.resolveSession(args.session);
    const out = new NdjsonWriter(process.stdout);
    const { mirroredOrigins } = await import('../store/origins.js');
    if (!args.local && mirroredOrigins(store.dir, id).length > 0) {
      // Other machines wrote to it: the merged view, the same on every machine that holds the same chains.
      const { convergedView } = await import('../store/converge.js');
      for (const event of convergedView(store, id).events) if (event.seq >= (args.since ?? 0)) await out.writeLine(JSON.stringify(event));
    } else for await (const event of store.events(id, { since: args.since })) await out.writeLine(JSON.stringify(event));
    await out.end();
    return EXIT_OK;
  } finally {
    store.close();
  }
}

export async function searchCommand(args: CommonArgs & { text: string; limit: number; session?: string; remote?: string }): Promise<number> {
  // --remote NAME: the team's sessions on a PostgreSQL remote (pgCommands.ts), not this store.
  if (args.remote !== undefined) return (await import('./pgCommands.js')).remoteSearchCommand(args);
  const redactor = await loadRedactor();
  const store = openExistingReader(args);
  try {
    // Snippets and titles are shown redacted (a store from before ingest redacted by default holds secrets).
    const hits = store.search(args.text, { limit: args.limit, session: args.session }).map((h) => ({ ...h, title: redactor.redactText(h.title), snippet: redactor.redactText(h.snippet) }));
    const views = await tableViews(args);
    if (views) views.printSearchHits(hits);
    else for (const h of hits) {
      if (args.json) process.stdout.write(JSON.stringify(h) + '\n');
      else process.stdout.write(`${h.session}  seq ${h.seq}  ${h.type}: ${h.snippet}\n`);
    }
    return hits.length > 0 ? EXIT_OK : EXIT_CHECK_FAILED;
  } finally {
    store.close();
  }
}

export function reindexCommand(args: CommonArgs): number {
  const store = openWriter(args);
  try {
    store.reindex();
    if (!args.quiet) warn(undefined, `index rebuilt from ${store.sessions({ all: true }).length} session logs`);
    return EXIT_OK;
  } finally {
    store.close();
  }
}

export async function keygenCommand(args: CommonArgs & { age?: boolean }): Promise<number> {
  if (args.age) {
    // The age identity for encrypted remotes: made once, then only its public recipient is printed.
    const { ageRecipient, ageIdentityPath } = await import('./sealed.js');
    const recipient = await ageRecipient(spHome());
    if (args.json) process.stdout.write(JSON.stringify({ age_recipient: recipient, identity: ageIdentityPath(spHome()) }) + '\n');
    else process.stdout.write(`${recipient}\n`);
    if (!args.quiet && !args.json) warn(undefined, `age identity in ${ageIdentityPath(spHome())}; add the line above to the recipients file of an encrypted remote (--encrypt-to)`);
    return EXIT_OK;
  }
  const keys = generateKeys(spHome());
  const pub = join(keysDir(spHome()), 'id_ed25519.pub');
  if (args.json) process.stdout.write(JSON.stringify({ key_id: keys.keyId, public_key: pub }) + '\n');
  else process.stdout.write(`${keys.keyId}\n`);
  if (!args.quiet && !args.json) warn(undefined, `key pair written to ${keysDir(spHome())} (share ${pub}; others trust it with: sp-sync trust add FILE --name NAME)`);
  return EXIT_OK;
}

export function rmCommand(args: CommonArgs & { session: string; reason?: string }): number {
  const store = openWriter(args);
  try {
    const id = store.resolveSession(args.session);
    const r = store.remove(id, args.reason);
    if (!args.quiet) warn(id, r.added ? 'tombstone appended (hidden from ls and search; nothing removed)' : 'already deleted');
    return EXIT_OK;
  } finally {
    store.close();
  }
}

export async function forkCommand(args: CommonArgs & { session: string; at: number; reason: string }): Promise<number> {
  const store = openWriter(args);
  try {
    const id = store.resolveSession(args.session);
    const r = await store.fork(id, args.at, args.reason);
    process.stdout.write(args.json ? JSON.stringify({ session: r.session, parent: id, at: args.at, events: r.events }) + '\n' : `${r.session}\n`);
    return EXIT_OK;
  } finally {
    store.close();
  }
}

/** `sp-sync redact SESSION|--all`: redacted successors for sessions stored unredacted. */
export async function redactCommand(args: CommonArgs & { session?: string; all: boolean }): Promise<number> {
  if (args.all === (args.session !== undefined)) throw new UserError('say which: a SESSION, or --all for every session stored unredacted');
  const redactor = await loadRedactor();
  const { redactedSuccessor } = await import('./successor.js');
  const store = openWriter(args);
  try {
    const ids = args.all
      ? store.sessions().filter((s) => redactionState(store.manifest(s.id)) === 'unredacted').map((s) => s.id)
      : [store.resolveSession(args.session!)];
    for (const id of ids) {
      if (!args.all && redactionState(store.manifest(id)) === 'redacted') {
        if (!args.quiet) warn(id, 'stored redacted already; nothing to do');
        continue;
      }
      const r = await redactedSuccessor(store, id, redactor);
      if (args.json) process.stdout.write(JSON.stringify(r) + '\n');
      else process.stdout.write(`${r.original} -> ${r.session}\n`);
      if (!args.quiet) warn(r.original, `redacted successor ${r.session} (${r.events} events, ${r.secrets} secret${r.secrets === 1 ? '' : 's'} replaced); the original is tombstoned here and never pushed`);
    }
    if (ids.length === 0 && !args.quiet) warn(undefined, 'no session is stored unredacted');
    return EXIT_OK;
  } finally {
    store.close();
  }
}

export function requireText(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UserError(`${what} is required (see --help)`);
  return value;
}

// ---- remotes ---------------------------------------------------------------------------------------

/** `--encrypt-to FILE` / `--no-encrypt` as addRemote takes them (the recipients file read and checked). */
async function sealingOf(args: { encryptTo?: string; encrypt?: boolean }): Promise<{ recipients?: string[]; encrypt?: boolean }> {
  if (args.encryptTo === undefined) return { encrypt: args.encrypt };
  const { readRecipientsFile } = await import('./sealed.js');
  return { recipients: await readRecipientsFile(requireText(args.encryptTo, 'a recipients file')), encrypt: args.encrypt };
}

function describeSealing(remote: { recipients?: string[]; encrypt?: boolean }): string {
  if (remote.encrypt === false) return 'not encrypted (--no-encrypt)';
  const n = remote.recipients?.length ?? 0;
  return n > 0 ? `encrypted to ${n} age recipient${n === 1 ? '' : 's'}` : '';
}

/** A remote's URL as printed: a password in a postgres:// URL shows as ***. */
function shownUrl(remote: { kind: string; url: string }): string {
  return remote.kind === 'pg' ? remote.url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@/]*@/i, '$1:***@') : remote.url;
}

export function remoteCommand(args: CommonArgs & { action?: string; name?: string; url?: string; project?: string; dir: boolean; encryptTo?: string; encrypt?: boolean }): Promise<number> | number {
  return import('./remote.js').then(async (r) => {
    const action = args.action ?? 'list';
    if (action === 'init' || action === 'grant') return (await import('./pgCommands.js')).pgRemoteCommand(args, action);
    if (action === 'add') {
      const sealing = await sealingOf(args);
      const store = openWriter(args);
      try {
        const config = r.addRemote(store, requireText(args.name, 'a remote name'), requireText(args.url, 'a URL'), args.dir, sealing);
        const sealed = describeSealing(config);
        if (!args.quiet) warn(config.name, `added (${config.kind}: ${shownUrl(config)}${sealed ? `; ${sealed}` : ''})`);
        return EXIT_OK;
      } finally {
        store.close();
      }
    }
    if (action === 'list' || action === 'ls') {
      const store = openReader(args);
      try {
        for (const remote of r.listRemotes(store)) {
          const sealed = describeSealing(remote);
          process.stdout.write(args.json ? JSON.stringify({ ...remote, url: shownUrl(remote) }) + '\n' : `${remote.name}\t${remote.kind}\t${shownUrl(remote)}${sealed ? `\t${sealed}` : ''}\n`);
        }
        return EXIT_OK;
      } finally {
        store.close();
      }
    }
    throw new UserError(`unknown remote action ${JSON.stringify(action)} (add, list, init, grant)`);
  });
}

/**
 * Prints one line per part of the remote a pull refused (which machine and session, and why; for
 * a signer not trusted yet, its key id and the command that trusts it). Returns how many.
 */
function reportRefusals(remote: string, report: SyncReport): number {
  for (const r of report.refused) {
    const hint = r.signer ? `; nothing taken. To trust it: sp-sync trust add ${r.signer.publicKey} --name ${r.machine ?? 'NAME'}` : '; nothing taken from it';
    warn(`${remote}: ${r.where}`, r.reason + hint);
  }
  return report.refused.length;
}

/**
 * What push may send: refuses (exit 2, naming them) live sessions stored unredacted unless
 * `allowUnredacted`; tombstoned ones (originals `sp-sync redact` replaced) are left out.
 */
function pushableOnly(store: Store, allowUnredacted: boolean): Set<string> | undefined {
  if (allowUnredacted) return undefined;
  const unredacted = store.sessions({ all: true }).filter((s) => redactionState(store.manifest(s.id)) === 'unredacted');
  const live = unredacted.filter((s) => !s.deleted).map((s) => s.id);
  if (live.length > 0) {
    const names = live.slice(0, 5).join(', ') + (live.length > 5 ? ` and ${live.length - 5} more` : '');
    throw new UserError(`refusing to push ${live.length} session${live.length === 1 ? '' : 's'} stored unredacted (${names}): run \`sp-sync redact --all\` first, or send them as they are with --allow-unredacted`, 'push');
  }
  return new Set(unredacted.map((s) => s.id));
}

/** Pulled events are kept as their machine signed them; the manifest records whether these rules find secrets in them. */
function classifier(redactor: Redactor): (events: Array<Record<string, unknown>>) => RedactionRecord {
  return (events) => (events.some((e) => redactor.hasSecrets(e)) ? { state: 'unredacted' } : { state: 'redacted', ruleset: redactor.ruleset, profile: redactor.profile });
}

export async function syncCommand(args: CommonArgs & { name?: string; allowUnredacted?: boolean }, direction: 'push' | 'pull'): Promise<number> {
  const r = await import('./remote.js');
  const redactor = direction === 'pull' ? await loadRedactor() : undefined;
  const store = openWriter(args);
  const progress = createProgress({ unit: 'events', quiet: args.quiet });
  try {
    const remote = r.getRemote(store, args.name);
    if (direction === 'pull') await store.schema(); // pulled events that fail the schema are refused, not stored
    const started = Date.now();
    const skip = direction === 'push' ? pushableOnly(store, args.allowUnredacted === true) : undefined;
    const classify = redactor ? classifier(redactor) : undefined;
    const report = await (direction === 'push' ? r.push : r.pull)(store, remote, { onProgress: (n, s) => progress.tick(n, s), skip, classify });
    progress.done();
    if (args.json) process.stdout.write(JSON.stringify({ ...report, ms: Date.now() - started }) + '\n');
    else if (!args.quiet) warn(remote.name, `${direction === 'push' ? 'pushed' : 'pulled'} ${report.events} event${report.events === 1 ? '' : 's'} in ${report.sessions} session${report.sessions === 1 ? '' : 's'}${report.artifacts > 0 ? `, ${report.artifacts} artifact${report.artifacts === 1 ? '' : 's'}` : ''}${report.forwarded?.folders ? `, forwarded ${report.forwarded.events} events of other machines (${report.forwarded.folders} signed folder${report.forwarded.folders === 1 ? '' : 's'}, unchanged)` : ''}${report.commit ? ` (at ${report.commit.slice(0, 12)})` : ''}`);
    // Refusals are printed even with -q: something was not taken.
    return reportRefusals(remote.name, report) > 0 ? EXIT_CHECK_FAILED : EXIT_OK;
  } finally {
    progress.done();
    store.close();
  }
}

export async function cloneCommand(args: CommonArgs & { url?: string; name?: string; dir: boolean; trustAll?: boolean; encryptTo?: string; encrypt?: boolean }): Promise<number> {
  const r = await import('./remote.js');
  const sealing = await sealingOf(args);
  const store = openWriter(args);
  try {
    const name = args.name ?? 'origin';
    const existing = r.listRemotes(store).find((x) => x.name === name);
    if (args.trustAll && (store.sessions({ all: true }).length > 0 || r.listRemotes(store).length > 0)) {
      throw new UserError('--trust-all is only for a fresh store (no sessions, no remotes): trust signers one by one with `sp-sync trust add`', store.dir);
    }
    const remote = existing ?? r.addRemote(store, name, requireText(args.url, 'a URL'), args.dir, sealing);
    await store.schema();
    const report = await r.pull(store, remote, { trustAll: args.trustAll === true, classify: classifier(await loadRedactor()) });
    for (const t of report.trusted ?? []) warn(name, `trusted ${t.name} ${t.key_id} (--trust-all)`);
    if (args.json) process.stdout.write(JSON.stringify(report) + '\n');
    else if (!args.quiet) warn(name, `cloned ${report.events} events in ${report.sessions} sessions into ${store.dir}`);
    return reportRefusals(name, report) > 0 ? EXIT_CHECK_FAILED : EXIT_OK;
  } finally {
    store.close();
  }
}

/** `sp-sync trust add KEYFILE|KEY --name NAME`, `trust list`, `trust rm NAME|KEYID`. */
export async function trustCommand(args: CommonArgs & { action?: string; key?: string; name?: string }): Promise<number> {
  const t = await import('../store/trust.js');
  const home = spHome();
  const action = args.action ?? 'list';
  if (action === 'add') {
    const raw = t.parsePublicKey(requireText(args.key, 'a public key file or a base64 key'));
    const signer = t.addTrusted(home, raw, requireText(args.name, '--name NAME'));
    if (args.json) process.stdout.write(JSON.stringify(signer) + '\n');
    else if (!args.quiet) warn(signer.name, `trusted ${signer.key_id}`);
    return EXIT_OK;
  }
  if (action === 'list' || action === 'ls') {
    for (const s of t.listTrusted(home)) {
      const added = new Date(s.added_at * 1000).toISOString().slice(0, 19) + 'Z';
      process.stdout.write(args.json ? JSON.stringify(s) + '\n' : `${s.name}\t${s.key_id}\t${added}\n`);
    }
    return EXIT_OK;
  }
  if (action === 'rm' || action === 'remove') {
    const removed = t.removeTrusted(home, requireText(args.key ?? args.name, 'a signer name or key id'));
    if (!args.quiet) warn(removed.name, `no longer trusted (${removed.key_id})`);
    return EXIT_OK;
  }
  throw new UserError(`unknown trust action ${JSON.stringify(action)} (add, list, rm)`);
}

/** `sp-sync ack RECEIPT`: acknowledge a handoff (by receipt id, or a receipt file). */
export async function ackCommand(args: CommonArgs & { receipt: string; note?: string }): Promise<number> {
  const { existsSync, readFileSync } = await import('node:fs');
  const { RECEIPT_ID_PATTERN } = await import('../store/receipts.js');
  const { recordAck } = await import('../store/handoff.js');
  const { parseJsonObject } = await import('../core/json.js');
  const store = openWriter(args);
  try {
    const path = RECEIPT_ID_PATTERN.test(args.receipt) ? join(store.dir, 'receipts', `${args.receipt}.json`) : args.receipt;
    if (!existsSync(path)) throw new UserError(RECEIPT_ID_PATTERN.test(args.receipt) ? 'no such receipt in the store (sp-sync pull first)' : 'no such receipt file', path);
    const receipt = parseJsonObject(readFileSync(path, 'utf8')).value;
    if (!receipt) throw new UserError('not a JSON object', path);
    const r = await recordAck(store, receipt, args.note);
    process.stdout.write(JSON.stringify({ receipt: receipt.receipt_id, session: r.session, seq: r.seq, machine: store.machine }) + '\n');
    if (!args.quiet) warn(undefined, `acknowledged ${String(receipt.receipt_id)} in ${r.session} (seq ${r.seq})`);
    return EXIT_OK;
  } finally {
    store.close();
  }
}

/**
 * `sp-sync status`: one NDJSON row per session (lib/sync/status.ts); exit 1 when any session is out
 * of sync with a remote. `--remotes`: the remotes and their cursors instead.
 */
export async function statusCommand(args: CommonArgs & { remotes?: boolean; session?: string; name?: string }): Promise<number> {
  if (args.remotes) return remotesStatus(args);
  const { sessionStatusRows } = await import('./status.js');
  // A writer: reading a git remote fetches into the store's working clone.
  const store = openWriter(args);
  try {
    const id = args.session ? store.resolveSession(args.session) : undefined;
    const rows = (await sessionStatusRows(store, { remote: args.name })).filter((r) => id === undefined || r.session === id);
    const { wantsTable } = await import('../term/listing.js');
    if (wantsTable({ json: args.json })) (await import('../term/views.js')).printSyncStatus(rows);
    else for (const row of rows) process.stdout.write(JSON.stringify(row) + '\n');
    const out = rows.filter((r) => !r.in_sync).length;
    if (!args.quiet) warn(undefined, out === 0 ? `${rows.length} session${rows.length === 1 ? '' : 's'} in sync` : `${out} of ${rows.length} sessions out of sync`);
    return out === 0 ? EXIT_OK : EXIT_CHECK_FAILED;
  } finally {
    store.close();
  }
}

async function remotesStatus(args: CommonArgs): Promise<number> {
  const r = await import('./remote.js');
  const store = openReader(args);
  try {
    const all = r.status(store);
    if (args.json) {
      for (const s of all) process.stdout.write(JSON.stringify(s) + '\n');
      return EXIT_OK;
    }
    for (const s of all) {
      process.stdout.write(`${s.remote}\t${s.kind}\t${s.url}${s.seen ? `\tat ${s.seen.slice(0, 12)}` : ''}\n`);
      for (const c of s.cursors) {
        const dir = c.machine === store.machine || c.machine === readMachine() ? 'pushed' : `pulled from ${c.machine}`;
        process.stdout.write(`  ${c.session}  ${dir}: seq ${c.seq}${c.local_events !== null ? ` (stored: ${c.local_events})` : ''}\n`);
      }
    }
    return EXIT_OK;
  } finally {
    store.close();
  }
}

function readMachine(): string {
  return machineId(spHome());
}

/** The ingest options without yargs; undefined when something else is given (yargs reports it). */
export async function parseIngestArgs(argv: string[]): Promise<(CommonArgs & { files?: string[]; artifacts?: string; redact?: boolean }) | undefined> {
  const { parseArgs } = await import('node:util');
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { store: { type: 'string' }, artifacts: { type: 'string' }, quiet: { type: 'boolean', short: 'q' }, json: { type: 'boolean' }, 'no-redact': { type: 'boolean' } },
    });
    return { store: values.store, artifacts: values.artifacts, quiet: values.quiet === true, json: values.json === true, redact: values['no-redact'] !== true, files: positionals };
  } catch {
    return undefined;
  }
}
