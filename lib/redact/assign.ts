// Secrets that are known only by the name they are given: `.env` lines (`DB_PASSWORD=…`), shell
// exports, YAML/TOML/JSON members, code assignments, and high-entropy strings right after a word
// that names a secret. The key decides whether a value is looked at; the value checks keep code
// (`token = getToken()`, `password: string`) and references (`$TOKEN`) out.
import { entropy, hasDigit, hasLetter, isCodeReference, isDigestHex, detach, isPlaceholder, isTokenish, isUuid, isWordy, looksRandom } from './values.js';
import type { Span } from './rules.js';

/** What a member name says about its value: a password, another kind of secret, or only maybe (`*_key`). */
export type KeyClass = 'password' | 'secret' | 'weak';

// `<qualifier>_key` names that hold secrets (API_KEY, SECRET_KEY, SIGNING_KEY …); other `*_key` (sort_key,
// cache_key, primary_key) only count with a random-looking value.
const KEY_QUALIFIERS = new Set([
  'api', 'secret', 'private', 'access', 'auth', 'encryption', 'encrypt', 'signing', 'sign', 'master', 'client', 'app',
  'account', 'service', 'license', 'session', 'webhook', 'hmac', 'jwt', 'crypto', 'cipher', 'aes', 'ssh', 'gpg', 'pgp',
  'deploy', 'admin', 'root', 'bot', 'consumer', 'subscription', 'shared', 'sas', 'live', 'openai', 'anthropic',
]);

/** Splits `DB_PASSWORD`, `dbPassword`, `x-api-key`, `APIKey` into lower-case words. */
export function keySegments(key: string): string[] {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  while (words.length > 1 && /^\d+$/.test(words[words.length - 1])) words.pop();
  return words;
}

const classes = new Map<string, KeyClass | null>();

/** The class of a member name, judged by its LAST word(s): `token_count` and `secret_name` are not secrets. */
export function classifyKey(key: string): KeyClass | undefined {
  let cls = classes.get(key);
  if (cls === undefined) {
    cls = classify(key) ?? null;
    if (classes.size > 10_000) classes.clear();
    classes.set(detach(key), cls);
  }
  return cls ?? undefined;
}

function classify(key: string): KeyClass | undefined {
  const words = keySegments(key);
  const last = words[words.length - 1];
  if (!last) return undefined;
  const prev = words[words.length - 2];
  // A bare `pass` is a test status as often as a password (`{ pass: "failed" }`); `db_pass` is not.
  if ((last === 'pass' && prev) || last === 'pwd' || last.endsWith('password') || last.endsWith('passwd') || last.endsWith('passphrase')) return 'password';
  if (last.endsWith('secret') || last.endsWith('token') || last.endsWith('apikey') || last === 'credential' || last === 'credentials' || last === 'creds') {
    return 'secret';
  }
  if (last === 'privatekey' || last === 'secretkey' || last === 'accesskey') return 'secret';
  if (last === 'key') return prev && KEY_QUALIFIERS.has(prev) ? 'secret' : 'weak';
  if (last === 'auth') return 'weak';
  return undefined;
}

const PATH_LIKE = /^(?:\/|~\/|\.{1,2}\/|[A-Za-z]:[\\/])/;

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Is `value`, assigned to `key` (of class `cls`), a secret? */
export function acceptAssigned(value: string, quoted: boolean, cls: KeyClass, envStyle: boolean, key = ''): boolean {
  // A quoted passphrase may be plain words ("correct horse battery staple"); elsewhere words are a template.
  if (isPlaceholder(value, !(cls === 'password' && quoted)) || PATH_LIKE.test(value) || value.includes('://')) return false;
  if (key && squash(value).length >= 4 && (squash(key).endsWith(squash(value)) || squash(value).endsWith(squash(key)))) return false; // names: `AWS_SECRET_KEY: "AWS_SECRET_KEY"`, `exports.Foo = Foo`
  if (!quoted) {
    // Unquoted values are often code: `password: string`, `token = self.token`, `apiKey = args[++i]`,
    // `key: TArg<Uint8Array>`, `DEPTH_PASS: 0x0B96`.
    if ((envStyle ? /\.[A-Za-z_]/.test(value) && isCodeReference(value) : isCodeReference(value)) || /^0x[0-9a-f]+$/i.test(value) || /^[A-Z][a-z]+[0-9]+[A-Z][A-Za-z]*$/.test(value) || /^[!~]/.test(value)) return false;
    if (!envStyle && (value.length < 6 || /[[\](){}<>+*]/.test(value))) return false;
  }
  if (cls === 'weak') return !/\s/.test(value) && !value.includes('%') && !isWordy(value) && looksRandom(value, 20, 3.5);
  if (value.length < (cls === 'password' ? 4 : 8)) return false;
  if (/\s/.test(value) && !(cls === 'password' && quoted)) return false;
  // Tokens and keys in code and JSON are machine-made; `credentials: "same-origin"` is not. A .env
  // file's values are configuration, taken as they are.
  if (cls === 'secret' && !envStyle && (!isTokenish(value) || isWordy(value))) return false;
  return true;
}

/** Field check for JSON members: `{"password": "…"}`, `{"api_key": "…"}`. */
export function assignedField(key: string, value: string): Span | undefined {
  const cls = classifyKey(key);
  if (!cls) return undefined;
  return acceptAssigned(value, true, cls, false, key) ? { start: 0, end: value.length } : undefined;
}

// A word that may be part of a secret's name, then the rest of the name, an optional closing quote
// (JSON/YAML keys), and an operator. Every quantifier is bounded and the match starts at a keyword,
// so the scan stays linear.
const ASSIGN = /(pass|pwd|secret|token|key|credential|creds|auth)([A-Za-z0-9_.-]{0,40}?)(["'`]?)[ \t]{0,8}(:=|=>|=|:)(?![=:])[ \t]{0,8}/gi;
/** [A-Za-z0-9_.-] */
const isNameChar = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2e || c === 0x2d;

function valueAt(text: string, pos: number): { start: number; end: number; quoted: boolean } | undefined {
  const q = text[pos];
  if (q === '"' || q === "'" || q === '`') {
    const limit = Math.min(text.length, pos + 1 + 1024);
    for (let i = pos + 1; i < limit; i++) {
      const c = text[i];
      if (c === '\\') {
        i++;
        continue;
      }
      if (c === '\n' || c === '\r') return undefined;
      if (c === q) return { start: pos + 1, end: i, quoted: true };
    }
    return undefined;
  }
  UNQUOTED.lastIndex = pos;
  const run = UNQUOTED.exec(text);
  if (!run) return undefined;
  let end = pos + run[0].length;
  if (run[0].includes('(')) return undefined; // a call: `token = get_token()`
  if (run[0].endsWith(':')) return undefined; // another name: `password: token: …`
  if (text[end - 1] === '.' && text[end - 2] !== '.' && (end === text.length || /\s/.test(text[end]))) end--; // end of a sentence
  return end > pos ? { start: pos, end, quoted: false } : undefined;
}

// An unquoted value: up to white space, a quote or a closing bracket; `&` only where a query string
// goes on (`&page=2`), since passwords hold `&` too; `=` only as base64 padding at the end (`a=b=c`
// is a chain of names, and scanning each link to its end would make the scan quadratic).
const UNQUOTED = /(?:[^\s"'`,;)}\]&=]|&(?![A-Za-z_][\w.-]{0,40}=)|=(?==*(?:[\s"'`,;)}\]&]|$))){1,512}/y;

/** `NAME=value`, `name: value`, `"name": "value"` … where NAME names a secret. */
export function* findAssignments(text: string): Generator<Span> {
  ASSIGN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = ASSIGN.exec(text))) {
    let start = m.index;
    const floor = Math.max(0, start - 64);
    while (start > floor && isNameChar(text.charCodeAt(start - 1))) start--;
    while (start < m.index && !/[A-Za-z0-9]/.test(text[start])) start++;
    const key = text.slice(start, m.index + m[1].length + m[2].length);
    const cls = classifyKey(key);
    if (!cls) continue;
    const value = valueAt(text, m.index + m[0].length);
    if (!value) continue;
    const v = text.slice(value.start, value.end);
    const envStyle = !/[a-z]/.test(key);
    // `name: value` unquoted is YAML only when the value ends its line; elsewhere it is a type
    // annotation or an object member in code (`(key: Uint8Array, …)`, `secretKey: Buffer;`).
    if (!value.quoted && m[4] === ':' && !/^[ \t]*(?:#|\r|\n|$)/.test(text.slice(value.end, value.end + 64))) continue;
    if (acceptAssigned(v, value.quoted, cls, envStyle, key)) {
      yield { start: value.start, end: value.end };
      ASSIGN.lastIndex = Math.max(ASSIGN.lastIndex, value.end);
    }
  }
}

// A word naming a secret, then (without an operator, or with "is") a long random token.
const NEARBY =
  /(?<![A-Za-z0-9])(?:pass(?:word|wd|phrase)|secret|token|api[ _-]?key|access[ _-]?key|secret[ _-]?key|private[ _-]?key|auth[ _-]?key|credentials?)s?(?:[^\S\r\n]{1,3}(?:(?:is|was)[^\S\r\n]{1,3})?|[^\S\r\n]{0,3}(?:[:=]|->)[^\S\r\n]{0,3})["'`]?([A-Za-z0-9+/_=-]{20,512})/dgi;

export function* findHighEntropyNearKey(text: string): Generator<Span> {
  NEARBY.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = NEARBY.exec(text))) {
    const [start, end] = m.indices![1];
    const v = m[1];
    if (isUuid(v) || isDigestHex(v) || isPlaceholder(v)) continue;
    if (/^[a-z0-9_-]+(?:\/[a-z0-9_.-]+)+$/.test(v)) continue; // a path
    if (!hasDigit(v) || !hasLetter(v) || v.replace(/[^0-9]/g, '').length < 2) continue;
    if (entropy(v) < 3.5) continue;
    yield { start, end };
  }
}
