// User rules and allowlists from `--rules FILE` (JSON):
//
//   {
//     "rules": [{ "id": "acme-token", "description": "ACME deploy token", "regex": "acme_[a-z0-9]{32}",
//                 "keywords": ["acme_"], "flags": "i", "group": 1, "entropy": 3.0 }],
//     "disable": ["high-entropy-secret"],
//     "allowlist": { "values": ["AKIAIOSFODNN7EXAMPLE"], "regexes": ["^sk_test_"],
//                    "paths": ["payload.input.command", "origin.raw[*]#/message/usage/**"] }
//   }
//
// A user rule with the id of a built-in one replaces it.
import { readFileSync } from 'node:fs';
import { UserError } from '../cli/diagnostics.js';
import { BUILTIN_RULES, RULE_ID, patternRule, type Rule } from './rules.js';
import { entropy } from './values.js';
import { profileRules, type Profile } from './public.js';

export type { Profile } from './public.js';
export { PROFILES } from './public.js';

export interface RedactConfig {
  rules: Rule[];
  allowValues: string[];
  allowRegexes: RegExp[];
  /** Field paths (globs) whose findings are kept as they are. */
  allowPaths: RegExp[];
  /** default: secrets; public: also what identifies people and machines (lib/redact/public.ts). */
  profile?: Profile;
}

/**
 * A field-path glob as a regex: `*` one name or index, `[*]` any index, `**` anything. A pattern
 * also covers everything below the path it names.
 */
export function pathPattern(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (glob.startsWith('**', i)) {
      re += '.*';
      i++;
    } else if (glob.startsWith('[*]', i)) {
      re += '\\[\\d+\\]';
      i += 2;
    } else if (c === '*') re += '[^.\\[\\]#/]*';
    else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^(?:${re})(?:$|[.\\[#/])`);
}

function fail(file: string, what: string): never {
  throw new UserError(what, file);
}

const strings = (file: string, where: string, value: unknown): string[] => {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) fail(file, `${where} must be an array of strings`);
  return value as string[];
};

function compile(file: string, where: string, source: string, flags = ''): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (err) {
    fail(file, `${where}: invalid regex: ${(err as Error).message}`);
  }
}

/** One user rule from its JSON description. */
function userRule(file: string, index: number, spec: Record<string, unknown>): Rule {
  const where = `rules[${index}]`;
  const id = spec.id;
  if (typeof id !== 'string' || !RULE_ID.test(id)) fail(file, `${where}.id must be lower-case letters, digits and dashes (it is written into placeholders)`);
  if (typeof spec.regex !== 'string' || spec.regex === '') fail(file, `${where}.regex must be a non-empty string`);
  const flags = spec.flags === undefined ? '' : spec.flags;
  if (typeof flags !== 'string' || /[^imsu]/.test(flags)) fail(file, `${where}.flags may hold only i, m, s, u`);
  const regex = compile(file, `${where}.regex`, spec.regex, flags);
  // A quantified group that itself holds a quantifier (`(a+)+`, `(\w*x?)*`) can backtrack
  // exponentially on a near miss; the built-in rules avoid it, and so must user rules.
  if (/\((?:[^()\\]|\\.)*?(?:[+*]|\{\d*,\d*\})(?:[^()\\]|\\.)*\)(?:[+*]|\{\d*,\d*\})/.test(spec.regex)) {
    fail(file, `${where}.regex has a quantified group holding a quantifier, which can backtrack catastrophically: bound or flatten it`);
  }
  const group = spec.group === undefined ? 0 : spec.group;
  if (typeof group !== 'number' || !Number.isInteger(group) || group < 0) fail(file, `${where}.group must be a capture group number`);
  const groups = new RegExp(`${spec.regex}|`, flags).exec('')!.length - 1;
  if (group > groups) fail(file, `${where}.group ${group}: the regex has ${groups} capture group(s)`);
  const minEntropy = spec.entropy === undefined ? 0 : spec.entropy;
  if (typeof minEntropy !== 'number' || minEntropy < 0) fail(file, `${where}.entropy must be a number of bits per character`);
  const keywords = strings(file, `${where}.keywords`, spec.keywords).map((k) => k.toLowerCase());
  if (keywords.some((k) => k === '')) fail(file, `${where}.keywords must not hold empty strings`);
  const rule = patternRule({
    id,
    description: typeof spec.description === 'string' ? spec.description : `user rule ${id}`,
    keywords,
    priority: 0,
    patterns: [{ regex, group }],
    accept: minEntropy > 0 ? (v) => entropy(v) >= minEntropy : undefined,
  });
  return { ...rule, source: file };
}

/** The rules in force: the built-in set, the profile's rules, then the --rules files (which may disable any of them). */
export function loadConfig(files: readonly string[] = [], profile: Profile = 'default'): RedactConfig {
  const rules = new Map<string, Rule>([...BUILTIN_RULES, ...profileRules(profile)].map((r) => [r.id, r]));
  const allowValues: string[] = [];
  const allowRegexes: RegExp[] = [];
  const allowPaths: RegExp[] = [];
  for (const file of files) {
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      fail(file, code ? `cannot read: ${code}` : `not JSON: ${(err as Error).message}`);
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) fail(file, 'must hold a JSON object with "rules", "disable" and/or "allowlist"');
    const d = doc as Record<string, unknown>;
    for (const k of Object.keys(d)) if (!['rules', 'disable', 'allowlist', '$schema', 'description'].includes(k)) fail(file, `unknown member "${k}"`);
    if (d.rules !== undefined && !Array.isArray(d.rules)) fail(file, '"rules" must be an array');
    ((d.rules as unknown[]) ?? []).forEach((spec, i) => {
      if (typeof spec !== 'object' || spec === null) fail(file, `rules[${i}] must be an object`);
      const rule = userRule(file, i, spec as Record<string, unknown>);
      rules.set(rule.id, rule);
    });
    for (const id of strings(file, 'disable', d.disable)) {
      if (!rules.delete(id)) fail(file, `disable: no rule "${id}"`);
    }
    const allow = (d.allowlist ?? {}) as Record<string, unknown>;
    if (typeof allow !== 'object' || Array.isArray(allow)) fail(file, '"allowlist" must be an object');
    for (const k of Object.keys(allow)) if (!['values', 'regexes', 'paths'].includes(k)) fail(file, `allowlist: unknown member "${k}"`);
    allowValues.push(...strings(file, 'allowlist.values', allow.values));
    strings(file, 'allowlist.regexes', allow.regexes).forEach((r, i) => allowRegexes.push(compile(file, `allowlist.regexes[${i}]`, r)));
    allowPaths.push(...strings(file, 'allowlist.paths', allow.paths).map(pathPattern));
  }
  return { rules: [...rules.values()], allowValues, allowRegexes, allowPaths, profile };
}
