#!/usr/bin/env node
// npm run demo: a real relay on a bundled fixture, end to end.
//   A Claude Code session recorded by the real client (a Chinese prompt with an image, a failing
//   test, parallel reads, a fix) is captured, redacted and verified as canonical events, written
//   as a new Codex rollout, and resumed by the real Codex CLI (installed by npm install) against a
//   local stand-in for the model API — which then shows what history the client sent.
// Everything happens in a temporary folder; nothing under your own ~/.claude or ~/.codex is touched.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { demoFolder } from './fixture-homes.mjs';
import { codexConfig, startMockResponses } from './mock-responses.mjs';

const args = process.argv.slice(2);
for (const arg of args) {
  if (arg === '--help' || arg === '-h') {
    process.stdout.write(
      'demo.mjs — a bundled Claude Code session → canonical events → a Codex rollout the real codex client resumes\n\n' +
        'Usage: demo.mjs [--dry-run] [--keep]\n\n' +
        '  --dry-run   stop before the resume step (it also stops there, with a line saying so, when no codex client is installed)\n' +
        '  --keep      keep the temporary folder (removed on exit otherwise)\n',
    );
    process.exit(0);
  }
  if (arg !== '--dry-run' && arg !== '--keep') {
    process.stderr.write(`demo: unknown option ${arg} (see --help)\n`);
    process.exit(2);
  }
}
const keep = args.includes('--keep');
// Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org).
const colour = process.stdout.isTTY === true && !process.env.NO_COLOR;
const paint = (code, text) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);

const root = new URL('..', import.meta.url).pathname;
const bin = (name) => join(root, 'dist', 'bin', `${name}.js`);
const fixture = join(root, 'fixtures/claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl');
const work = demoFolder('sp-demo-', keep);
const quote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
const step = (n, text) => console.log(`\n${paint(1, `${n}. ${text}`)}`);

if (!existsSync(bin('sp-capture'))) {
  console.error('demo: the project is not built; run npm install first');
  process.exit(2);
}

step(1, 'capture → redact → verify: the Claude Code session as canonical, hash-chained events');
const events = join(work, 'session.ndjson');
const pipeline =
  `node ${quote(bin('sp-capture'))} claude --path ${quote(fixture)}` +
  ` | node ${quote(bin('sp-redact'))}` +
  ` | tee ${quote(events)}` +
  ` | node ${quote(bin('sp-verify'))}`;
console.log(`$ sp-capture claude --path fixtures/…/9a1dc580….jsonl | sp-redact | tee session.ndjson | sp-verify`);
// SP_HOME in the work folder: sp-redact keeps its placeholder key there, not in your ~/.sp.
const captured = spawnSync('bash', ['-o', 'pipefail', '-c', pipeline], { stdio: 'inherit', env: { ...process.env, SP_HOME: join(work, 'sp-home') } });
if (captured.status !== 0) process.exit(captured.status ?? 1);
const canonical = readFileSync(events, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const count = (type) => canonical.filter((e) => e.type === type).length;
console.log(
  `${canonical.length} events: ${count('message.user')} user, ${count('message.assistant')} assistant, ${count('message.thinking')} thinking, ` +
    `${count('tool.call')} tool calls, ${count('command.run')} commands, ${count('file.edit')} file edits`,
);

step(2, 'materialize: the same session as a new Codex rollout, with the resume-safety pass and a loss ledger');
const codexHome = join(work, 'codex-home');
const cwd = join(work, 'acme-api');
mkdirSync(cwd, { recursive: true });
const mock = await startMockResponses('Picking up where Claude Code left off.');
mkdirSync(codexHome, { recursive: true });
writeFileSync(join(codexHome, 'config.toml'), codexConfig(mock.baseUrl));
console.log(`$ sp-materialize codex session.ndjson --home <tmp>/codex-home --cwd <tmp>/acme-api`);
const written = spawnSync(process.execPath, [bin('sp-materialize'), 'codex', events, '--home', codexHome, '--cwd', cwd], { encoding: 'utf8' });
process.stderr.write(written.stderr);
if (written.status !== 0) {
  await mock.close();
  process.exit(written.status ?? 1);
}
const result = JSON.parse(written.stdout);
console.log(JSON.stringify(result, null, 2));

const codex = process.env.CODEX_BIN ?? join(root, 'node_modules', '.bin', 'codex');
if (args.includes('--dry-run') || !existsSync(codex)) {
  await mock.close();
  console.log(
    `\n3. resume: skipped (${args.includes('--dry-run') ? '--dry-run' : `no codex client at ${codex}; the clients come with a clone's npm ci, or set CODEX_BIN`})`,
  );
  process.exit(0);
}
step(3, 'resume: the real Codex CLI continues the session (its model is a local mock on 127.0.0.1)');
const probe = 'What did we find out, and what is left to do?';
console.log(`$ codex exec resume ${result.session_id} ${quote(probe)}`);
const userHome = join(work, 'user-home');
mkdirSync(join(userHome, 'tmp'), { recursive: true });
// Asynchronously: the mock model answers from this same process. stdin closed: `codex exec` reads a
// prompt from a piped stdin and would wait for it.
const run = await new Promise((resolve) => {
  const child = spawn(codex, ['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', 'resume', result.session_id, probe], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: userHome, TMPDIR: join(userHome, 'tmp'), CODEX_HOME: codexHome, SP_MOCK_KEY: 'sk-mock', LANG: 'C.UTF-8', TERM: 'dumb' },
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.resume();
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  child.on('error', (error) => resolve({ status: null, error, stderr }));
  child.on('close', (status) => {
    clearTimeout(timer);
    resolve({ status, stderr });
  });
});
await mock.close();
const input = mock.inputs()[0];
if (run.status !== 0 || !input) {
  console.error(`demo: codex exited ${run.status}${run.error ? ` (${run.error.message})` : ''}\n${run.stderr}`);
  process.exit(1);
}

// What the model received: every user prompt and every tool call of the Claude session must be there.
const sent = JSON.stringify(input);
const prompts = canonical.filter((e) => e.type === 'message.user' && !e.payload.is_meta).flatMap((e) => e.payload.content.filter((b) => b.type === 'text').map((b) => b.text));
const calls = canonical.filter((e) => e.type === 'tool.call').map((e) => e.payload.call_id);
const missing = [...prompts.filter((t) => !sent.includes(JSON.stringify(t).slice(1, 40))), ...calls.filter((id) => !sent.includes(id))];
const kinds = {};
for (const item of input) {
  const kind = item.type === 'message' ? `${item.role} message` : item.type;
  kinds[kind] = (kinds[kind] ?? 0) + 1;
}
console.log(`the real client sent ${input.length} history items to the model: ${Object.entries(kinds).map(([k, n]) => `${n} ${k}`).join(', ')}`);
if (missing.length > 0) {
  console.error(`demo: ${missing.length} item(s) of the Claude session did not reach the model: ${missing.slice(0, 3).join(', ')}`);
  process.exit(1);
}
console.log(paint(32, `✓ Codex resumed the Claude Code session: every prompt (${prompts.length}) and every tool call (${calls.length}) reached the model.`));
console.log(keep ? `\nThe canonical events and the Codex home are in ${work}.` : '\n(The temporary folder is removed on exit: --keep keeps it.)');
