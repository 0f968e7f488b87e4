// The generic rule, in the spirit of gitleaks' generic-api-key: a name holding a secret-ish word
// (key, token, secret, password, credential, auth, api) anywhere in it, an assignment operator,
// and a value that is random enough. It catches what the named rules miss (`stripeKeyProd =
// "…"`, `auth_header_value: …`); the entropy threshold keeps identifiers, words and code out.
import type { Span } from './rules.js';
import { entropy, hasDigit, hasLetter, isCodeReference, isPlaceholder, isUuid, isWordy } from './values.js';

/**
 * Bits per character a value needs to count: gitleaks' 3.5, which the corpus bears out. Measured
 * on every session of /work/shared/corpus and fixtures/ (13,548 events, each session once):
 * - under secret-ish names the finder saw 33 values (13 distinct), all real-format project tokens
 *   in public fixtures (a PostHog phc_… key, 4.97; a 32-hex Mixpanel token, 3.54), which the
 *   secret-assignment rule reports too; nothing structural reached the entropy test;
 * - of the 1,893 distinct letter-and-digit values assigned to ANY name, the median is 4.40 and
 *   1,760 are ≥ 3.5 (msg_…, toolu_…, req_… ids): entropy cannot tell ids from keys, which is why
 *   the name decides first (NOT_SECRET_NAME drops *_id, *_name, *_url … names);
 * - hex values: 34 distinct, at most 3.92, so random hex (3.7–3.9 at 32–64 digits) needs its own
 *   threshold, 3.0, and counts only under a secret-ish name.
 * A value of 11 characters or fewer can never reach 3.5 (log2 11 = 3.46): short words stay out.
 */
export const GENERIC_ENTROPY = 3.5;
export const GENERIC_HEX_ENTROPY = 3.0;

export interface Candidate extends Span {
  entropy: number;
  /** Whether the value clears the threshold (a finding), or was kept (only shown by --review). */
  secret: boolean;
}

// name (with a secret word somewhere in it), optional closing quote, operator, optional opening
// quote, then a run of token characters. The match starts at the secret word (the prefilter's
// keyword), so the scan stays linear; the value is taken whole, never shortened on a miss (the
// lookahead-and-backreference is an atomic group: a run of token characters is read once).
const GENERIC =
  /(access|auth|api|credential|creds|key|passwd|password|secret|token)([\w.-]{0,20}?)["'`]?[ \t]{0,4}(?:=|:=|:|=>|\?=|\|\|=)[ \t]{0,4}(["'`]?)(?=([A-Za-z0-9_.=+\/-]{10,150}))\4(?=["'`\s;,)\]}]|\\[nrt"]|$)/gi;

// Names that hold a secret word but no secret: counts, ids, names, kinds, places.
const NOT_SECRET_NAME = /(?:^|[_.-])(?:id|ids|name|names|type|kind|count|len|length|size|url|uri|path|file|dir|prefix|suffix|format|mode|version|env|header|field|column|index|limit|max|min|timeout|ttl|expiry|expires|at|scope|scopes|usage|model|host|port|region|endpoint|provider|method|style|class|label|title)$/i;

const isWordChar = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2e || c === 0x2d;

/** Every candidate of the generic rule in `text`, with its entropy, found or kept. */
export function* genericCandidates(text: string): Generator<Candidate> {
  GENERIC.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = GENERIC.exec(text))) {
    let nameStart = m.index;
    const floor = Math.max(0, nameStart - 40);
    while (nameStart > floor && isWordChar(text.charCodeAt(nameStart - 1))) nameStart--;
    const name = text.slice(nameStart, m.index + m[1].length + m[2].length);
    if (NOT_SECRET_NAME.test(name)) continue;
    const value = m[4];
    const start = m.index + m[0].length - value.length;
    if (!keep(value)) continue;
    const hex = /^[0-9a-f]+$/i.test(value);
    const h = entropy(value);
    yield { start, end: start + value.length, entropy: h, secret: h >= (hex ? GENERIC_HEX_ENTROPY : GENERIC_ENTROPY) };
    GENERIC.lastIndex = Math.max(GENERIC.lastIndex, start + value.length);
  }
}

/** Values worth an entropy figure at all: machine-made looking, not a reference, a path or a number. */
function keep(value: string): boolean {
  if (!hasLetter(value) || !hasDigit(value)) return false; // words, numbers
  if (isUuid(value) || isPlaceholder(value) || isWordy(value) || isCodeReference(value)) return false;
  if (/^\d+(?:\.\d+)+/.test(value) || /^v\d/.test(value)) return false; // versions
  if (/^[\w.-]*\.(?:js|ts|json|py|md|txt|html|css|sh|yml|yaml|toml|lock|png|jpg|svg|go|rs)$/i.test(value)) return false; // file names
  if (value.includes('/') && /^[\w.-]+(?:\/[\w.-]+)+$/.test(value) && !/[A-Z].*[0-9]|[0-9].*[A-Z]/.test(value)) return false; // paths
  return true;
}

export function* findGenericSecrets(text: string): Generator<Span> {
  for (const c of genericCandidates(text)) if (c.secret) yield c;
}
