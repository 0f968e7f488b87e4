// The built-in rule set, written from the token formats the providers document. Each rule has an
// id (it appears in placeholders and reports), a description, keywords for the prefilter, and a
// finder. Finders are linear: token regexes start after a negative lookbehind of their own
// alphabet (so a long run of token characters is tried once, not at every offset), and every
// quantifier that could run into a long input is bounded.
import { acceptAssigned, assignedField, classifyKey, findAssignments, findHighEntropyNearKey } from './assign.js';
import { entropy, hasDigit, hasLetter, isPlaceholder, looksRandom } from './values.js';
import { findCommandLineSecrets, findNetrcPasswords, findPgpassPasswords, findYamlPasswords } from './commandline.js';
import { encodedSecretRule } from './encoded.js';
import { findGenericSecrets, GENERIC_ENTROPY } from './generic.js';
import { keySegments } from './assign.js';

export interface Span {
  start: number;
  end: number;
}

export interface Rule {
  /** Lower-case letters, digits and dashes: it is written into placeholders. */
  id: string;
  description: string;
  /** Substrings (matched case-insensitively) of which one must occur for the rule to run. Empty: always runs. */
  keywords: string[];
  /** When findings overlap, the lower priority wins: 0 a token format, 1 a credential in context, 2–3 generic. */
  priority: number;
  /** Candidate spans of secrets in `text`. */
  find(text: string): Iterable<Span>;
  /** A check of a JSON member by its name (`{"password": "…"}`): the secret's span in `value`. */
  field?(key: string, value: string): Span | undefined;
  /** Where the rule comes from: built in, or the file given with --rules. */
  source?: string;
  /** Fixed text written instead of a placeholder (the public profile's `~` for a home folder). */
  replacement?: string;
  /**
   * For a rule without keywords: a test of its own that decides whether it runs, tried only on
   * texts of at most `maxLength` characters (so a long text costs nothing more).
   */
  prefilter?: RegExp;
  maxLength?: number;
  /** Also run on member names (token formats always are): the public profile's paths and addresses. */
  names?: boolean;
}

/**
 * The rule set's version: bumped whenever what the built-in rules find changes, so a stream
 * redacted by an older set can be told apart. 2: command-line and credential-file forms, the
 * generic entropy rule, encoded tokens, member names, tokens under structural names.
 */
export const RULESET_VERSION = 2;

export const RULE_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

interface Pattern {
  regex: RegExp;
  /** The capture group holding the secret; 0 or absent: the whole match. */
  group?: number;
}

interface PatternRuleSpec {
  id: string;
  description: string;
  keywords: string[];
  priority?: number;
  patterns: Array<RegExp | Pattern>;
  /** Rejects candidates (`value` is the secret, `text`/`start` its context). */
  accept?: (value: string, text: string, start: number) => boolean;
  field?: Rule['field'];
}

/** A rule over regular expressions; a group's span needs the `d` flag, which is added here. */
export function patternRule(spec: PatternRuleSpec): Rule {
  const patterns = spec.patterns.map((p) => {
    const { regex, group } = p instanceof RegExp ? { regex: p, group: 0 } : { group: 0, ...p };
    const flags = new Set(regex.flags.split(''));
    flags.add('g');
    if (group) flags.add('d');
    return { regex: new RegExp(regex.source, [...flags].join('')), group };
  });
  return {
    id: spec.id,
    description: spec.description,
    keywords: spec.keywords,
    priority: spec.priority ?? 0,
    field: spec.field,
    *find(text: string) {
      for (const { regex, group } of patterns) {
        regex.lastIndex = 0;
        let m: RegExpExecArray | null;
        while ((m = regex.exec(text))) {
          if (m[0].length === 0) {
            regex.lastIndex++;
            continue;
          }
          let start = m.index;
          let end = m.index + m[0].length;
          if (group) {
            const at = m.indices?.[group];
            if (!at) continue;
            [start, end] = at;
          }
          if (end <= start) continue;
          if (spec.accept && !spec.accept(text.slice(start, end), text, start)) continue;
          yield { start, end };
        }
      }
    },
  };
}

// ---- private keys (a finder of its own: the body runs to a matching END line) -----------------

const PEM_BEGIN = /-----BEGIN ((?:[A-Z0-9]+ ){0,4})PRIVATE KEY( BLOCK)?-----/g;
// Base64, line breaks (real, or JSON-escaped `\n` when a key file is printed inside JSON), and the
// `Proc-Type: 4,ENCRYPTED` / `DEK-Info: …` / PGP `Comment:` header lines.
const PEM_BODY = /^[A-Za-z0-9+/=\s\\:,.()-]*$/;
const PEM_TAIL = /[A-Za-z0-9+/=\s\\]*/y;
const PEM_MAX_BODY = 128 * 1024;

function* findPrivateKeys(text: string): Generator<Span> {
  PEM_BEGIN.lastIndex = 0;
  let nextEnd = -2; // cached position of the next "-----END " (-2: not searched yet, -1: none left)
  let m: RegExpExecArray | null;
  while ((m = PEM_BEGIN.exec(text))) {
    const start = m.index;
    const bodyStart = start + m[0].length;
    if (nextEnd !== -1 && nextEnd < bodyStart) nextEnd = text.indexOf('-----END ', bodyStart);
    const label = `-----END ${m[1]}PRIVATE KEY${m[2] ?? ''}-----`;
    let end = -1;
    if (nextEnd !== -1 && nextEnd - bodyStart <= PEM_MAX_BODY && text.startsWith(label, nextEnd) && PEM_BODY.test(text.slice(bodyStart, nextEnd))) {
      end = nextEnd + label.length;
    } else {
      // No END line (output cut by head/tail, a half-pasted key): take the body as far as it goes.
      PEM_TAIL.lastIndex = bodyStart;
      PEM_TAIL.exec(text);
      end = PEM_TAIL.lastIndex;
      while (end > bodyStart && /\s/.test(text[end - 1])) end--;
      if (text[end - 1] === '\\') end--;
    }
    yield { start, end };
    PEM_BEGIN.lastIndex = Math.max(PEM_BEGIN.lastIndex, end);
  }
}

// ---- helpers for accept() ---------------------------------------------------------------------

const mixedCase = (v: string) => /[a-z]/.test(v) && /[A-Z]/.test(v);
const lettersAndDigits = (v: string) => hasDigit(v) && hasLetter(v);

/** A credential that follows a scheme or header: not a variable, not a template word, not all one case of a NAME. */
function credentialValue(v: string): boolean {
  if (isPlaceholder(v)) return false;
  if (/^[A-Z][A-Z0-9_]*$/.test(v) && !hasDigit(v)) return false; // YOUR_TOKEN, ACCESS_TOKEN (a variable name)
  return true;
}

const URL_PASSWORD_PLACEHOLDER = /^(?:pass(?:word)?|passwd|pwd|secret|changeme|x+|\*+|p(?:a|@)ss(?:w(?:o|0)rd)?)$/i;

// Token regexes below start with two lookbehinds: not right after a token character (so a run of
// them is tried once, and a token inside a longer word or a base64 blob does not count), and not
// after a `/` that follows one (base64 again), while `https://TOKEN@host` still counts.

// ---- the rule set -----------------------------------------------------------------------------

export const BUILTIN_RULES: Rule[] = [
  { id: 'private-key', description: 'PEM private key blocks of every kind (RSA, EC, DSA, OpenSSH, PKCS#8, encrypted, PGP), also JSON-escaped as in GCP service-account key files, and truncated ones', keywords: ['private key'], priority: 0, find: findPrivateKeys },

  patternRule({
    id: 'aws-access-key-id',
    description: 'AWS access key id as trufflehog matches it (AKIA, ASIA, ABIA, ACCA + 16 upper-case letters and digits), and any value assigned to an *_ACCESS_KEY_ID name',
    keywords: ['akia', 'asia', 'abia', 'acca', 'a3t', 'access_key_id', 'accesskeyid'],
    patterns: [
      /(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])/,
      { regex: /(?<![A-Za-z0-9])(?:[A-Za-z0-9]{1,40}_)?access_?key_?id["'`]?[ \t]{0,8}(?:=|:|=>)[ \t]{0,8}["'`]?([A-Za-z0-9\/+=._-]{4,128})/i, group: 1 },
    ],
    accept: (v) => credentialValue(v) && !/^(?:AWS_)?ACCESS_KEY_ID$/i.test(v),
    field: (key, value) => {
      const words = keySegments(key);
      if (words.slice(-3).join('_') !== 'access_key_id' && words[words.length - 1] !== 'accesskeyid') return undefined;
      return value.length >= 4 && !/\s/.test(value) && credentialValue(value) ? { start: 0, end: value.length } : undefined;
    },
  }),
  patternRule({
    id: 'aws-secret-access-key',
    description: 'AWS secret access key: 40 base64 characters assigned to an aws_secret_access_key / SecretAccessKey name',
    keywords: ['secret'],
    patterns: [{ regex: /(?<![A-Za-z0-9])(?:aws_?)?secret_?(?:access_?)?key["'`]?[ \t]{0,8}(?:=|:|=>)[ \t]{0,8}["'`]?([A-Za-z0-9\/+]{40})(?![A-Za-z0-9\/+=])/i, group: 1 }],
    accept: (v) => lettersAndDigits(v),
    field: (key, value) => (/^(?:aws_?)?secret_?(?:access_?)?key$/i.test(key) && /^[A-Za-z0-9/+]{40}$/.test(value) && lettersAndDigits(value) ? { start: 0, end: 40 } : undefined),
  }),

  patternRule({
    id: 'google-api-key',
    description: 'Google API key (Google Cloud, Maps, Firebase, and Google AI Studio, the Generative Language API): AIza + 35 characters',
    keywords: ['aiza'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/],
  }),
  patternRule({
    id: 'google-oauth-client-secret',
    description: 'Google OAuth client secret: GOCSPX- + 28 characters',
    keywords: ['gocspx-'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)GOCSPX-[0-9A-Za-z_-]{28}(?![A-Za-z0-9_-])/],
  }),
  patternRule({
    id: 'google-oauth-token',
    description: 'Google OAuth access token (ya29.…) or refresh token (1//0…)',
    keywords: ['ya29.', '1//0'],
    patterns: [/(?<![A-Za-z0-9_+.-])(?<![A-Za-z0-9+=]\/)ya29\.[0-9A-Za-z_-]{20,2048}(?![A-Za-z0-9_-])/, /(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)1\/\/0[0-9A-Za-z_-]{40,512}(?![A-Za-z0-9_-])/],
    accept: (v) => lettersAndDigits(v.slice(5)),
  }),

  patternRule({
    id: 'azure-storage-key',
    description: 'Azure storage account key in a connection string: AccountKey= + 88 base64 characters',
    keywords: ['accountkey'],
    patterns: [{ regex: /AccountKey=([A-Za-z0-9+\/]{86}==)/i, group: 1 }],
  }),
  patternRule({
    id: 'azure-sas-signature',
    description: 'Azure shared access signature: the sig= parameter of a SAS URL or token (with sv=/se=/sp= beside it)',
    keywords: ['sig='],
    patterns: [{ regex: /[?&;]sig=((?:[A-Za-z0-9+\/=]|%2[BbFf]|%3[Dd]){40,200})(?![A-Za-z0-9%+\/=])/, group: 1 }],
    accept: (_v, text, start) => /[?&;](?:sv|se|sp|sr|st|spr|skoid)=/.test(text.slice(Math.max(0, start - 600), start)),
  }),
  patternRule({
    id: 'azure-ad-client-secret',
    description: 'Microsoft Entra ID (Azure AD) client secret: 3 characters, a digit, Q~, then 31–34 characters',
    keywords: ['q~'],
    patterns: [/(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/],
    accept: (v) => lettersAndDigits(v),
  }),

  patternRule({
    id: 'github-pat',
    description: 'GitHub personal access token (classic): ghp_ + 36 base62 characters',
    keywords: ['ghp_'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)ghp_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_])/],
  }),
  patternRule({
    id: 'github-fine-grained-pat',
    description: 'GitHub fine-grained personal access token: github_pat_ + 82 characters',
    keywords: ['github_pat_'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)github_pat_[A-Za-z0-9_]{82,251}(?![A-Za-z0-9_])/],
  }),
  patternRule({
    id: 'github-oauth-token',
    description: 'GitHub OAuth access token: gho_ + 36 base62 characters',
    keywords: ['gho_'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)gho_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_])/],
  }),
  patternRule({
    id: 'github-app-token',
    description: 'GitHub App tokens: user-to-server ghu_ and installation (server-to-server) ghs_ + 36 base62 characters',
    keywords: ['ghu_', 'ghs_'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)gh[us]_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_])/],
  }),
  patternRule({
    id: 'github-refresh-token',
    description: 'GitHub refresh token: ghr_ + 36 or more base62 characters',
    keywords: ['ghr_'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)ghr_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_])/],
  }),

  patternRule({
    id: 'gitlab-pat',
    description: 'GitLab personal, project or group access token: glpat- + 20 or more characters (with the .01.… suffix of routable tokens)',
    keywords: ['glpat-'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)glpat-[0-9A-Za-z_-]{20,300}(?:\.[0-9a-z]{2}\.[0-9a-z]{9})?(?![A-Za-z0-9_-])/],
  }),
  patternRule({
    id: 'gitlab-token',
    description: 'Other GitLab tokens: deploy (gldt-), runner (glrt-, GR1348941…), pipeline trigger (glptt-), CI job (glcbt-), OAuth app (gloas-), SCIM (glsoat-), feature flag (glffct-), incoming mail (glimt-), agent (glagent-), feed (glft-), workspace (glwt-)',
    keywords: ['gldt-', 'glrt-', 'glptt-', 'glcbt-', 'gloas-', 'glsoat-', 'glffct-', 'glimt-', 'glagent-', 'glft-', 'glwt-', 'gr1348941'],
    patterns: [
      /(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)(?:gldt|glrt|glptt|glcbt|gloas|glsoat|glffct|glimt|glagent|glft|glwt)-[0-9A-Za-z_-]{20,300}(?![A-Za-z0-9_-])/,
      /(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)GR1348941[0-9A-Za-z_-]{20,64}(?![A-Za-z0-9_-])/,
    ],
    accept: (v) => lettersAndDigits(v.slice(v.indexOf('-') + 1)) || v.startsWith('GR1348941'),
  }),

  patternRule({
    id: 'anthropic-api-key',
    description: 'Anthropic API, admin and OAuth keys: sk-ant-api03-…, sk-ant-admin01-…, sk-ant-oat01-…, sk-ant-ort01-…',
    keywords: ['sk-ant-'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)sk-ant-(?:api|admin|oat|ort|sid)[0-9]{2}-[A-Za-z0-9_-]{20,300}(?![A-Za-z0-9_-])/],
  }),
  patternRule({
    id: 'openai-api-key',
    description: 'OpenAI API keys: project (sk-proj-), service account (sk-svcacct-), admin (sk-admin-), and user keys carrying the T3BlbkFJ marker',
    keywords: ['sk-proj-', 'sk-svcacct-', 'sk-admin-', 'sk-none-', 't3blbkfj'],
    patterns: [
      /(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,300}(?![A-Za-z0-9_-])/,
      /(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)sk-[A-Za-z0-9_-]{16,100}T3BlbkFJ[A-Za-z0-9_-]{16,100}(?![A-Za-z0-9_-])/,
    ],
    accept: (v) => lettersAndDigits(v.slice(3)),
  }),
  patternRule({
    id: 'sk-api-key',
    description: 'sk- keys of OpenAI-compatible APIs (legacy OpenAI, DeepSeek, Moonshot …): sk- + 32 or more letters and digits',
    keywords: ['sk-'],
    priority: 1,
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)sk-[A-Za-z0-9]{32,200}(?![A-Za-z0-9_-])/],
    accept: (v) => lettersAndDigits(v.slice(3)) && entropy(v.slice(3)) >= 3,
  }),
  patternRule({
    id: 'huggingface-token',
    description: 'Hugging Face user access token (hf_ + 34 letters) or organization API token (api_org_ + 34 letters)',
    keywords: ['hf_', 'api_org_'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)(?:hf|api_org)_[A-Za-z0-9]{34}(?![A-Za-z0-9_])/],
    accept: (v) => mixedCase(v.slice(v.lastIndexOf('_') + 1)),
  }),

  patternRule({
    id: 'slack-token',
    description: 'Slack tokens: bot (xoxb-), user (xoxp-), workspace/legacy (xoxa-, xoxo-, xoxs-, xoxr-), configuration (xoxe.xoxp-, xoxe-) and app-level (xapp-)',
    keywords: ['xoxa-', 'xoxb-', 'xoxo-', 'xoxp-', 'xoxr-', 'xoxs-', 'xoxe', 'xapp-'],
    patterns: [
      /(?<![A-Za-z0-9_+.-])(?<![A-Za-z0-9+=]\/)xox[abposr]-[0-9A-Za-z-]{10,250}(?![A-Za-z0-9_-])/,
      /(?<![A-Za-z0-9_+.-])(?<![A-Za-z0-9+=]\/)xoxe(?:\.xox[bp])?-[0-9]-[0-9A-Za-z]{20,300}(?![A-Za-z0-9_-])/,
      /(?<![A-Za-z0-9_+.-])(?<![A-Za-z0-9+=]\/)xapp-[0-9]-[A-Z0-9]{6,20}-[0-9]{6,20}-[a-f0-9]{20,100}(?![A-Za-z0-9_-])/,
    ],
    accept: (v) => hasDigit(v.slice(5)),
  }),
  patternRule({
    id: 'slack-webhook',
    description: 'Slack incoming webhook, workflow or trigger URL (hooks.slack.com/services/…)',
    keywords: ['hooks.slack.com'],
    patterns: [/https?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_-]{6,40}\/[A-Za-z0-9_-]{6,40}\/[A-Za-z0-9_\/-]{8,100}/],
    accept: (v) => hasDigit(v) && !isPlaceholder(v.slice(v.lastIndexOf('/') + 1)) && !/X{8}/.test(v),
  }),

  patternRule({
    id: 'stripe-secret-key',
    description: 'Stripe secret and restricted keys, live and test: sk_live_, sk_test_, rk_live_, rk_test_',
    keywords: ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)[sr]k_(?:live|test)_[0-9A-Za-z]{20,247}(?![A-Za-z0-9_])/],
    accept: (v) => lettersAndDigits(v.slice(8)),
  }),
  patternRule({
    id: 'stripe-webhook-secret',
    description: 'Stripe webhook signing secret: whsec_ + 32 or more characters',
    keywords: ['whsec_'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)whsec_[0-9A-Za-z+\/=]{24,100}(?![A-Za-z0-9_])/],
    accept: (v) => lettersAndDigits(v.slice(6)),
  }),
  patternRule({
    id: 'twilio-api-key',
    description: 'Twilio API key SID: SK + 32 hex digits (its secret is caught by name, e.g. TWILIO_API_SECRET=…)',
    keywords: ['sk'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)SK[0-9a-fA-F]{32}(?![A-Za-z0-9_])/],
    accept: (v) => /[a-f]/i.test(v.slice(2)) && /[0-9]/.test(v.slice(2)),
  }),
  patternRule({
    id: 'sendgrid-api-key',
    description: 'SendGrid API key: SG. + 22 characters + . + 43 characters',
    keywords: ['sg.'],
    patterns: [/(?<![A-Za-z0-9_+.-])(?<![A-Za-z0-9+=]\/)SG\.[0-9A-Za-z_-]{22}\.[0-9A-Za-z_-]{43}(?![A-Za-z0-9_-])/],
  }),

  patternRule({
    id: 'npm-token',
    description: 'npm access token (granular or classic automation/publish): npm_ + 36 base62 characters',
    keywords: ['npm_'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/],
    accept: (v) => lettersAndDigits(v.slice(4)),
  }),
  patternRule({
    id: 'npmrc-auth',
    description: 'Registry credentials in .npmrc / .yarnrc: _authToken=, _auth=, _password=',
    keywords: ['_auth', '_password', 'npmauthtoken'],
    patterns: [
      { regex: /(?<![A-Za-z0-9_])(?:_authToken|_auth|_password)[ \t]{0,4}=[ \t]{0,4}["']?([^\s"'$`]{8,512})/, group: 1 },
      { regex: /(?<![A-Za-z0-9_])npmAuthToken["']?[ \t]{0,4}:[ \t]{0,4}["']?([^\s"'$`]{8,512})/, group: 1 },
    ],
    accept: (v) => !isPlaceholder(v),
  }),
  patternRule({
    id: 'pypi-token',
    description: 'PyPI and TestPyPI API token: pypi-AgE… (a macaroon)',
    keywords: ['pypi-age'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)pypi-AgE[A-Za-z0-9_-]{50,1000}(?![A-Za-z0-9_-])/],
  }),

  patternRule({
    id: 'jwt',
    description: 'JSON Web Token: base64url header and payload (both start eyJ) and signature',
    keywords: ['eyj'],
    patterns: [/(?<![A-Za-z0-9_+-])(?<![A-Za-z0-9+=]\/)eyJ[A-Za-z0-9_-]{10,8192}\.eyJ[A-Za-z0-9_-]{2,16384}\.[A-Za-z0-9_-]{0,8192}(?![A-Za-z0-9_+\/-])/],
  }),

  patternRule({
    id: 'auth-header',
    description: 'Authorization / Proxy-Authorization header credentials (Bearer, Basic, Token, Bot …), and a long Bearer token anywhere',
    keywords: ['authorization', 'bearer'],
    priority: 1,
    patterns: [
      { regex: /(?<![A-Za-z0-9-])(?:proxy-)?authorization["'`]?[ \t]{0,4}[:=][ \t]{0,4}["'`]?(?:bearer|basic|token|bot|digest|apikey|sso-key)[ \t]+([A-Za-z0-9._~+\/=:-]{8,4096})/i, group: 1 },
      { regex: /(?<![A-Za-z0-9])bearer[ \t]+([A-Za-z0-9._~+\/-]{20,4096}=*)/i, group: 1 },
    ],
    accept: (v) => credentialValue(v) && (v.length < 20 || lettersAndDigits(v) || mixedCase(v)),
    field: (key, value) => {
      if (!/^(?:proxy-)?authorization$/i.test(key)) return undefined;
      const m = /^(?:bearer|basic|token|bot|digest|apikey|sso-key)[ \t]+(\S{8,})$/i.exec(value);
      if (!m || !credentialValue(m[1])) return undefined;
      return { start: value.length - m[1].length, end: value.length };
    },
  }),
  patternRule({
    id: 'api-key-header',
    description: 'API keys sent in headers: X-Api-Key, Api-Key, X-Auth-Token, X-Goog-Api-Key, Private-Token (GitLab), Ocp-Apim-Subscription-Key …',
    keywords: ['api-key', 'auth-token', 'access-token', 'private-token', 'gitlab-token', 'subscription-key'],
    priority: 1,
    patterns: [
      {
        regex: /(?<![A-Za-z0-9-])(?:x-api-key|api-key|x-auth-token|x-goog-api-key|x-access-token|private-token|x-gitlab-token|ocp-apim-subscription-key)["'`]?[ \t]{0,4}:[ \t]{0,4}["'`]?([A-Za-z0-9._~+\/=-]{12,4096})/i,
        group: 1,
      },
    ],
    accept: (v) => credentialValue(v) && lettersAndDigits(v),
    field: (key, value) =>
      /^(?:x-api-key|api-key|x-auth-token|x-goog-api-key|x-access-token|private-token|x-gitlab-token|ocp-apim-subscription-key)$/i.test(key) &&
      value.length >= 12 && !/\s/.test(value) && credentialValue(value) && lettersAndDigits(value)
        ? { start: 0, end: value.length }
        : undefined,
  }),
  patternRule({
    id: 'url-credentials',
    description: 'The password of a URL with user:password@ (database, broker and git remotes: postgres://, mongodb+srv://, redis://, amqp://, https:// …)',
    keywords: ['://'],
    priority: 1,
    patterns: [{ regex: /:\/\/[^\s:@\/?#"'<>`\\]{0,128}:([^\s@\/?#"'<>`\\]{1,256})@(?=[A-Za-z0-9\[])/, group: 1 }],
    // Hosts reserved for documentation (RFC 2606) carry sample passwords: https://abc:xyz@example.com.
    accept: (v, text, start) =>
      !isPlaceholder(v) && !URL_PASSWORD_PLACEHOLDER.test(v) && !/^\d{1,5}$/.test(v) && !/^@[^\/?#\s]*?(?:example\.(?:com|net|org)|\.example|\.test|\.invalid)(?![\w.-])/i.test(text.slice(start + v.length, start + v.length + 300)),
  }),
  patternRule({
    id: 'connection-string-password',
    description: 'Password=/Pwd= in key=value;… database connection strings (ADO.NET, ODBC, JDBC properties)',
    keywords: ['password', 'pwd'],
    priority: 1,
    patterns: [{ regex: /(?:^|[;"'\s])(?:password|pwd)[ \t]{0,4}=[ \t]{0,4}([^;"'\r\n]{1,256}?)[ \t]*(?=;|"|'|\r|\n|$)/im, group: 1 }],
    accept: (v, text, start) => {
      if (isPlaceholder(v) || URL_PASSWORD_PLACEHOLDER.test(v)) return false;
      // A connection string is one line of key=value pairs joined by `;`.
      const from = Math.max(text.lastIndexOf('\n', start) + 1, start - 400);
      const to = text.indexOf('\n', start);
      const line = text.slice(from, to === -1 ? Math.min(text.length, start + 400) : Math.min(to, start + 400));
      return /;/.test(line) && /(?:server|data source|host|hostname|user id|uid|user|username|database|initial catalog|dbname|port|address|provider)[ \t]*=/i.test(line);
    },
  }),
  patternRule({
    id: 'url-secret-param',
    description: 'Secrets in URL query strings: password=, client_secret=, access_token=, api_key=, token=, X-Amz-Signature= …',
    keywords: ['pass', 'pwd', 'secret', 'token', 'key=', 'signature', 'credential'],
    priority: 1,
    patterns: [
      {
        regex: /[?&](?:password|passwd|pwd|client_secret|secret|access_token|refresh_token|id_token|auth_token|token|api_key|apikey|api-key|x-amz-signature|x-amz-security-token|x-goog-signature|x-goog-credential)=([^&#\s"'<>`\\]{6,4096})/i,
        group: 1,
      },
    ],
    accept: (v) => !isPlaceholder(v) && !URL_PASSWORD_PLACEHOLDER.test(v) && v.length >= 6 && (hasDigit(v) || v.length >= 12),
  }),

  {
    id: 'secret-assignment',
    description: '.env lines, shell exports, YAML/TOML/JSON members and code assignments whose name says secret (…PASSWORD, …SECRET, …TOKEN, API_KEY, PRIVATE_KEY, credentials …); *_KEY names only with a random-looking value',
    keywords: ['pass', 'pwd', 'secret', 'token', 'key', 'credential', 'creds', 'auth'],
    priority: 2,
    find: findAssignments,
    field: assignedField,
  },
  {
    id: 'high-entropy-secret',
    description: 'A long random-looking string right after a word that names a secret ("token: …", "api key is …", "password …")',
    keywords: ['pass', 'secret', 'token', 'key', 'credential'],
    priority: 3,
    find: findHighEntropyNearKey,
  },

  { id: 'cli-password', description: 'Passwords and tokens on command lines: --password X, --password=X, --token X, --api-key X …; mysql -pX; sshpass -p X; redis-cli -a X; docker/podman login -p X; curl -u user:X', keywords: ['-p', '-a', '-u', '-token', '-secret'], priority: 1, find: findCommandLineSecrets },
  { id: 'netrc-password', description: '.netrc / _netrc entries: machine HOST login USER password X (on one line or several)', keywords: ['password'], priority: 1, find: findNetrcPasswords },
  { id: 'pgpass-password', description: '.pgpass lines: hostname:port:database:username:password', keywords: [':543', ':643', ':*:', 'pgpass'], priority: 1, find: findPgpassPasswords },
  { id: 'yaml-password', description: 'YAML pass: / passwd: members at the start of a line, the value ending it', keywords: ['pass:', 'passwd:', 'pass":', "pass':", 'passwd":'], priority: 1, find: findYamlPasswords },
  {
    id: 'generic-secret',
    description: `A value of ${GENERIC_ENTROPY} bits of entropy per character or more (hex: 3.0) assigned to a name holding key, token, secret, password, credential, auth or api (gitleaks' generic rule, thresholds measured on the corpus)`,
    keywords: ['access', 'auth', 'api', 'credential', 'creds', 'key', 'passwd', 'password', 'secret', 'token'],
    priority: 3,
    find: findGenericSecrets,
  },
];

// Decoded base64 and URL-encoding are checked with the token formats and the context rules.
BUILTIN_RULES.push(encodedSecretRule(() => BUILTIN_RULES.filter((r) => r.priority <= 1)));

// Re-exported for tests and the user-rule loader.
export { acceptAssigned, classifyKey, looksRandom };
