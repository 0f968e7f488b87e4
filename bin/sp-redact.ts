#!/usr/bin/env node
// sp-redact: secrets out of canonical event streams, structure intact, chain re-made; reversible
// for the owner with an encrypted vault.
import { replaceFileAtomic } from '../lib/fs/atomic.js';
import { isMainModule, runCli, type CliSpec, type StageIo } from '../lib/cli/cli.js';
import { EXIT_CHECK_FAILED, EXIT_OK, UserError, warn } from '../lib/cli/diagnostics.js';
import { redactStream, redactionConfig } from '../lib/ops/redaction.js';
import { PROFILES, type Profile, type RedactConfig } from '../lib/redact/config.js';
import { DEFAULT_REDACT_KEY, DEFAULT_VAULT_IDENTITY } from '../lib/redact/keys.js';
import { summarize, type FindingDetail, type KeptDetail, type Location, type Mode } from '../lib/redact/stream.js';

interface Args {
  files?: string[];
  check: boolean;
  dryRun: boolean;
  restore: boolean;
  vault?: string;
  key?: string;
  identity?: string;
  rules?: string | string[];
  report?: string;
  listRules: boolean;
  quiet: boolean;
  public: boolean;
  profile?: string;
  review: boolean;
  json: boolean;
}

export const spec: CliSpec<Args> = {
  name: 'sp-redact',
  summary:
    'Removes secrets from canonical event streams: message and thinking text, tool arguments (inside JSON strings too), tool ' +
    'results, command output, diffs, meta records and --raw native lines. Structural fields (ids, seq, signatures, ' +
    'encrypted reasoning, image data, hashes) are never touched, and the output is re-chained, so it still verifies and ' +
    'materializes. Each secret becomes [REDACTED:<rule>:<8 hex of HMAC(key, secret)>]: the same secret gets the same ' +
    'placeholder on this machine, and the placeholder tells nothing about it. With --vault the secrets are kept, ' +
    'encrypted with age, so that --restore can put them back. Each session written ends with a chained meta event ' +
    '{"key":"sp.redacted","ruleset","key_id","profile"} (key_id is a hash of the key); a second run gives the same bytes. ' +
    'sp-sync ingest, sp-materialize and sp-compile redact on their own too (--no-redact to keep secrets).',
  usage: '[FILE..] [options]',
  examples: [
    ['sp-capture claude --latest | sp-redact | sp-compile --for codex', 'clean a session before it leaves the machine'],
    ['sp-redact --vault s.vault < s.ndjson > clean.ndjson', 'redact, keeping the secrets in an encrypted vault'],
    ['sp-redact --restore --vault s.vault < clean.ndjson > s.ndjson', 'put the secrets back (byte for byte)'],
    ['sp-redact --check session.ndjson', 'CI / pre-commit: list findings, exit 1 if there are any'],
    ['sp-redact --dry-run --report r.json < s.ndjson', 'what would be redacted, as JSON, without writing events'],
    ['sp-redact --rules my-rules.json', 'add rules, disable some, allowlist values, regexes and field paths'],
    ['sp-redact --public < s.ndjson > share.ndjson', 'also remove home paths, user and host names, e-mails, IPs, git owners'],
    ['sp-redact --review session.ndjson', 'per session: what would be redacted, and suspicious strings kept'],
    ['sp-redact --list-rules', 'the rule set: id, keywords, description'],
  ],
  epilogue:
    `Keys: the HMAC key is ${'$'}SP_HOME/keys/redact.key (SP_HOME defaults to ~/.sp), the vault identity ` +
    `${'$'}SP_HOME/keys/redact-vault.key (an age X25519 identity; \`age -d -i\` opens a vault too); both are created 0600 on ` +
    'first use. A --rules file is JSON: {"rules":[{"id","description","regex","keywords","flags","group","entropy"}], ' +
    '"disable":["rule-id"], "allowlist":{"values":[],"regexes":[],"paths":["payload.input.command","origin.raw[*]#/message/**"]}}.',
  options: (y) =>
    y
      .positional('files', { type: 'string', array: true, describe: 'event streams (NDJSON); none or - = stdin' })
      .option('check', { type: 'boolean', default: false, describe: 'redact nothing and write no events: list findings (seq, field path, rule) on stdout, exit 1 if any' })
      .option('dry-run', { type: 'boolean', default: false, describe: 'write no events, no key and no vault: only the summary (and --report)' })
      .option('restore', { type: 'boolean', default: false, describe: 'put secrets back from --vault (placeholders not in it stay)' })
      .option('vault', { type: 'string', describe: 'encrypted vault file: placeholder → secret (created or extended when redacting; read by --restore)' })
      .option('key', { type: 'string', describe: `HMAC key file (default ${DEFAULT_REDACT_KEY()})` })
      .option('identity', { type: 'string', describe: `age identity file for the vault (default ${DEFAULT_VAULT_IDENTITY()})` })
      .option('rules', { type: 'string', describe: 'JSON file of user rules, disabled rules and allowlists (repeatable)' })
      .option('report', { type: 'string', describe: 'write a JSON report: counts per rule, events touched, where (never the secrets)' })
      .option('list-rules', { type: 'boolean', default: false, describe: 'print the rules in force and exit' })
      .option('quiet', { type: 'boolean', default: false, describe: 'no summary on stderr' })
      .option('public', { type: 'boolean', default: false, describe: 'the public profile: also home paths (→ ~), user and host names, e-mail and IP addresses, git remote owners' })
      .option('profile', { type: 'string', describe: `rule profile: ${PROFILES.join(' or ')} (--public = --profile public)` })
      .option('review', { type: 'boolean', default: false, describe: 'write no events: per session, a table of what would be redacted (rule, field path, placeholder) and of suspicious strings kept, values shown only by a prefix of at most 4 characters; with --check, exit 1 if anything would be redacted' })
      .option('json', { type: 'boolean', default: false, describe: 'JSON lines for the listings: --review rows, --check findings, --list-rules rules, --dry-run its report (redacting already writes NDJSON events)' })
      .command('$0 [files..]', false) as never,
  run: async (args, io) => {
    // No flag: the profile of sp config (SP_REDACT_PROFILE, .sp.toml, $SP_HOME/config.toml), else default.
    const { profile, config } = await redactionConfig(args);
    if (args.listRules) {
      if (args.json) {
        for (const r of config.rules) io.stdout.write(JSON.stringify({ id: r.id, keywords: r.keywords, description: r.description, source: r.source ?? null }) + '\n');
        return EXIT_OK;
      }
      for (const r of config.rules) io.stdout.write(`${r.id}\t${r.keywords.join(',') || (r.prefilter ? `(own prefilter${r.maxLength ? `, texts ≤ ${r.maxLength} characters` : ''})` : '(always)')}\t${r.description}${r.source ? ` [${r.source}]` : ''}\n`);
      return EXIT_OK;
    }
    if (args.review) {
      if (args.restore || args.dryRun || args.vault) throw new UserError(`--review cannot be combined with --${args.restore ? 'restore' : args.dryRun ? 'dry-run' : 'vault'}`);
      return review(args, config, profile, io);
    }
    const modes = (['check', 'dry-run', 'restore'] as const).filter((m) => (m === 'dry-run' ? args.dryRun : args[m]));
    if (modes.length > 1) throw new UserError(`--${modes[0]} and --${modes[1]} cannot be combined`);
    const mode = (modes[0] as Mode | undefined) ?? 'redact';
    if (mode === 'check') {
      // `sp-redact --check | head`: a closed pipe ends the listing; there were findings, so exit 1.
      io.stdout.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EPIPE') process.exit(EXIT_CHECK_FAILED);
        throw err;
      });
    }
    const report = await redactStream(io.inputs(args.files), {
      out: io.stdout,
      mode,
      config,
      profile,
      keyPath: args.key,
      vault: args.vault,
      identity: args.identity,
      onFinding:
        mode === 'check'
          ? (l) => io.stdout.write(args.json ? JSON.stringify({ source: l.source, line: l.line, seq: l.seq ?? null, session: l.session ?? null, path: l.path, rule: l.rule }) + '\n' : `${l.source}:${l.line}: seq ${l.seq ?? '?'}: ${l.path}: ${l.rule}\n`)
          : undefined,
    });
    if (report.collisions) {
      warn(args.vault, `${report.collisions} placeholder(s) stand for two different secrets (8 hex digits collided); --restore puts back the first one`);
    }
    for (const u of report.unverified ?? []) {
      warn(`seq ${u.seq ?? '?'}`, `session ${u.session}: the input's checksum does not verify here, and the output had to be re-chained from here on, which hides it: run sp-verify on the input`);
    }
    if (args.report) {
      try {
        replaceFileAtomic(args.report, JSON.stringify(report, null, 2) + '\n', 0o644); // whole or not at all
      } catch (err) {
        throw new UserError(`cannot write report: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, args.report);
      }
    }
    // --dry-run writes nothing on stdout; with --json its report (counts and where, never a secret) is the line.
    if (args.json && mode === 'dry-run') io.stdout.write(JSON.stringify(report) + '\n');
    if (!args.quiet) warn(undefined, summarize(report));
    return mode === 'check' && report.findings > 0 ? EXIT_CHECK_FAILED : EXIT_OK;
  },
};

if (isMainModule(import.meta.url)) await runCli(spec);

/**
 * --review: nothing is written but stdout (no events, no key, no vault). Placeholders are shown
 * when the HMAC key exists already (they are then the ones a redaction would write).
 */
async function review(args: Args, config: RedactConfig, profile: Profile, io: StageIo): Promise<number> {
  type Row = { kind: 'redact'; location: Location; detail: FindingDetail } | { kind: 'kept'; location: Location; detail: KeptDetail };
  const sessions = new Map<string, Row[]>();
  const add = (row: Row) => {
    if (args.json) {
      const { location: l } = row;
      const common = { kind: row.kind, session: l.session, seq: l.seq, source: l.source, line: l.line, path: l.path, rule: l.rule, value: row.detail.prefix };
      io.stdout.write(JSON.stringify(row.kind === 'redact' ? { ...common, placeholder: row.detail.placeholder ?? null } : { ...common, entropy: Number(row.detail.entropy.toFixed(2)) }) + '\n');
      return;
    }
    let rows = sessions.get(row.location.session);
    if (!rows) sessions.set(row.location.session, (rows = []));
    rows.push(row);
  };
  io.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT_OK);
    throw err;
  });
  const report = await redactStream(io.inputs(args.files), {
    mode: 'dry-run',
    config,
    profile,
    keyPath: args.key,
    placeholdersIfKeyExists: true,
    onFinding: (location, detail) => add({ kind: 'redact', location, detail }),
    onKept: (location, detail) => add({ kind: 'kept', location, detail }),
  });
  if (!args.json) {
    for (const [session, rows] of sessions) {
      io.stdout.write(`session ${session}\n`);
      const redacted = rows.filter((r) => r.kind === 'redact');
      const kept = rows.filter((r) => r.kind === 'kept');
      if (redacted.length > 0) {
        io.stdout.write(table(['would redact', 'seq', 'field path', 'rule', 'placeholder', 'value'], redacted.map((r) => ['', String(r.location.seq ?? '?'), r.location.path, r.location.rule, (r.detail as FindingDetail).placeholder ?? `[REDACTED:${r.location.rule}:(no key yet)]`, r.detail.prefix])));
      }
      if (kept.length > 0) {
        io.stdout.write(table(['kept (below the entropy threshold)', 'seq', 'field path', 'rule', 'entropy', 'value'], kept.map((r) => ['', String(r.location.seq ?? '?'), r.location.path, r.location.rule, (r.detail as KeptDetail).entropy.toFixed(2), r.detail.prefix])));
      }
    }
    if (sessions.size === 0) io.stdout.write('nothing to redact, nothing suspicious\n');
  }
  if (!args.quiet) warn(undefined, summarize(report));
  return args.check && report.findings > 0 ? EXIT_CHECK_FAILED : EXIT_OK;
}

/** Columns padded to their widest cell, the first column a heading over indented rows. */
function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(i === 0 ? 0 : h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => '  ' + cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd() + '\n';
  return `  ${head[0]}\n` + line(['', ...head.slice(1)]) + rows.map(line).join('');
}
