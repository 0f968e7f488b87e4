// The kinds of secret the end-to-end test (secrets-e2e.test.ts) pastes into a session and then
// looks for everywhere the session can end up. One entry per kind: `text` is how a user or a tool
// would write it (some rules need the name next to the value), `value` the secret that must never
// come out. Values come from the seeded fake generator (support/fakeSecrets.ts): well-formed, never
// real. Add new kinds here as the rules learn them; every entry must be caught by the rules in force.
import { FAKE } from '../support/fakeSecrets.js';

export interface SecretKind {
  kind: string;
  /** The secret itself: what must not be found anywhere afterwards. */
  value: string;
  /** The line that carries it, as pasted into a prompt or a command. */
  text: string;
}

const F = FAKE;
const dbPassword = `pg${F.dbPassword}`;
const urlPassword = `Mq${F.dbPassword.slice(2)}x9`;
// A token inside base64 (a config blob pasted whole): the rules decode short strings one level.
const encodedToken = Buffer.from('token=ghp_Zq7TmW3kR9vX2pL8sN4yB6cD1fH5jK0aE7gQ').toString('base64');

export const SECRET_KINDS: SecretKind[] = [
  { kind: 'aws-access-key-id', value: F.awsKeyId, text: `AWS key id ${F.awsKeyId}` },
  { kind: 'aws-temporary-key-id', value: F.awsTempKeyId, text: `temporary key ${F.awsTempKeyId}` },
  { kind: 'aws-secret-access-key', value: F.awsSecret, text: `aws_secret_access_key = ${F.awsSecret}` },
  { kind: 'github-pat', value: F.githubPat, text: `GITHUB_TOKEN=${F.githubPat}` },
  { kind: 'github-fine-grained-pat', value: F.githubFineGrained, text: `token ${F.githubFineGrained}` },
  { kind: 'github-oauth', value: F.githubOauth, text: `gh auth token says ${F.githubOauth}` },
  { kind: 'gitlab-pat', value: F.gitlabPat, text: `gitlab ${F.gitlabPat}` },
  { kind: 'slack-bot-token', value: F.slackBot, text: `slack bot ${F.slackBot}` },
  { kind: 'slack-webhook', value: F.slackWebhook, text: `post to ${F.slackWebhook}` },
  { kind: 'stripe-live-key', value: F.stripeLive, text: `stripe ${F.stripeLive}` },
  { kind: 'stripe-webhook-secret', value: F.stripeWebhook, text: `webhook signing ${F.stripeWebhook}` },
  { kind: 'openai-project-key', value: F.openaiProject, text: `OPENAI_API_KEY=${F.openaiProject}` },
  { kind: 'anthropic-api-key', value: F.anthropic, text: `use ${F.anthropic} for the eval` },
  { kind: 'google-api-key', value: F.googleApiKey, text: `maps key ${F.googleApiKey}` },
  { kind: 'jwt', value: F.jwt, text: `session cookie ${F.jwt}` },
  { kind: 'rsa-private-key', value: F.rsaKey, text: `the deploy key:\n${F.rsaKey}` },
  { kind: 'openssh-private-key', value: F.opensshKey, text: `id_ed25519:\n${F.opensshKey}` },
  { kind: 'password-assignment', value: F.envPassword, text: `DB_PASSWORD=${F.envPassword}` },
  { kind: 'database-url-password', value: dbPassword, text: `DATABASE_URL=postgres://app:${dbPassword}@db.internal:5432/app` },
  { kind: 'url-basic-auth-password', value: urlPassword, text: `git clone https://alice:${urlPassword}@git.acme-corp.net/acme/api.git` },
  { kind: 'npm-token', value: F.npm, text: `//registry.npmjs.org/:_authToken=${F.npm}` },
  { kind: 'huggingface-token', value: F.huggingface, text: `HF ${F.huggingface}` },
  { kind: 'sendgrid-key', value: F.sendgrid, text: `sendgrid ${F.sendgrid}` },
  { kind: 'bearer-token', value: F.bearer, text: `curl -H "Authorization: Bearer ${F.bearer}" https://api.example.com` },
  { kind: 'pypi-token', value: F.pypi, text: `twine password ${F.pypi}` },
  // Command-line and credential-file forms, names that make any high-entropy value a secret, and an encoded token.
  { kind: 'cli-password-mysql', value: 'Wq8zT3vN6kR2', text: 'mysql -u root -pWq8zT3vN6kR2 app_db' },
  { kind: 'cli-password-flag', value: 'Lm5xQ9rT2wV7yB', text: 'pg_dump --password Lm5xQ9rT2wV7yB appdb' },
  { kind: 'cli-token-flag', value: 'tk_8fJ2mQ7vX4zR1pL9wN3s', text: 'deploy --token=tk_8fJ2mQ7vX4zR1pL9wN3s --env prod' },
  { kind: 'curl-user-password', value: 'Hn4vB8xZ2qT6', text: 'curl -u deploy:Hn4vB8xZ2qT6 https://ci.acme-corp.net/api' },
  { kind: 'sshpass-password', value: 'Rt7yU2iO9pQ4', text: 'sshpass -p Rt7yU2iO9pQ4 ssh deploy@build.acme-corp.net' },
  { kind: 'redis-cli-password', value: 'Gf3dS8aZ1xC6', text: 'redis-cli -h cache -a Gf3dS8aZ1xC6 ping' },
  { kind: 'docker-login-password', value: 'Kj9hG4fD2sA7', text: 'docker login -u ci -p Kj9hG4fD2sA7 registry.acme-corp.net' },
  { kind: 'netrc-password', value: 'Vb6nM1qW8eR3', text: 'machine api.acme-corp.net login ci password Vb6nM1qW8eR3' },
  { kind: 'pgpass-line', value: 'Yx2cV7bN4mQ9', text: 'db.acme-corp.net:5432:app:app:Yx2cV7bN4mQ9' },
  { kind: 'yaml-passwd', value: 'Pz5oI8uY3tR6', text: 'passwd: Pz5oI8uY3tR6' },
  { kind: 'access-key-id-name', value: 'MINIOKEY7Q2W9E4R1T6Y', text: 'MINIO_ACCESS_KEY_ID=MINIOKEY7Q2W9E4R1T6Y' },
  { kind: 'generic-high-entropy', value: 'q7Xv2Lp9Rz4Tm8Wn3Kb6', text: 'auth_material = "q7Xv2Lp9Rz4Tm8Wn3Kb6"' },
  { kind: 'base64-encoded-token', value: encodedToken, text: `config blob ${encodedToken}` },
];
