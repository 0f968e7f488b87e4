// The rule set: for every built-in rule, true positives (the exact secret span is found, by that
// rule) and near misses (that rule stays silent); benign text and the structural-value corpus give
// no finding at all; every rule stays linear on 1 MB adversarial input.
import { describe, expect, it } from 'vitest';
import { BUILTIN_RULES } from '../lib/redact/rules.js';
import { Detector } from '../lib/redact/detector.js';
import { Scanner } from '../lib/redact/walker.js';
import { classifyKey } from '../lib/redact/assign.js';
import { FAKE, STRUCTURAL, generator, ALNUM, HEX, B64 } from './support/fakeSecrets.js';

const detector = new Detector(BUILTIN_RULES);
const scanner = new Scanner(detector);
const found = (text: string, key?: string) => detector.scan(text, key).map((f) => ({ rule: f.rule.id, secret: text.slice(f.start, f.end) }));
const g = generator(7);

interface Case {
  /** [text, the secret in it that this rule must report]. */
  positives: Array<[string, string]>;
  /** [member name, value, the secret]: the JSON field check. */
  fields?: Array<[string, string, string]>;
  /** Texts this rule must not report anything in. */
  negatives: string[];
}

const F = FAKE;
const GENERIC_VALUE = g.chars(24);
const CASES: Record<string, Case> = {
  'private-key': {
    positives: [
      [`$ cat id_rsa\n${F.rsaKey}\n$ `, F.rsaKey],
      [`key:\n${F.ecKey}`, F.ecKey],
      [F.pkcs8Key, F.pkcs8Key],
      [`${F.opensshKey}\n`, F.opensshKey],
      [F.encryptedKey, F.encryptedKey],
      [`gpg --export-secret-keys -a\n${F.pgpKey}`, F.pgpKey],
      // A GCP service-account key file printed as JSON: the PEM with JSON-escaped newlines.
      [`{"type": "service_account", "project_id": "acme", "private_key_id": "${HEX.repeat(2)}", "private_key": "${F.pkcs8Key.replace(/\n/g, '\\n')}\\n", "client_email": "ci@acme.iam.gserviceaccount.com"}`, F.pkcs8Key.replace(/\n/g, '\\n')],
      // Output cut by head: no END line, the key is still taken as far as it goes.
      [`${F.rsaKey.slice(0, 300)}`, F.rsaKey.slice(0, 300)],
    ],
    negatives: [
      '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----',
      '-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n-----END CERTIFICATE-----',
      'Store the private key in the vault, never in the repo.',
      '-----BEGIN private key-----',
    ],
  },
  'aws-access-key-id': {
    positives: [
      [`aws_access_key_id = ${F.awsKeyId}`, F.awsKeyId],
      [`"AccessKeyId": "${F.awsTempKeyId}",`, F.awsTempKeyId],
      [`X-Amz-Credential=${F.awsKeyId}/20261130/us-east-1/s3/aws4_request`, F.awsKeyId],
      // trufflehog's alphabet: digits 0, 1, 8, 9 too.
      ['key AKIA0123456789ABCDEF here', 'AKIA0123456789ABCDEF'],
      ['ABIA9Z8Y7X6W5V4U3T2S', 'ABIA9Z8Y7X6W5V4U3T2S'],
      // Any value under an *_ACCESS_KEY_ID name (MinIO, R2, other S3-compatible stores).
      ['export R2_ACCESS_KEY_ID=9f3b2c71e6d84a05b7c1', '9f3b2c71e6d84a05b7c1'],
      ['MINIO_ACCESS_KEY_ID: "minio4dmin77"', 'minio4dmin77'],
    ],
    negatives: [
      `AKIA${F.awsKeyId.slice(4, 19)}`, // 15 characters
      `X${F.awsKeyId}`, // inside a longer word
      `${F.awsKeyId}Z`,
      'AKIB0123456789ABCDEF', // not one of the four prefixes
      'AWS_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID', // a reference
      'AWS_ACCESS_KEY_ID=<your-access-key-id>',
      'aws_access_key_id = AWS_ACCESS_KEY_ID',
      'akia' + F.awsKeyId.slice(4).toLowerCase(),
      'The ASIA region and AKIA prefix are documented.',
      'AccessKeyId: "AKIAIOSFODNN7EXAMPLE",', // the documentation's own sample
    ],
  },
  'aws-secret-access-key': {
    positives: [
      [`aws_secret_access_key = ${F.awsSecret}`, F.awsSecret],
      [`export AWS_SECRET_ACCESS_KEY=${F.awsSecret}`, F.awsSecret],
      [`{"SecretAccessKey": "${F.awsSecret}", "SessionToken": "x"}`, F.awsSecret],
    ],
    fields: [['SecretAccessKey', F.awsSecret, F.awsSecret]],
    negatives: [
      `aws_secret_access_key = ${F.awsSecret.slice(0, 39)}`,
      `sha: ${F.awsSecret}`,
      `aws_secret_access_key = ${F.awsSecret}A`,
      'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    ],
  },
  'google-api-key': {
    positives: [
      [`GEMINI_API_KEY=${F.googleApiKey}`, F.googleApiKey],
      [`https://maps.googleapis.com/maps/api/geocode/json?key=${F.googleApiKey}&address=x`, F.googleApiKey],
    ],
    negatives: [F.googleApiKey.slice(0, 38), `x${F.googleApiKey}`, `${B64.slice(0, 20)}${F.googleApiKey}`],
  },
  'google-oauth-client-secret': {
    positives: [[`"client_secret":"${F.googleClientSecret}"`, F.googleClientSecret]],
    negatives: [F.googleClientSecret.slice(0, 30), 'GOCSPX-'],
  },
  'google-oauth-token': {
    positives: [
      [`Authorization: Bearer ${F.googleAccessToken}`, F.googleAccessToken],
      [`refresh_token: ${F.googleRefreshToken}`, F.googleRefreshToken],
    ],
    negatives: ['ya29.short', 'see ya29.html', '1//0 comment'],
  },
  'azure-storage-key': {
    positives: [[`DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${F.azureStorageKey};EndpointSuffix=core.windows.net`, F.azureStorageKey]],
    negatives: [`AccountKey=${F.azureStorageKey.slice(10)}`, 'AccountKey=<your key>'],
  },
  'azure-sas-signature': {
    positives: [
      [`https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-01T00:00:00Z&spr=https&sig=${F.azureSasSig}`, F.azureSasSig],
    ],
    negatives: [`https://example.com/?sig=${F.azureSasSig}`, 'sv=2022-11-02&sig=short'],
  },
  'azure-ad-client-secret': {
    positives: [[`AZURE_CLIENT_SECRET=${F.azureClientSecret}`, F.azureClientSecret]],
    negatives: ['abcQ~' + 'x'.repeat(34), `${F.azureClientSecret.slice(0, 20)}`, 'a~b Q~ c'],
  },
  'github-pat': {
    positives: [
      [`git clone https://${F.githubPat}@github.com/acme/api.git`, F.githubPat],
      [`GITHUB_TOKEN=${F.githubPat}`, F.githubPat],
      [`-H "Authorization: token ${F.githubPat}"`, F.githubPat],
    ],
    negatives: [F.githubPat.slice(0, 39), `x${F.githubPat}`, `${F.githubPat}_x`, 'ghp_', 'the ghp_ prefix marks classic tokens'],
  },
  'github-fine-grained-pat': {
    positives: [[`token: ${F.githubFineGrained}`, F.githubFineGrained]],
    negatives: [F.githubFineGrained.slice(0, 60), 'github_pat_ tokens are fine-grained'],
  },
  'github-oauth-token': { positives: [[`oauth ${F.githubOauth}`, F.githubOauth]], negatives: [F.githubOauth.slice(0, 30)] },
  'github-app-token': {
    positives: [
      [`https://x-access-token:${F.githubInstallation}@github.com/acme/api`, F.githubInstallation],
      [`GH_TOKEN=${F.githubUserToServer}`, F.githubUserToServer],
    ],
    negatives: [F.githubInstallation.slice(0, 30), 'ghs_abc'],
  },
  'github-refresh-token': { positives: [[`"refresh_token": "${F.githubRefresh}"`, F.githubRefresh]], negatives: ['ghr_' + 'a1'.repeat(10)] },
  'gitlab-pat': {
    positives: [[`PRIVATE-TOKEN: ${F.gitlabPat}`, F.gitlabPat], [`glab auth login --token ${F.gitlabPat}`, F.gitlabPat]],
    negatives: [F.gitlabPat.slice(0, 20), 'glpat-example'],
  },
  'gitlab-token': {
    positives: [
      [`gitlab-runner register --token ${F.gitlabRunner}`, F.gitlabRunner],
      [`deploy: ${F.gitlabDeploy}`, F.gitlabDeploy],
      [`--registration-token ${F.gitlabRegistration}`, F.gitlabRegistration],
    ],
    negatives: ['glrt-short', 'GR1348941', `xglrt-${F.gitlabRunner.slice(5)}`],
  },
  'anthropic-api-key': {
    positives: [
      [`export ANTHROPIC_API_KEY=${F.anthropic}`, F.anthropic],
      [`CLAUDE_CODE_OAUTH_TOKEN=${F.anthropicOauth}`, F.anthropicOauth],
    ],
    negatives: ['sk-ant-api03-short', 'export ANTHROPIC_API_KEY=sk-ant-...', 'sk-ant-'],
  },
  'openai-api-key': {
    positives: [
      [`OPENAI_API_KEY="${F.openaiProject}"`, F.openaiProject],
      [`client = OpenAI(api_key="${F.openaiUser}")`, F.openaiUser],
    ],
    negatives: ['sk-proj-abc', 'sk-proj-...', `xsk-proj-${F.openaiProject.slice(8)}`],
  },
  'sk-api-key': {
    positives: [[`DEEPSEEK_API_KEY=${F.deepseek}`, F.deepseek]],
    negatives: [F.deepseek.slice(0, 34), 'sk-' + 'a'.repeat(40), `task-${F.deepseek.slice(3)}`, 'risk-assessment-and-mitigation-plan-for-q3'],
  },
  'huggingface-token': {
    positives: [[`huggingface-cli login --token ${F.huggingface}`, F.huggingface]],
    negatives: ['hf_downloadmodelweightsfromthehubxx', F.huggingface.slice(0, 30), `from hf_hub import hf_hub_download`],
  },
  'slack-token': {
    positives: [
      [`SLACK_BOT_TOKEN=${F.slackBot}`, F.slackBot],
      [`token=${F.slackUser}`, F.slackUser],
      [`SLACK_APP_TOKEN=${F.slackApp}`, F.slackApp],
    ],
    negatives: ['xoxb-abc', 'xoxb-your-bot-token-here', 'xapp-1-X'],
  },
  'slack-webhook': {
    positives: [[`curl -X POST -d '{"text":"hi"}' ${F.slackWebhook}`, F.slackWebhook]],
    negatives: ['https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX', 'https://hooks.slack.com/services/'],
  },
  'stripe-secret-key': {
    positives: [
      [`Stripe::api_key = '${F.stripeLive}'`, F.stripeLive],
      [`STRIPE_KEY=${F.stripeRestricted}`, F.stripeRestricted],
    ],
    negatives: [`pk_live_${F.stripeLive.slice(8)}`, 'sk_live_short', 'sk_test_' + 'x'.repeat(24)],
  },
  'stripe-webhook-secret': { positives: [[`STRIPE_WEBHOOK_SECRET=${F.stripeWebhook}`, F.stripeWebhook]], negatives: ['whsec_short', 'whsec_' + 'a'.repeat(32)] },
  'twilio-api-key': {
    positives: [[`TWILIO_API_KEY=${F.twilioKey}`, F.twilioKey]],
    negatives: [F.twilioKey.slice(0, 33), `A${F.twilioKey}`, 'SK' + '0'.repeat(32), 'ask the task desk'],
  },
  'sendgrid-api-key': { positives: [[`SENDGRID_API_KEY=${F.sendgrid}`, F.sendgrid]], negatives: [F.sendgrid.slice(0, 60), 'SG.example'] },
  'npm-token': {
    positives: [[`NPM_TOKEN=${F.npm}`, F.npm]],
    negatives: [F.npm.slice(0, 39), 'npm_config_cache_directory_location', 'npm_' + 'a'.repeat(36)],
  },
  'npmrc-auth': {
    positives: [
      [`//registry.npmjs.org/:_authToken=${STRUCTURAL.uuid}`, STRUCTURAL.uuid],
      [`_auth = ${F.basicAuth}`, F.basicAuth],
    ],
    negatives: ['//registry.npmjs.org/:_authToken=${NPM_TOKEN}', '_auth=short', 'token_endpoint_auth: BetaManagedAgentsTokenEndpointAuth'],
  },
  'pypi-token': { positives: [[`password = ${F.pypi}`, F.pypi]], negatives: ['pypi-AgEshort', 'pypi-token'] },
  jwt: {
    positives: [
      [`id_token=${F.jwt}`, F.jwt],
      [`{"access_token":"${F.jwt}","expires_in":3600}`, F.jwt],
    ],
    negatives: [F.jwt.split('.')[0], `${F.jwt.split('.')[0]}.notjson.sig`, `x${F.jwt}`],
  },
  'auth-header': {
    positives: [
      [`curl -H "Authorization: Bearer ${F.bearer}" https://api.acme.dev`, F.bearer],
      [`Authorization: Basic ${F.basicAuth}`, F.basicAuth],
      [`headers = {"Authorization": "Bearer ${F.bearer}"}`, F.bearer],
      [`bearer ${F.bearer}`, F.bearer],
    ],
    fields: [
      ['Authorization', `Bearer ${F.bearer}`, F.bearer],
      ['proxy-authorization', `Basic ${F.basicAuth}`, F.basicAuth],
    ],
    negatives: [
      'Authorization: Bearer $TOKEN',
      'Authorization: Bearer ${API_TOKEN}',
      'Authorization: Bearer <token>',
      'Authorization: Bearer YOUR_ACCESS_TOKEN',
      'The bearer token goes in the Authorization header.',
      'Authorization: Bearer ...',
    ],
  },
  'api-key-header': {
    positives: [
      [`curl -H 'x-api-key: ${F.apiKeyHeader}' https://api.acme.dev`, F.apiKeyHeader],
      [`X-Goog-Api-Key: ${F.apiKeyHeader}`, F.apiKeyHeader],
    ],
    fields: [['X-Api-Key', F.apiKeyHeader, F.apiKeyHeader]],
    negatives: ['x-api-key: $ANTHROPIC_API_KEY', 'x-api-key: <key>', 'The x-api-key header carries the key.'],
  },
  'url-credentials': {
    positives: [
      [`DATABASE_URL=postgres://app:${F.dbPassword}@db.internal:5432/app`, F.dbPassword],
      [`mongodb+srv://alice:${F.dbPassword}@cluster0.abcde.mongodb.net/?retryWrites=true`, F.dbPassword],
      [`redis://:${F.dbPassword}@cache:6379/0`, F.dbPassword],
      [`amqp://guest:${F.envPassword}@rabbit/`, F.envPassword],
    ],
    negatives: [
      'postgres://user:password@localhost/db',
      'postgres://app:${DB_PASSWORD}@db/app',
      'https://alice@github.com/acme/api.git',
      'http://localhost:8080/path',
      'postgres://app:****@db/app',
      'http://proxy:3128@host',
      "const myURL = new URL('https://abc:xyz@example.com');",
      `https://alice:${F.dbPassword}@db.example.org/app`,
    ],
  },
  'connection-string-password': {
    positives: [
      [`Server=db.acme.internal;Database=app;User Id=app;Password=${F.dbPassword};`, F.dbPassword],
      [`"Data Source=tcp:acme.database.windows.net,1433;Initial Catalog=app;User ID=app;Pwd=${F.envPassword}"`, F.envPassword],
    ],
    negatives: [
      `Password=${F.dbPassword}`,
      'Server=db;Database=app;User Id=app;Password=<password>;',
      'Server=db;Password=;',
      `[database]\nuser = dbuser\npassword = ${F.dbPassword}\ndatabase = app; more`,
    ],
  },
  'url-secret-param': {
    positives: [
      [`https://api.acme.dev/v1/items?access_token=${F.bearer}&page=2`, F.bearer],
      [`https://acme.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=${STRUCTURAL.sha256}`, STRUCTURAL.sha256],
      [`jdbc:mysql://db:3306/app?user=root&password=${F.dbPassword}`, F.dbPassword],
    ],
    negatives: ['https://acme.dev/?token=abc', 'https://acme.dev/login?password=&user=x', 'https://acme.dev/?page=2&api_key=YOUR_API_KEY'],
  },
  'secret-assignment': {
    positives: [
      [`DB_PASSWORD=${F.envPassword}`, F.envPassword],
      [`export SESSION_SECRET="${F.dbPassword}"`, F.dbPassword],
      [`  password: hunter2-Correct\n  user: app`, 'hunter2-Correct'],
      [`{"client_secret": "${F.dbPassword}", "client_id": "x"}`, F.dbPassword],
      [`api_key = '${F.dbPassword}'`, F.dbPassword],
      [`'db_password' => '${F.envPassword}',`, F.envPassword],
      [`PGPASSWORD=${F.dbPassword} psql -h db`, F.dbPassword],
      [`ENCRYPTION_KEY=${F.highEntropy}`, F.highEntropy],
      [`cache_key=${F.highEntropy}`, F.highEntropy],
      [`TWILIO_AUTH_TOKEN=${STRUCTURAL.md5}`, STRUCTURAL.md5],
      [`posthog_project_api_key = '${F.huggingface.replace('hf_', 'phc_')}'`, F.huggingface.replace('hf_', 'phc_')],
      [`secretKey: ${F.dbPassword}\n`, F.dbPassword],
      ['SECRET=plainword\n', 'plainword'],
      ['data:\n  password: cGFzc3dvcmQxMjM=\n  username: YWRtaW4=', 'cGFzc3dvcmQxMjM='],
      ['ADMIN_PASSWORD="correct horse battery staple"', 'correct horse battery staple'],
      ['services:\n  db:\n    environment:\n      MYSQL_ROOT_PASSWORD: r00tpw\n', 'r00tpw'],
    ],
    fields: [
      ['password', 'hunter22', 'hunter22'],
      ['apiKey', F.dbPassword, F.dbPassword],
      ['DB_PASSWORD', F.envPassword, F.envPassword],
      ['key', F.highEntropy, F.highEntropy],
    ],
    negatives: [
      'password: string;',
      'const token = await getToken();',
      'token = get_token(user)',
      'PASSWORD=$DB_PASSWORD',
      'password = os.environ["DB_PASSWORD"]',
      'max_tokens = 4096',
      'token_count: 12345',
      'secret_name: prod-db',
      'result.apiKey = args[++i];',
      'const token = response.data.token;',
      'PWD=/home/alice/acme-api',
      'key: "todos"',
      `cache_key: "${STRUCTURAL.sha256}"`,
      'export OPENAI_API_KEY=your-api-key-here',
      'password: ********',
      'token: null',
      '{ token: accessToken }',
      'if (password == confirm) {',
      `"key": "${STRUCTURAL.uuid}"`,
      'Tokens: 12 passed, 0 failed',
      'auth: { user, pass }',
      // Code and docs from node_modules that an earlier version took for secrets.
      'secretKey: Uint8Array;',
      'export declare const gcm: (key: TArg<Uint8Array>, nonce: TArg<Uint8Array>) => Cipher;',
      'readonly STENCIL_PASS_DEPTH_PASS: 0x0B96;',
      "const ai = new GoogleGenAI({apiKey: 'GEMINI_API_KEY'});",
      'readonly AWS_SECRET_KEY: "AWS_SECRET_KEY";',
      "headers: { 'X-TOKEN-SECRET': 'SuperSecretToken' },",
      "const password = 'Password used to generate key';",
      'nextToken: "STRING_VALUE",',
      'lastSignificantToken = "?NoLineTerminatorHere";',
      'fetch(url, { credentials: "same-origin" })',
      "this.credentials = { refresh_token: 'jwt-placeholder', expiry_date: 1 };",
      "const SIDEBAR_WIDTH_STORAGE_KEY = 'pi-share:v1:sidebar-width';",
      'const pass = !this.result.issues;',
      'const StatusMap = { fail: "failed", pass: "passed" };',
      'exports.SignatureV4SignWithCredentials = SignatureV4SignWithCredentials;',
      "t.equal(uri, 'x:/resource?key=value%23still-query#first')",
      'readonly X_AWS_EC2_METADATA_TOKEN = "x-aws-ec2-metadata-token";',
      'export declare const TOKEN: CharList;',
    ],
  },
  'cli-password': {
    positives: [
      ['mysql -u root -pS3cr3tPw! appdb', 'S3cr3tPw!'],
      ["mysqldump -h db -u app -p'Qz8 pass' app > dump.sql", 'Qz8 pass'],
      ['mytool --password Pw9xyz77 --verbose', 'Pw9xyz77'],
      ['mytool --password=hunterpass', 'hunterpass'],
      ['gh auth login --token abcd1234efgh5678', 'abcd1234efgh5678'],
      ['deploy --db-password "c0rrect horse" --yes', 'c0rrect horse'],
      ['docker login -u ci -p dckrPw55x registry.acme.dev', 'dckrPw55x'],
      ['podman login quay.io -u me -p Qu4yPw!!', 'Qu4yPw!!'],
      ['curl -u admin:Adm1nPw -X POST https://api.acme.dev', 'Adm1nPw'],
      ['curl --user "deploy:D3pl0y!x" https://x.dev', 'D3pl0y!x'],
      ['redis-cli -h cache -a Zx9pass3 ping', 'Zx9pass3'],
      ['sshpass -p Hunter2x ssh deploy@web1', 'Hunter2x'],
      ['{"command":"mysql -uroot -pRootPw77 -e \\"show databases\\""}', 'RootPw77'],
    ],
    negatives: [
      'mysql -u root -p appdb', // prompts; appdb is the database
      'mysql -u root -p', // prompts
      'see the --password flag in the docs',
      'docker login --password-stdin < token.txt',
      'gh auth login --with-token < token.txt',
      'mytool --token-file ~/.config/token',
      'mytool --password "$DB_PASSWORD"',
      'mytool --token ${GITHUB_TOKEN}',
      'mytool --password <password>',
      'curl -u admin https://api.acme.dev', // prompts
      'curl -u "$USER:$PASS" https://x.dev',
      'redis-cli -a $REDIS_PASSWORD ping',
      'sshpass -p "$SSHPASS" ssh web1',
      'mkdir -p build && tar -xzf a.tgz',
      'ls --all -- --password',
    ],
  },
  'netrc-password': {
    positives: [
      ['machine api.heroku.com login me@acme.dev password 9f8e7d6c-b5a4', '9f8e7d6c-b5a4'],
      ['$ cat ~/.netrc\nmachine ci.acme.dev login bot password B0tPass!x\n', 'B0tPass!x'],
      ['machine github.com\n  login octo\n  password Gh0stPass\n', 'Gh0stPass'],
      ['default login anonymous password An0nPw!', 'An0nPw!'],
    ],
    negatives: [
      'machine learning password reset',
      'machine github.com login octo password $GH_TOKEN',
      'the machine asked for a password twice',
    ],
  },
  'pgpass-password': {
    positives: [
      ['localhost:5432:appdb:postgres:S3cretPg', 'S3cretPg'],
      ['$ cat ~/.pgpass\ndb.internal:*:*:app:Pg\\:pass7\n', 'Pg\\:pass7'], // `\:` is an escaped colon
      ['*:6432:*:replicator:R3pl!cat0r\n', 'R3pl!cat0r'],
    ],
    negatives: [
      'localhost:5432:appdb:postgres:*',
      'localhost:5432:appdb:postgres:$PGPASSWORD',
      'at 12:30:45:123 the job ran', // a timestamp
      'ERROR 2026-11-30 05:43:21:5432:db:x failed here and there', // more on the line after a space
    ],
  },
  'yaml-password': {
    positives: [
      ['db:\n  user: app\n  pass: Hunter2!x\n', 'Hunter2!x'],
      ['smtp:\n  passwd: "Qw3rty!"\n', 'Qw3rty!'],
      ['- pass: s3cr3t-pw # rotate monthly\n', 's3cr3t-pw'],
    ],
    negatives: [
      'results:\n  pass: failed\n',
      'results:\n  pass: 12\n',
      'stats:\n  pass: true\n',
      '  pass: ${SMTP_PASS}\n',
      'checks = { pass: "yes", fail: "no" }',
      '  pass: hunter22 and more text after it\n', // not a YAML scalar ending the line
    ],
  },
  'generic-secret': {
    positives: [
      [`stripeKeyProd = "${GENERIC_VALUE}"`, GENERIC_VALUE],
      [`auth_header_value: ${F.highEntropy}`, F.highEntropy],
      [`const apiKeyForTests = '${F.highEntropy}';`, F.highEntropy],
      // Hex counts under a secret-ish name (it is exempt only under other names).
      [`webhook_signing_secret_v2 = "${HEX.repeat(2)}"`, HEX.repeat(2)],
    ],
    negatives: [
      `commit = "${HEX.repeat(2)}5a5a5a5a"`, // hex under another name
      `api_request_id = "req_011CloHYg9nqXMggwh8G1P19"`, // an id, by its name
      `token_count = "${'1a'.repeat(8)}"`, // a count, by its name
      'cache_key = "item_12_name"', // words
      'key: "src/routes/todos.js"',
      'apiVersion: "2024-11-05"',
      `key = "${STRUCTURAL.uuid}"`,
      'api_key = "aaaaaaaa11"', // too short, and too plain, to be random
      'token = this.session.token2',
    ],
  },
  'encoded-secret': {
    positives: [
      [`echo ${Buffer.from(F.githubPat).toString('base64')}`, Buffer.from(F.githubPat).toString('base64')],
      // Basic auth pair, the token 5 bytes in (the other base64 alignment).
      [`Authorization header was ${Buffer.from(`x:${F.githubPat}`).toString('base64')}`, Buffer.from(`x:${F.githubPat}`).toString('base64')],
      // A list item of base64 (no name that says secret: only the decoding tells).
      [`values:\n  - ${Buffer.from(F.slackBot).toString('base64')}\n`, Buffer.from(F.slackBot).toString('base64')],
      [`?redirect=token%3D${F.githubPat}&x=1`, F.githubPat],
      [`q=%22${encodeURIComponent(F.anthropic)}%22`, encodeURIComponent(F.anthropic)],
    ],
    negatives: [
      Buffer.from('just some text that is long enough').toString('base64'),
      Buffer.from('ghp_short').toString('base64'),
      `50%25 done, %2F is a slash`,
      STRUCTURAL.pngBase64.slice(0, 4000),
      `${'A'.repeat(5000)}%3D${F.githubPat}`.slice(-4200), // over 4 KB: not decoded (the plain rule would be the one to say)
    ],
  },
  'high-entropy-secret': {
    positives: [
      [`my api key is ${F.highEntropy}`, F.highEntropy],
      [`the token ${F.highEntropy} expires tomorrow`, F.highEntropy],
    ],
    negatives: [
      `session token ${STRUCTURAL.uuid}`,
      `secret sha ${STRUCTURAL.gitSha}`,
      'the token budget is 200000 tokens',
      'password reset flow for src/routes/password/reset.js',
      `token ${'ab'.repeat(16)}`,
      "betas: 'token-counting-2024-11-01' | 'token-efficient-tools-2025-02-19'",
    ],
  },
};

describe('rule set', () => {
  it('has test cases for every built-in rule, and ids fit placeholders', () => {
    expect(Object.keys(CASES).sort()).toEqual(BUILTIN_RULES.map((r) => r.id).sort());
    for (const r of BUILTIN_RULES) {
      expect(r.id).toMatch(/^[a-z0-9][a-z0-9-]*$/);
      expect(r.description.length).toBeGreaterThan(10);
    }
  });

  describe.each(Object.entries(CASES))('%s', (id, c) => {
    it('finds its secrets, exactly', () => {
      expect(c.positives.length).toBeGreaterThan(0);
      for (const [text, secret] of c.positives) {
        expect(text).toContain(secret);
        expect(found(text), text).toContainEqual({ rule: id, secret });
      }
      for (const [key, value, secret] of c.fields ?? []) expect(found(value, key), `${key}: ${value}`).toContainEqual({ rule: id, secret });
    });

    it('stays silent on near misses', () => {
      expect(c.negatives.length).toBeGreaterThan(0);
      for (const text of c.negatives) expect(found(text).filter((f) => f.rule === id), text).toEqual([]);
    });

    it('keywords hold for every true positive (the prefilter never hides one)', () => {
      const rule = BUILTIN_RULES.find((r) => r.id === id)!;
      for (const [text] of c.positives) expect(rule.keywords.some((k) => text.toLowerCase().includes(k)) || rule.prefilter?.test(text), text).toBe(true);
    });
  });
});

describe('structural values', () => {
  it('none of them is taken for a secret, alone, in prose or in JSON', () => {
    for (const [name, value] of Object.entries(STRUCTURAL)) {
      expect(found(value), name).toEqual([]);
      expect(found(`id ${value} at ${name}`), name).toEqual([]);
    }
    const prose = Object.entries(STRUCTURAL).map(([k, v]) => `${k}: ${v}`).join('\n');
    expect(found(prose)).toEqual([]);
    const json = JSON.stringify({ ...STRUCTURAL, nested: { ...STRUCTURAL } });
    expect(scanner.scanString(json, undefined)).toEqual([]);
    // The same, as a native line would carry them.
    const line = JSON.stringify({
      uuid: STRUCTURAL.uuid,
      parentUuid: STRUCTURAL.uuidv7,
      message: {
        id: STRUCTURAL.messageId,
        content: [
          { type: 'thinking', thinking: 'Let me look at the route.', signature: STRUCTURAL.thinkingSignature },
          { type: 'tool_use', id: STRUCTURAL.toolUseId, name: 'Bash', input: { command: `git show ${STRUCTURAL.gitSha}` } },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: STRUCTURAL.pngBase64 } },
        ],
      },
      requestId: STRUCTURAL.requestId,
    });
    expect(scanner.scanString(line, undefined)).toEqual([]);
  });

  it('classifies member names by their last word', () => {
    expect(classifyKey('DB_PASSWORD')).toBe('password');
    expect(classifyKey('pgpassword')).toBe('password');
    expect(classifyKey('GITHUB_TOKEN')).toBe('secret');
    expect(classifyKey('clientSecret')).toBe('secret');
    expect(classifyKey('APIKey')).toBe('secret');
    expect(classifyKey('x-api-key')).toBe('secret');
    expect(classifyKey('sort_key')).toBe('weak');
    for (const k of ['token_count', 'max_tokens', 'secret_name', 'input_tokens', 'tokenizer', 'password_file', 'bypass', 'keyboard', 'monkey', 'author']) {
      expect(classifyKey(k), k).toBeUndefined();
    }
  });
});

describe('overlaps', () => {
  it('the most specific rule wins, and no span is reported twice', () => {
    expect(found(`Authorization: token ${F.githubPat}`)).toEqual([{ rule: 'github-pat', secret: F.githubPat }]);
    expect(found(`GITHUB_TOKEN=${F.githubPat}`)).toEqual([{ rule: 'github-pat', secret: F.githubPat }]);
    expect(found(`postgres://app:${F.githubPat}@db/x`)).toEqual([{ rule: 'github-pat', secret: F.githubPat }]);
    expect(found(F.openaiUser)).toEqual([{ rule: 'openai-api-key', secret: F.openaiUser }]);
    expect(found(`Authorization: Bearer ${F.jwt}`)).toEqual([{ rule: 'jwt', secret: F.jwt }]);
  });

  it('finds several secrets in one text, in order', () => {
    const text = `A=${F.awsKeyId} B=${F.githubPat}\n${F.rsaKey}\npassword: "${F.dbPassword}"`;
    expect(found(text).map((f) => f.rule)).toEqual(['aws-access-key-id', 'github-pat', 'private-key', 'secret-assignment']);
  });

  it('never reports its own placeholders (a second pass changes nothing)', () => {
    for (const text of [
      'GITHUB_TOKEN=[REDACTED:github-pat:1a2b3c4d]',
      'DB_PASSWORD=[REDACTED:secret-assignment:0badf00d]',
      'postgres://app:[REDACTED:url-credentials:12345678]@db/app',
      'Authorization: Bearer [REDACTED:auth-header:abcdef01]',
      '{"password": "[REDACTED:secret-assignment:abcdef01]"}',
    ]) {
      expect(scanner.scanString(text, undefined), text).toEqual([]);
    }
    expect(found('[REDACTED:secret-assignment:abcdef01]', 'password')).toEqual([]);
  });
});

describe('benign text', () => {
  it('real-looking prose, code and tool output give no finding', () => {
    const texts = [
      'The handler reads the todo list from the in-memory store, filters it by the query, and returns the page.',
      "export async function removeTodo(req, res) {\n  const id = Number(req.params.id);\n  if (index === -1) return res.status(404).json({ error: 'not found' });\n}",
      '测试失败了，帮我看看 test/todos.test.js 为什么报错',
      '> acme-api@1.0.0 test\n> node --test\n\n✔ DELETE /todos/:id removes the todo (3.1ms)\nℹ tests 5\nℹ pass 5\nℹ fail 0',
      'commit 3f9ad6b9d7b7e8e5a1a5a9a7b0b0b0b0a1a5a9a7\nAuthor: Alice <alice@acme.dev>\nDate:   Mon Nov 30 05:06:52 2026 +0000',
      'const { token } = req.headers; if (!token) return res.sendStatus(401);',
      'function hashPassword(password) { return bcrypt.hash(password, 10); }',
      'Use `gh auth token` to print the token, and never commit .env files.',
      '"dependencies": { "jsonwebtoken": "^9.0.2", "passport": "^0.7.0" }',
      'this.keyboard.press("Enter"); monkey.key = keys[0];',
      'Compare with `git diff HEAD~1 -- src/routes/todos.js` and see the task list.',
      'https://github.com/acme/acme-api/pull/42 and https://registry.npmjs.org/ are fine.',
    ];
    for (const t of texts) expect(found(t), t).toEqual([]);
  });
});

describe('no catastrophic backtracking', () => {
  // A regex with exponential or quadratic behaviour takes hours on 1 MB (10^12 steps and up); a
  // linear one, milliseconds to a few hundred. The bound is generous for a loaded CI machine and
  // still fails on anything super-linear.
  const MB = 1 << 20;
  const fill = (unit: string) => unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB);
  const generic = [
    'a'.repeat(MB),
    fill('-'),
    fill('aA0'),
    fill('key=') ,
    fill('password: '),
    fill('token '),
    fill('://a:'),
    fill('-----BEGIN RSA PRIVATE KEY-----\n'),
    fill('-----BEGIN PRIVATE KEY-----\nMIIE'),
    fill('eyJ'),
    fill('eyJ.'),
    fill('-eyJ'),
    fill('Authorization: Bearer '),
    fill('bearer '),
    fill('sk-'),
    fill('AKIA'),
    fill('Q~'),
    fill('?sig='),
    fill('hooks.slack.com/services/'),
    fill('Server=x;Password=y;'),
    fill('"password":"'),
    fill('\\n'),
    fill(' '),
    g.chars(MB, ALNUM + '+/=_-.~:'),
  ];

  it.each(BUILTIN_RULES.map((r) => r.id))('%s stays linear on 1 MB near misses', (id) => {
    const rule = BUILTIN_RULES.find((r) => r.id === id)!;
    const samples = CASES[id].positives.map(([, s]) => s);
    const inputs = [
      ...generic,
      // The rule's own secrets with the last character cut, repeated back to back and spaced.
      ...samples.flatMap((s) => [fill(s.slice(0, -1)), fill(`${s.slice(0, -1)} `), fill(s.slice(0, Math.ceil(s.length / 2)))]),
      ...rule.keywords.map((k) => fill(k)),
    ];
    let worst = 0;
    for (const input of inputs) {
      const start = performance.now();
      let n = 0;
      for (const _ of rule.find(input)) if (++n > 1e6) break;
      worst = Math.max(worst, performance.now() - start);
    }
    expect(worst).toBeLessThan(8000);
  });

  it('the whole detector (prefilter, field checks, overlap) stays linear too', () => {
    for (const input of [fill('ghp_' + 'a1'.repeat(18) + ' '), fill(`${F.awsKeyId} `), fill('password=hunter22 '), fill(`${F.rsaKey}\n`)]) {
      const start = performance.now();
      detector.scan(input);
      expect(performance.now() - start).toBeLessThan(10_000);
    }
  });
});
