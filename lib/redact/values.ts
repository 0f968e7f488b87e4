// Judging candidate values: is this a secret, or a placeholder, a variable reference, a piece of
// code or an id? Shared by the context rules (assignments, headers, URLs) and the field checks.

/**
 * A copy of `s` that shares no memory with the text it was cut from. V8 keeps a whole parent
 * string alive for a slice of it, so anything kept beyond one string's scan (caches, reports, the
 * vault) must hold copies, or a long stream's content piles up in memory.
 */
export function detach(s: string): string {
  return s.length === 0 ? s : Buffer.from(s, 'utf8').toString('utf8');
}

/** Shannon entropy in bits per character (ASCII counted exactly, the rest pooled by code unit). */
const ascii = new Int32Array(128);
export function entropy(s: string): number {
  if (s.length === 0) return 0;
  ascii.fill(0);
  let other: Map<number, number> | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) ascii[c]++;
    else (other ??= new Map()).set(c, (other.get(c) ?? 0) + 1);
  }
  let h = 0;
  const add = (n: number) => {
    const p = n / s.length;
    h -= p * Math.log2(p);
  };
  for (let c = 0; c < 128; c++) if (ascii[c] > 0) add(ascii[c]);
  if (other) for (const n of other.values()) add(n);
  return h;
}

export function hasDigit(s: string): boolean {
  return /[0-9]/.test(s);
}

export function hasLetter(s: string): boolean {
  return /[A-Za-z]/.test(s);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(s: string): boolean {
  return UUID.test(s);
}

/** Pure hex of a digest's length (git SHA-1, SHA-256 …): ids and hashes far more often than keys. */
export function isDigestHex(s: string): boolean {
  return /^[0-9a-f]+$/i.test(s) && (s.length === 40 || s.length === 64 || s.length === 32 || s.length === 128);
}

// Values people write where a secret would go, in docs, templates and examples.
const PLACEHOLDER_WORDS = new Set([
  'true', 'false', 'null', 'none', 'nil', 'undefined', 'empty', 'string', 'str', 'number', 'int', 'integer', 'bool',
  'boolean', 'any', 'object', 'bytes', 'buffer', 'required', 'optional', 'redacted', 'hidden', 'masked', 'secret',
  'secrets', 'password', 'passwd', 'pass', 'pwd', 'token', 'apikey', 'api_key', 'key', 'changeme', 'change_me',
  'change-me', 'todo', 'tbd', 'fixme', 'placeholder', 'example', 'sample', 'dummy', 'test', 'default', 'value', 'xxx',
  'foo', 'bar', 'baz', 'foobar', 'env', 'environment', 'user', 'username', 'admin', 'root', 'guest', 'anonymous',
]);

/**
 * True for values that are not secrets themselves: references to one (`$TOKEN`, `${{ secrets.X }}`,
 * `process.env.X`, `%PASS%`, `<your-token>`), masks (`****`, `xxxx`), template words and our own
 * placeholders (so a second pass changes nothing).
 */
export function isPlaceholder(value: string, wordsArePlaceholders = true): boolean {
  const v = value.trim();
  if (v === '') return true;
  if (v.includes('[REDACTED:')) return true;
  const first = v[0];
  if (first === '$' || first === '<' || first === '{') return true; // $TOKEN, <token>, {{ token }}
  if (/^%[A-Za-z_][A-Za-z0-9_]*%$/.test(v)) return true; // %PASSWORD% (a Windows variable)
  if (/^(.)\1*$/.test(v)) return true; // one character repeated: ****, xxxxx, 00000
  // A leading #, @, *, &, % or ... is no mask by itself (`DB_PASSWORD=#Qx7!vb2`, `...k9Fz` of a
  // key shown in part): what follows it is judged.
  const bare = v.replace(/^(?:[#@*&%]+|\.{3,}|…)/, '');
  if (bare !== v) return bare.length < 4 || isPlaceholder(bare, wordsArePlaceholders);
  if (!hasDigit(v) && (/^(?:your|my|insert|enter|put|replace|example|sample|dummy|fake)(?:[\s_.-]|$)/i.test(v) || /^(?:your|my)[A-Z]/.test(v) || /[_-]here$/i.test(v))) return true;
  if (PLACEHOLDER_WORDS.has(v.toLowerCase())) return true;
  if (/^[xX*•.·_-]{3,}/.test(v) && /^[xX*•.·_-]+$/.test(v)) return true;
  if (/(?:process\.env|os\.environ|getenv|System\.getenv|ENV\[|env\(|secrets\.|vault:|\{\{|\$\{|\$\()/.test(v)) return true;
  if (/^<[^>]*>$|^\[[^\]]*\]$|\.\.\.|…/.test(v)) return true; // <token>, [token], sk-ant-...
  if (wordsArePlaceholders && !hasDigit(v) && /^\p{Ll}+(?:[-_ ]\p{Ll}+){2,}$/u.test(v)) return true; // your-key-goes-here, votre-clé-va-ici
  if (isVariableName(v)) return true; // a variable's NAME: GEMINI_API_KEY, HEADER.PAYLOAD.SIGNATURE
  if (!hasDigit(v) && /secret|token|passw|passphrase|credential|api_?key/i.test(v)) return true; // 'SuperSecretToken', 'dbpassword'
  if (/placeholder|redacted|dummy|changeme/i.test(v)) return true; // 'jwt-placeholder'
  return false;
}

/**
 * A NAME, not a value: all caps joined by underscores with no run of digits (`GEMINI_API_KEY`,
 * `OAUTH2_TOKEN`), or caps words joined by dots or dashes with no digit at all
 * (`HEADER.PAYLOAD.SIGNATURE`). `AB12_CD34XY` or `PROD-7731-KEY` are values.
 */
export function isVariableName(v: string): boolean {
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(v)) return !/[0-9]{2}/.test(v);
  return /^[A-Z]+(?:[.-][A-Z]+)+$/.test(v);
}

/** An identifier or member access (`accessToken`, `req.body.password`, `self.token`): code, not a value. */
export function isCodeReference(value: string): boolean {
  return /^[A-Za-z_$][\w$]*(?:(?:\.|\?\.|::|->)[A-Za-z_$][\w$]*)*(?:\(\)?|\[)?$/.test(value) && (!hasDigit(value) || /\.|::|->|\(/.test(value));
}

/** Words run together (`NoLineTerminatorHere`, `same-origin`, `?InterpolationInJSX`): language, not a key. */
export function isWords(value: string): boolean {
  return !hasDigit(value) && /^[?#@$]?(?:[A-Z]?[a-z]+|[A-Z]{2,}(?![a-z]))(?:[-_ .:]?(?:[A-Z]?[a-z]+|[A-Z]{2,}(?![a-z])))*$/.test(value);
}

/** Mostly words between separators (`pi-share:v1:sidebar-width`, `user.profile.name`): a name, not a key. */
export function isWordy(value: string): boolean {
  const parts = value.split(/[-_.:/ ]+/).filter(Boolean);
  if (parts.some((p) => p.length >= 12 && (hasDigit(p) || (/[a-z]/.test(p) && /[A-Z]/.test(p))))) return false; // phc_<random>
  return parts.length >= 2 && parts.filter((p) => /^[A-Za-z][a-z]{2,}$/.test(p)).length * 2 >= parts.length;
}

/**
 * Could `value` be a token, key or other machine-made secret? Digits, base64 punctuation, or mixed
 * case that is not just words; nearly every random token of 16+ characters has one of these.
 */
export function isTokenish(value: string): boolean {
  if (isWords(value)) return false;
  return hasDigit(value) || (value.length >= 16 && (/[+/=]/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value))));
}

/** A random-looking token: long enough, letters and digits, high entropy, and not an id or digest. */
export function looksRandom(value: string, minLength = 16, minEntropy = 3.3): boolean {
  if (value.length < minLength) return false;
  if (!hasDigit(value) || !hasLetter(value)) return false;
  if (isUuid(value) || isDigestHex(value)) return false;
  return entropy(value) >= minEntropy;
}
