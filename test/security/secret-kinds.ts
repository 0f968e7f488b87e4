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
];
