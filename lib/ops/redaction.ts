// sp-redact's stream as an operation: which profile and rules apply, and one pass over NDJSON
// inputs in any of its modes (redact, check, dry-run, restore) with the key, the closing
// sp.redacted marker and the vault set up as the mode needs them. sp-redact is a thin wrapper over
// these; the event-level `redact` (stages.ts) uses the same rules and key through lib/redact/ensure.ts.
import { existsSync } from 'node:fs';
import { UserError } from '../cli/diagnostics.js';
import type { Writable } from 'node:stream';
import type { Input } from '../core/ndjson.js';
import { PROFILES, loadConfig, type Profile, type RedactConfig } from '../redact/config.js';
import { Redactor } from '../redact/ensure.js';
import { DEFAULT_REDACT_KEY, Placeholders, loadRedactKey } from '../redact/keys.js';
import { runRedact, type FindingDetail, type KeptDetail, type Location, type Mode, type Report } from '../redact/stream.js';

export interface RedactionChoice {
  /** The public profile (paths, hosts, emails too). */
  public?: boolean;
  profile?: string;
  /** Extra rule files (repeatable). */
  rules?: string | string[];
}

/**
 * The profile and rules a redaction runs with: the flags, else the profile of sp config
 * (SP_REDACT_PROFILE, .sp.toml, $SP_HOME/config.toml), else default. A bad value is a UserError.
 */
export async function redactionConfig(choice: RedactionChoice): Promise<{ profile: Profile; config: RedactConfig }> {
  if (choice.profile !== undefined && !(PROFILES as readonly string[]).includes(choice.profile)) throw new UserError(`--profile must be ${PROFILES.join(' or ')}, not "${choice.profile}"`);
  if (choice.public && choice.profile === 'default') throw new UserError('--public and --profile default cannot be combined');
  const configured = choice.public || choice.profile !== undefined ? undefined : (await import('../cli/config.js')).pick<string>('redact.profile', undefined);
  if (configured !== undefined && !(PROFILES as readonly string[]).includes(configured)) throw new UserError(`redact.profile must be ${PROFILES.join(' or ')}, not "${configured}"`, 'config');
  const profile: Profile = choice.public ? 'public' : ((choice.profile ?? configured) as Profile | undefined) ?? 'default';
  // Repeated --rules give an array (an array option would swallow the FILE arguments after it).
  return { profile, config: loadConfig(choice.rules === undefined ? [] : ([] as string[]).concat(choice.rules), profile) };
}

export interface RedactStreamOptions {
  mode: Mode;
  config: RedactConfig;
  profile: Profile;
  /** The HMAC key file (default $SP_HOME/keys/redact.key; created on first use by redact). */
  keyPath?: string;
  /** The age vault: written by redact, read by restore. */
  vault?: string;
  identity?: string;
  /** dry-run: show the placeholders a redaction would write when the key exists already (--review). */
  placeholdersIfKeyExists?: boolean;
  onFinding?: (location: Location, detail: FindingDetail) => void;
  onKept?: (location: Location, detail: KeptDetail) => void;
  /** Where the events go (default stdout). */
  out?: Writable;
}

/**
 * One pass of sp-redact over the inputs, events to stdout (redact, restore). Check and dry-run
 * write no events and need no key: placeholders are never shown unless asked for with an existing key.
 */
export async function redactStream(inputs: Input[], options: RedactStreamOptions): Promise<Report> {
  const { mode } = options;
  if (mode === 'restore' && !options.vault) throw new UserError('--restore needs --vault FILE');
  if (mode === 'restore' && !existsSync(options.vault!)) throw new UserError('no such vault', options.vault);
  if (options.vault && (mode === 'check' || mode === 'dry-run')) throw new UserError(`--vault is not written with --${mode}`);
  const wantsKey = mode === 'redact' || (options.placeholdersIfKeyExists === true && existsSync(options.keyPath ?? DEFAULT_REDACT_KEY()));
  const key = wantsKey ? await loadRedactKey(options.keyPath) : undefined;
  const placeholders = key ? new Placeholders(key) : undefined;
  // Each session written ends with an sp.redacted marker (see lib/redact/ensure.ts).
  const marker = key && mode === 'redact' ? new Redactor(options.config, key, options.profile).markerPayload() : undefined;
  const vault = options.vault ? await (await import('../redact/vault.js')).Vault.open(options.vault, options.identity) : undefined;
  const report = await runRedact({ mode, inputs, config: options.config, placeholders, vault, marker, onFinding: options.onFinding, onKept: options.onKept, out: options.out });
  if (vault && mode === 'redact' && vault.changed) await vault.save();
  return report;
}
