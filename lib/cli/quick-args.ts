// The plain command lines a script or a hook repeats (`sp-capture AGENT --path F --cursor C`,
// `sp-redact -q`, `sp-verify -q FILE`) parsed without yargs: loading and configuring yargs is most of
// a short run's start-up. The binary's option builder runs once against a recorder that notes each
// option; a command line made only of declared long options, single-letter boolean aliases and
// declared string positionals gets the object yargs would have built. Anything else (--help, an
// unknown or repeated option, --no-x, --x=y, an option with more than a string or boolean type (array,
// choices, number), a value starting with "-", a builder that uses more than .option/.positional/
// .command('$0 …')) returns undefined and yargs parses it, with its own messages. test/quick-args.test.ts checks the two agree on every binary.

interface OptionSpec {
  type: unknown;
  default?: unknown;
  aliases: string[];
  /** Declared with more than a string or boolean type (array, choices, number …): only its default is modelled. */
  opaque: boolean;
}

/** What a binary declares, as far as the quick parser understands it; undefined when it does not. */
interface Declared {
  options: Map<string, OptionSpec>;
  positionals: Array<{ name: string; variadic: boolean }>;
}

const OPTION_KEYS = new Set(['type', 'default', 'describe', 'alias', 'hidden']);
/** Declarations that change the parse even when the option is absent. */
const UNMODELLED_KEYS = ['demandOption', 'coerce', 'implies', 'conflicts', 'default-description', 'normalize', 'config', 'count'];
const POSITIONAL_KEYS = new Set(['type', 'describe', 'array']);

/** The declarations of `build` (a yargs builder), or undefined when it asks for anything this parser does not model. */
function record(base: Array<[string, Record<string, unknown>]>, build: (y: never) => unknown): Declared | undefined {
  const options = new Map<string, OptionSpec>();
  const positionalTypes = new Map<string, Record<string, unknown>>();
  let command: string | undefined;
  let understood = true;
  const addOption = (name: string, config: Record<string, unknown>) => {
    if (UNMODELLED_KEYS.some((k) => k in config)) understood = false;
    const opaque = !Object.keys(config).every((k) => OPTION_KEYS.has(k)) || (config.type !== 'string' && config.type !== 'boolean');
    const alias = config.alias === undefined ? [] : Array.isArray(config.alias) ? config.alias : [config.alias];
    const before = options.get(name);
    options.set(name, { type: config.type, default: 'default' in config ? config.default : before?.default, aliases: [...(before?.aliases ?? []), ...alias.map(String)], opaque: opaque || Boolean(before?.opaque) });
  };
  for (const [name, config] of base) addOption(name, config);
  const recorder: Record<string, unknown> = new Proxy(
    {},
    {
      get: (_target, method) => (...args: unknown[]) => {
        if (method === 'option' && typeof args[0] === 'string' && args[1] && typeof args[1] === 'object') addOption(args[0], args[1] as Record<string, unknown>);
        else if (method === 'positional' && typeof args[0] === 'string' && args[1] && typeof args[1] === 'object') positionalTypes.set(args[0], args[1] as Record<string, unknown>);
        else if (method === 'command' && command === undefined && typeof args[0] === 'string' && args[0].startsWith('$0') && args[1] === false && args.length === 2) command = args[0];
        else understood = false;
        return recorder;
      },
    },
  );
  try {
    build(recorder as never);
  } catch {
    return undefined;
  }
  if (!understood) return undefined;
  const positionals: Declared['positionals'] = [];
  for (const word of (command ?? '$0').split(/\s+/).slice(1)) {
    // Only optional positionals: a required one missing is yargs' message to give.
    const m = /^\[([a-z][a-z0-9-]*)(\.\.)?\]$/i.exec(word);
    if (!m) return undefined;
    const config = positionalTypes.get(m[1]) ?? {};
    const variadic = m[2] !== undefined;
    if (!Object.keys(config).every((k) => POSITIONAL_KEYS.has(k)) || config.type !== 'string' || Boolean(config.array) !== variadic) return undefined;
    positionals.push({ name: m[1], variadic });
  }
  if (positionals.slice(0, -1).some((p) => p.variadic)) return undefined;
  return { options, positionals };
}

const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Sets `name` and the spellings yargs adds for it (camelCase, aliases) to `value`. */
function put(args: Record<string, unknown>, name: string, spec: OptionSpec, value: unknown): void {
  for (const key of [name, camel(name), ...spec.aliases]) args[key] = value;
}

/**
 * The arguments object yargs would give the binary for `argv`, or undefined when `argv` is more than
 * plain long options, boolean aliases and string positionals (yargs parses it then).
 */
export function quickParse<A>(scriptName: string, base: Array<[string, Record<string, unknown>]>, build: (y: never) => unknown, argv: string[]): A | undefined {
  const declared = record(base, build);
  if (!declared) return undefined;
  const byAlias = new Map<string, string>();
  for (const [name, spec] of declared.options) for (const alias of spec.aliases) if (alias.length === 1) byAlias.set(alias, name);
  const given = new Map<string, unknown>();
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    let name: string | undefined;
    if (/^--[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(token)) name = token.slice(2);
    else if (/^-[a-zA-Z]$/.test(token)) name = byAlias.get(token.slice(1));
    else if (!token.startsWith('-')) {
      words.push(token);
      continue;
    } else return undefined;
    const spec = name === undefined || name.startsWith('no-') ? undefined : declared.options.get(name);
    if (name === undefined || !spec || spec.opaque || given.has(name)) return undefined;
    if (token.length === 2 && spec.type !== 'boolean') return undefined;
    if (spec.type === 'boolean') {
      // yargs reads `--flag true` / `--flag false` as the flag's value.
      if (argv[i + 1] === 'true' || argv[i + 1] === 'false') return undefined;
      given.set(name, true);
    } else {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('-')) return undefined;
      given.set(name, value);
      i += 1;
    }
  }
  const args: Record<string, unknown> = { _: [] };
  for (const [name, spec] of declared.options) {
    if (given.has(name)) put(args, name, spec, given.get(name));
    else if (spec.default !== undefined) put(args, name, spec, spec.default);
  }
  let next = 0;
  for (const positional of declared.positionals) {
    // yargs leaves an absent positional out, a variadic one too.
    if (positional.variadic) {
      if (next < words.length) args[positional.name] = words.slice(next);
      next = words.length;
    } else if (next < words.length) args[positional.name] = words[next++];
  }
  if (next < words.length) return undefined;
  args.$0 = scriptName;
  return args as A;
}
