// Fake secrets for the redaction tests, made at run time from a seeded generator: well-formed for
// their rule, never real, and never written into the repository as literals (so no secret scanner
// flags this project's own test files).
export const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const LOWER = 'abcdefghijklmnopqrstuvwxyz';
export const DIGITS = '0123456789';
export const ALNUM = UPPER + LOWER + DIGITS;
export const HEX = '0123456789abcdef';
export const B64 = ALNUM + '+/';
export const B64URL = ALNUM + '-_';
export const BASE32 = UPPER + '234567';

/** A deterministic generator (mulberry32): the same seed gives the same strings on every run. */
export function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  /** `n` characters of `alphabet`, with at least one digit and one upper and lower letter where the alphabet has them. */
  const chars = (n: number, alphabet = ALNUM): string => {
    for (;;) {
      let s = '';
      for (let i = 0; i < n; i++) s += alphabet[Math.floor(next() * alphabet.length)];
      const need = [DIGITS, UPPER, LOWER].filter((set) => [...set].some((c) => alphabet.includes(c)));
      if (n < 8 || need.every((set) => [...s].some((c) => set.includes(c)))) return s;
    }
  };
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(next() * 256)));
  return { next, chars, bytes };
}

const g = generator(20261130);
const b64url = (s: string) => Buffer.from(s).toString('base64url');

function pem(label: string, body: number, headers = ''): string {
  const b64 = g.bytes(body).toString('base64');
  const lines = b64.match(/.{1,64}/g)!.join('\n');
  return `-----BEGIN ${label}-----\n${headers}${lines}\n-----END ${label}-----`;
}

/** One well-formed fake secret per kind (the names are the rule ids that must find them). */
export const FAKE = {
  awsKeyId: 'AKIA' + g.chars(16, BASE32),
  awsTempKeyId: 'ASIA' + g.chars(16, BASE32),
  awsSecret: g.chars(40, B64),
  googleApiKey: 'AIza' + g.chars(35, B64URL),
  googleClientSecret: 'GOCSPX-' + g.chars(28, B64URL),
  googleAccessToken: 'ya29.' + g.chars(120, B64URL),
  googleRefreshToken: '1//0' + g.chars(60, B64URL),
  azureStorageKey: g.chars(86, B64) + '==',
  azureSasSig: encodeURIComponent(g.bytes(32).toString('base64')),
  azureClientSecret: g.chars(3, ALNUM) + '8Q~' + g.chars(34, ALNUM + '_~.-'),
  githubPat: 'ghp_' + g.chars(36),
  githubFineGrained: 'github_pat_' + g.chars(22) + '_' + g.chars(59),
  githubOauth: 'gho_' + g.chars(36),
  githubUserToServer: 'ghu_' + g.chars(36),
  githubInstallation: 'ghs_' + g.chars(36),
  githubRefresh: 'ghr_' + g.chars(76),
  gitlabPat: 'glpat-' + g.chars(20, B64URL),
  gitlabRunner: 'glrt-' + g.chars(20, B64URL),
  gitlabDeploy: 'gldt-' + g.chars(20, B64URL),
  gitlabRegistration: 'GR1348941' + g.chars(20, B64URL),
  anthropic: 'sk-ant-api03-' + g.chars(93, B64URL) + 'AA',
  anthropicOauth: 'sk-ant-oat01-' + g.chars(93, B64URL) + 'AA',
  openaiProject: 'sk-proj-' + g.chars(156, B64URL),
  openaiUser: 'sk-' + g.chars(20) + 'T3BlbkFJ' + g.chars(20),
  deepseek: 'sk-' + g.chars(32, HEX),
  huggingface: 'hf_' + g.chars(34, UPPER + LOWER),
  slackBot: 'xoxb-' + g.chars(12, DIGITS) + '-' + g.chars(13, DIGITS) + '-' + g.chars(24),
  slackUser: 'xoxp-' + g.chars(12, DIGITS) + '-' + g.chars(12, DIGITS) + '-' + g.chars(13, DIGITS) + '-' + g.chars(32, HEX),
  slackApp: 'xapp-1-A' + g.chars(10, UPPER + DIGITS) + '-' + g.chars(13, DIGITS) + '-' + g.chars(64, HEX),
  slackWebhook: 'https://hooks.slack.com/services/T' + g.chars(8, UPPER + DIGITS) + '/B' + g.chars(8, UPPER + DIGITS) + '/' + g.chars(24),
  stripeLive: 'sk_live_' + g.chars(24),
  stripeRestricted: 'rk_test_' + g.chars(24),
  stripeWebhook: 'whsec_' + g.chars(32),
  twilioKey: 'SK' + g.chars(32, HEX),
  sendgrid: 'SG.' + g.chars(22, B64URL) + '.' + g.chars(43, B64URL),
  npm: 'npm_' + g.chars(36),
  pypi: 'pypi-AgEIcHlwaS5vcmc' + g.chars(140, B64URL),
  jwt: `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url('{"sub":"1234567890","name":"Alice","iat":1790000000}')}.${g.chars(43, B64URL)}`,
  bearer: g.chars(40, B64URL),
  basicAuth: Buffer.from(`alice:${g.chars(14)}`).toString('base64'),
  apiKeyHeader: g.chars(32, HEX),
  dbPassword: g.chars(18),
  envPassword: 'Tr0ub4dor&3x',
  rsaKey: pem('RSA PRIVATE KEY', 600),
  ecKey: pem('EC PRIVATE KEY', 120),
  pkcs8Key: pem('PRIVATE KEY', 900),
  opensshKey: pem('OPENSSH PRIVATE KEY', 400),
  encryptedKey: pem('RSA PRIVATE KEY', 600, 'Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,' + g.chars(32, HEX.toUpperCase()) + '\n\n'),
  pgpKey: pem('PGP PRIVATE KEY BLOCK', 700, 'Comment: alice\n\n'),
  highEntropy: g.chars(32),
};

/** The structural values a redactor must never touch (ids, hashes, signatures, opaque blobs, images). */
export const STRUCTURAL = {
  uuid: '9a1dc580-54f5-46ea-bece-7461fb46da3a',
  uuidv7: '01a22ad9-7cda-7dc3-af4a-0f4bdf56c072',
  uuidUpper: 'E05D2652-6A94-447F-8B60-CDED66E4199A',
  gitSha: g.chars(40, HEX),
  shortSha: g.chars(7, HEX),
  sha256: g.chars(64, HEX),
  sha256Prefixed: 'sha256:' + g.chars(64, HEX),
  sha512Hex: g.chars(128, HEX),
  md5: g.chars(32, HEX),
  // Anthropic thinking signatures are base64 of a protobuf, a few hundred to a few thousand bytes.
  thinkingSignature: 'EqQB' + g.bytes(600).toString('base64'),
  // An 8×8 PNG (header, then deflate data) as base64, like an image block's `data`.
  pngBase64: Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d4948445200000008000000080806000000c40fbe8b', 'hex'), g.bytes(300)]).toString('base64'),
  pngDataUrl: 'data:image/png;base64,' + Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), g.bytes(200)]).toString('base64'),
  // Codex / OpenAI `encrypted_content`: a Fernet token, urlsafe base64 starting gAAAAA.
  encryptedContent: 'gAAAAAB' + g.bytes(1500).toString('base64url') + '==',
  toolUseId: 'toolu_01' + g.chars(22),
  callId: 'call_' + g.chars(24),
  callIdCodex: 'call_' + g.chars(24, LOWER + DIGITS),
  messageId: 'msg_01' + g.chars(22),
  requestId: 'req_011C' + g.chars(20),
  npmIntegrity: 'sha512-' + g.bytes(64).toString('base64'),
  npmIntegritySha1: 'sha1-' + g.bytes(20).toString('base64'),
  sessionId: 'sess_' + g.chars(32, HEX),
  checksum: 'sha256:' + g.chars(64, HEX),
  ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
  piId: g.chars(8, HEX),
  hermesSession: '20261130_051619_bb4de5',
  opencodeSession: 'ses_dd50d7ac9ffeopDbUmApW0BTAX',
  semver: '2.1.332',
  isoTime: '2026-11-30T05:06:52.123Z',
  path: '/home/alice/acme-api/src/routes/todos.js',
  gitRemote: 'git@github.com:acme/acme-api.git',
  httpsRemote: 'https://github.com/acme/acme-api.git',
  npmResolved: 'https://registry.npmjs.org/yargs/-/yargs-18.2.0.tgz',
};
