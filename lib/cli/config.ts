// sp's defaults from files: $SP_HOME/config.toml (the user's) and .sp.toml (a project's, found
// upward from the working directory, stopping at the git root or the home folder). Precedence:
// flags > environment (SP_<KEY>, e.g. SP_COMPILE_BUDGET) > project file > user file > built-in
// defaults; `sp config list --origin` shows where each value came from.
//
// The files are data: only the keys below are read, each checked for its type; an unknown key is
// a warning (with the nearest known key), a wrong type an error naming the file and the key.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { replaceFileAtomic } from '../fs/atomic.js';
import { UserError, warn } from './diagnostics.js';
import { makePrivateDir } from '../fs/private.js';
import { spHome } from '../store/paths.js';
import { didYouMean } from './suggest.js';

type Toml = typeof import('smol-toml');
let toml: Toml | undefined;
/** The TOML parser, loaded (its single-file build, synchronously) only when a config file exists: most runs have none. */
const tomlParser = (): Toml => (toml ??= createRequire(import.meta.url)('smol-toml') as Toml);

export type ConfigValue = string | number;

interface KeySpec {
  type: 'string' | 'integer';
  describe: string;
  /** Checks a value beyond its type; returns what is wrong, or undefined. */
  check?: (value: ConfigValue) => string | undefined;
  default?: ConfigValue;
  /** Only the user's own file (and env) may set it: a project file comes with a clone of someone's repository. */
  userOnly?: boolean;
}

const positive = (v: ConfigValue) => (typeof v === 'number' && v > 0 ? undefined : 'must be a positive whole number');
const port = (v: ConfigValue) => (typeof v === 'number' && v >= 1 && v <= 65535 ? undefined : 'must be a port number (1–65535)');
const agentName = (v: ConfigValue) => (typeof v === 'string' && /^[a-z][a-z0-9-]{0,31}$/.test(v) ? undefined : 'must be an agent name');
const name = (v: ConfigValue) => (typeof v === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(v) ? undefined : 'must be a name (letters, digits, . _ -)');

/** Keys for every agent: `agents.<agent>.<field>`. */
const AGENT_FIELDS: Record<string, KeySpec> = {
  home: { type: 'string', describe: "the agent's home folder (its own environment variable still wins; user file only)", userOnly: true },
  budget: { type: 'integer', describe: 'the token budget of a handoff compiled for this agent', check: positive },
};

const KEYS: Record<string, KeySpec> = {
  'compile.budget': { type: 'integer', describe: 'the token budget of a compiled handoff, for any target', check: positive },
  'compile.target': { type: 'string', describe: 'the agent sp-compile compiles for when --for is not given', check: agentName },
  'redact.profile': { type: 'string', describe: "sp-redact's rule profile", check: name, default: 'default' },
  'sync.remote': { type: 'string', describe: 'the remote sp-sync push and pull use when none is named', check: name },
  'serve.port': { type: 'integer', describe: 'the port sp serve listens on', check: port },
};

export interface Resolved {
  value: ConfigValue;
  /** `flag`, `env SP_…`, `project /path/.sp.toml`, `user /path/config.toml` or `default`. */
  origin: string;
}

/** The key's spec, for fixed keys and for agents.<agent>.<field>. */
function specOf(key: string): KeySpec | undefined {
  if (Object.prototype.hasOwnProperty.call(KEYS, key)) return KEYS[key];
  const m = /^agents\.([a-z][a-z0-9-]{0,31})\.([a-z]+)$/.exec(key);
  return m && Object.prototype.hasOwnProperty.call(AGENT_FIELDS, m[2]) ? AGENT_FIELDS[m[2]] : undefined;
}

/** Every key a file may hold, for suggestions and `sp config list`. */
export function knownKeys(agents: readonly string[] = []): string[] {
  return [...Object.keys(KEYS), ...agents.flatMap((a) => Object.keys(AGENT_FIELDS).map((f) => `agents.${a}.${f}`))];
}

export function describeKey(key: string): string | undefined {
  return specOf(key)?.describe;
}

/** SP_COMPILE_BUDGET for compile.budget, SP_AGENTS_CODEX_BUDGET for agents.codex.budget. */
export function envName(key: string): string {
  return `SP_${key.toUpperCase().replace(/[.-]/g, '_')}`;
}

export const userConfigPath = (): string => join(spHome(), 'config.toml');

/** The nearest .sp.toml from `cwd` upward, stopping after the git root or at the home folder. */
export function projectConfigPath(cwd = process.cwd()): string | undefined {
  const home = resolve(homedir());
  let dir = resolve(cwd);
  for (let depth = 0; depth < 64; depth++) {
    const candidate = join(dir, '.sp.toml');
    if (existsSync(candidate)) return candidate;
    if (dir === home || existsSync(join(dir, '.git'))) return undefined;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
  return undefined;
}

/** A value of the right type for `key`, from a file or from text (env, `sp config set`). */
function coerce(key: string, raw: unknown, where: string): ConfigValue {
  const spec = specOf(key)!;
  let value: unknown = raw;
  if (spec.type === 'integer' && typeof raw === 'string' && /^\d+$/.test(raw.trim())) value = Number(raw.trim());
  if (typeof raw === 'bigint') value = Number(raw);
  const typed = spec.type === 'integer' ? typeof value === 'number' && Number.isSafeInteger(value) : typeof value === 'string';
  if (!typed) throw new UserError(`${key} must be ${spec.type === 'integer' ? 'a whole number' : 'a string'} (got ${JSON.stringify(String(raw)).slice(0, 60)})`, where);
  const problem = spec.check?.(value as ConfigValue);
  if (problem) throw new UserError(`${key} ${problem} (got ${JSON.stringify(value).slice(0, 60)})`, where);
  return value as ConfigValue;
}

/** The dotted keys of a parsed TOML document, with their values; tables are walked, arrays are values. */
function flatten(doc: Record<string, unknown>, prefix = ''): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(doc)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date)) out.push(...flatten(v as Record<string, unknown>, key));
    else out.push([key, v]);
  }
  return out;
}

function readToml(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, path);
  }
  try {
    return tomlParser().parse(text) as Record<string, unknown>;
  } catch (err) {
    const e = err as { line?: number; message: string };
    throw new UserError(`not valid TOML: ${e.message.split('\n')[0]}`, e.line ? `${path}:${e.line}` : path);
  }
}

/** The known keys of a file; unknown ones are warned about (once per run) with the nearest known key. */
function readConfigFile(path: string, agents: readonly string[], onWarning: (where: string, what: string) => void, project = false): Map<string, ConfigValue> {
  const values = new Map<string, ConfigValue>();
  for (const [key, raw] of flatten(readToml(path))) {
    if (!specOf(key)) {
      onWarning(path, `unknown key ${key}, ignored${didYouMean(key, knownKeys(agents))}`);
      continue;
    }
    if (project && specOf(key)!.userOnly) {
      // Where sp reads and writes agents' sessions is the user's choice, not a repository's.
      onWarning(path, `${key} is read from the user's file only (${userConfigPath()}), ignored here`);
      continue;
    }
    values.set(key, coerce(key, raw, path));
  }
  return values;
}

export interface ConfigOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Registered agent names, for suggestions and agents.<agent> keys in listings. */
  agents?: readonly string[];
  onWarning?: (where: string, what: string) => void;
}

/** Every key that has a value, with where it came from (flags are applied by the caller: see `pick`). */
export function resolveConfig(options: ConfigOptions = {}): Map<string, Resolved> {
  const env = options.env ?? process.env;
  const agents = options.agents ?? [];
  const onWarning = options.onWarning ?? warn;
  const out = new Map<string, Resolved>();
  for (const [key, spec] of Object.entries(KEYS)) if (spec.default !== undefined) out.set(key, { value: spec.default, origin: 'default' });
  const user = userConfigPath();
  if (existsSync(user)) for (const [k, v] of readConfigFile(user, agents, onWarning)) out.set(k, { value: v, origin: `user ${user}` });
  const project = projectConfigPath(options.cwd);
  if (project && resolve(project) !== resolve(user)) for (const [k, v] of readConfigFile(project, agents, onWarning, true)) out.set(k, { value: v, origin: `project ${project}` });
  for (const key of [...knownKeys(agents), ...out.keys()]) {
    const name = envName(key);
    const raw = env[name];
    if (raw !== undefined && raw !== '') out.set(key, { value: coerce(key, raw, name), origin: `env ${name}` });
  }
  return out;
}

/** One key's value: the flag when given, else the configured one (env, project, user, default). */
export function pick<T extends ConfigValue>(key: string, flag: T | undefined, options?: ConfigOptions): T | undefined {
  if (flag !== undefined) return flag;
  return resolveConfig(options).get(key)?.value as T | undefined;
}

/**
 * Sets (or with `value` undefined, removes) a key in a config file, written whole and atomically,
 * owner-only. The value is checked first; nothing is written for a bad one.
 */
export function setConfigValue(path: string, key: string, value: string | undefined, agents: readonly string[] = [], project = false): ConfigValue | undefined {
  if (!specOf(key)) throw new UserError(`unknown key ${key}${didYouMean(key, knownKeys(agents))}; sp config list shows the keys`);
  if (project && specOf(key)!.userOnly) throw new UserError(`${key} belongs in the user's file (${userConfigPath()}), not a project's`);
  const doc = existsSync(path) ? readToml(path) : {};
  const parts = key.split('.');
  let table = doc;
  for (const part of parts.slice(0, -1)) {
    const next = table[part];
    if (next === undefined) table[part] = {};
    else if (typeof next !== 'object' || next === null || Array.isArray(next)) throw new UserError(`${parts.slice(0, parts.indexOf(part) + 1).join('.')} is not a table`, path);
    table = table[part] as Record<string, unknown>;
  }
  const leaf = parts[parts.length - 1];
  const typed = value === undefined ? undefined : coerce(key, value, 'value');
  if (typed === undefined) delete table[leaf];
  else table[leaf] = typed;
  if (path.startsWith(spHome())) makePrivateDir(dirname(path));
  replaceFileAtomic(path, tomlParser().stringify(doc) + '\n', 0o600);
  return typed;
}

/** An agent's home from the config files, unless its own environment variable (which wins) is set. */
export function configuredHome(agent: string, homeEnv: string, options?: ConfigOptions): string | undefined {
  const env = options?.env ?? process.env;
  if (env[homeEnv] !== undefined && env[homeEnv] !== '') return undefined;
  const home = pick<string>(`agents.${agent}.home`, undefined, options);
  return home === undefined ? undefined : resolve(home.startsWith('~/') ? join(homedir(), home.slice(2)) : home);
}
