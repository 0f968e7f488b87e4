#!/usr/bin/env node
// sp-redact: secrets out of canonical event streams, structure intact, chain re-made; reversible
// for the owner with an encrypted vault.
import { existsSync } from 'node:fs';
import { replaceFileAtomic } from '../lib/atomic.js';
import { runCli } from '../lib/cli.js';
import { inputsFrom } from '../lib/ndjson.js';
import { EXIT_CHECK_FAILED, EXIT_OK, UserError, warn } from '../lib/diagnostics.js';
import { loadConfig } from '../lib/redact/config.js';
import { DEFAULT_REDACT_KEY, DEFAULT_VAULT_IDENTITY, Placeholders, loadRedactKey } from '../lib/redact/keys.js';
import { runRedact, summarize, type Mode } from '../lib/redact/stream.js';
import { Redactor } from '../lib/redact/ensure.js';

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
}

await runCli<Args>({
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
      .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'no summary on stderr' })
      .command('$0 [files..]', false) as never,
  run: async (args) => {
    // Repeated --rules give an array (an array option would swallow the FILE arguments after it).
    const config = loadConfig(args.rules === undefined ? [] : ([] as string[]).concat(args.rules));
    if (args.listRules) {
      for (const r of config.rules) process.stdout.write(`${r.id}\t${r.keywords.join(',') || '(always)'}\t${r.description}${r.source ? ` [${r.source}]` : ''}\n`);
      return EXIT_OK;
    }
    const modes = (['check', 'dry-run', 'restore'] as const).filter((m) => (m === 'dry-run' ? args.dryRun : args[m]));
    if (modes.length > 1) throw new UserError(`--${modes[0]} and --${modes[1]} cannot be combined`);
    const mode = (modes[0] as Mode | undefined) ?? 'redact';
    if (mode === 'restore' && !args.vault) throw new UserError('--restore needs --vault FILE');
    if (mode === 'restore' && !existsSync(args.vault!)) throw new UserError('no such vault', args.vault);
    if (args.vault && (mode === 'check' || mode === 'dry-run')) throw new UserError(`--vault is not written with --${mode}`);
    const inputs = inputsFrom(args.files);
    if (mode === 'check') {
      // `sp-redact --check | head`: a closed pipe ends the listing; there were findings, so exit 1.
      process.stdout.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EPIPE') process.exit(EXIT_CHECK_FAILED);
        throw err;
      });
    }
    // Check and dry-run write nothing, so they need no key: placeholders are never shown.
    const key = mode === 'redact' ? await loadRedactKey(args.key) : undefined;
    const placeholders = key ? new Placeholders(key) : undefined;
    // Each session written ends with an sp.redacted marker (see lib/redact/ensure.ts).
    const marker = key ? new Redactor(config, key).markerPayload() : undefined;
    const vault = args.vault ? await (await import('../lib/redact/vault.js')).Vault.open(args.vault, args.identity) : undefined;
    const report = await runRedact({
      mode,
      inputs,
      config,
      placeholders,
      vault,
      marker,
      onFinding:
        mode === 'check'
          ? (l) => process.stdout.write(`${l.source}:${l.line}: seq ${l.seq ?? '?'}: ${l.path}: ${l.rule}\n`)
          : undefined,
    });
    if (vault && mode === 'redact' && vault.changed) await vault.save();
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
    if (!args.quiet) warn(undefined, summarize(report));
    return mode === 'check' && report.findings > 0 ? EXIT_CHECK_FAILED : EXIT_OK;
  },
});
