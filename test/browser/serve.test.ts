// sp serve and sp export html in a real browser: Debian's Chromium, headless, driven by
// playwright-core. The path a user takes — list → search → open a session → expand a tool call
// (keyboard too) → preview a relay → write it (read back with sp-capture) → compile page → a
// provenance link back to its event — with a screenshot of each page under test-artifacts/ and
// axe-core run on each page (no serious or critical violation). The exported file is opened from
// disk: plain, and encrypted (wrong passphrase refused, right one shows the session, no plaintext
// in the file, no network request). Timings: listing 1,000 sessions and opening a 10k-event one.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chainer } from '../../lib/core/chain.js';
import type { SpEvent } from '../../lib/core/event.js';
import { FAKE } from '../support/fakeSecrets.js';
import { CLAUDE_ID, ROOT, scratchHomes, startServe, type Served } from '../support/serve.js';

const CHROMIUM = process.env.SP_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  // In CI a missing browser is a failure; on a developer's machine these tests are skipped, and said so.
  if (process.env.CI === 'true') throw new Error(`no Chromium at ${CHROMIUM}: install it with apt-get install -y --no-install-recommends chromium (see .ci/run)`);
  console.warn(`test/browser: skipped, no Chromium at ${CHROMIUM} (apt-get install -y --no-install-recommends chromium)`);
}
// A loaded 2-core machine answers slowly: every poll waits up to 30 s unless it says otherwise.
expect.poll = ((orig) => (fn: any, options?: any) => orig(fn, { timeout: 30_000, ...options }))(expect.poll) as typeof expect.poll;
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = join(ROOT, 'test-artifacts/browser');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const secret = FAKE.githubPat;
const scratch = scratchHomes('sp-serve-browser-', secret);
const allowed = join(scratch.work, 'project');
const sp = (bin: string, args: string[], input?: string) => spawnSync(process.execPath, [join(ROOT, 'dist/bin', bin), ...args], { env: scratch.env, input, encoding: 'utf8', timeout: 60_000, maxBuffer: 256 << 20 });

let browser: Browser;
let served: Served;
const screenshots: string[] = [];
const timings: string[] = [];

async function shot(page: Page, name: string): Promise<void> {
  console.log(`${new Date().toISOString().slice(11, 19)} ${name}`);
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  screenshots.push(path);
}

/** axe-core on the page as it is: no serious or critical violation. */
async function accessible(page: Page, name: string): Promise<void> {
  // evaluate() runs through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(axeSource);
  const result = (await page.evaluate(() => (globalThis as any).axe.run(document, { resultTypes: ['violations'] }))) as { violations: Array<{ id: string; impact: string; nodes: unknown[]; help: string }> };
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${name}: ${v.id} (${v.impact}, ${v.nodes.length} nodes): ${v.help}`)).toEqual([]);
}

beforeAll(async () => {
  if (!haveChromium) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  mkdirSync(allowed);
  // A second agent's session, and the Claude session in the store too (signature, full-text search).
  cpSync(join(ROOT, 'fixtures/codex/corpus/S2-debug'), scratch.codex, { recursive: true });
  const captured = sp('sp-capture.js', ['claude', '--session', CLAUDE_ID]);
  expect(captured.status, captured.stderr).toBe(0);
  const ingested = sp('sp-sync.js', ['ingest', '-q'], captured.stdout);
  expect(ingested.status, ingested.stderr).toBe(0);
  // A relay by sp-materialize --handoff records a signed handoff receipt in the store (to a home sp serve does not list).
  const other = join(scratch.work, 'other-codex');
  mkdirSync(other);
  const handed = sp('sp-materialize.js', ['codex', '--handoff', '--home', other, '--cwd', allowed], captured.stdout);
  expect(handed.status, handed.stderr).toBe(0);
  [browser, served] = await Promise.all([
    chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true }),
    startServe(['--home', `claude=${scratch.claude}`, '--home', `codex=${scratch.codex}`, '--allow-write', scratch.codex, '--allow-write', allowed], scratch.env, scratch.work),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([browser?.close(), served?.stop()]);
  if (screenshots.length) console.log(`screenshots:\n  ${screenshots.join('\n  ')}`);
  if (timings.length) console.log(`timings:\n  ${timings.join('\n  ')}`);
});

describe.skipIf(!haveChromium)('sp serve in Chromium', () => {
  it('list → search → session → tool call → relay preview → write → compile → provenance link, accessible, under its CSP', { timeout: 240_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));

    await page.goto(served.url);
    expect(page.url()).toBe(`http://127.0.0.1:${served.port}/`); // the token left the address bar
    await expect.poll(() => page.locator('#count').textContent(), { timeout: 60_000 }).toBe('3 of 3 sessions');
    await shot(page, '1-list');
    await accessible(page, 'list');
    expect(await page.content()).not.toContain(secret);

    // Search: the title words, and the store's full-text index.
    await page.getByLabel('Search', { exact: true }).fill('delete endpoint');
    await expect.poll(() => page.locator('#count').textContent()).toBe('2 of 3 sessions');
    await page.getByLabel('Search', { exact: true }).fill('returns 404');
    await expect.poll(() => page.locator('section[aria-label="store search hits"] li').count()).toBeGreaterThan(0);
    await shot(page, '2-search');
    await page.getByLabel('Search', { exact: true }).fill('');
    await page.getByLabel('Agent').selectOption('codex');
    await expect.poll(() => page.locator('#count').textContent()).toBe('1 of 3 sessions');
    await page.getByLabel('Agent').selectOption('claude');
    await expect.poll(() => page.locator('#count').textContent()).toBe('2 of 3 sessions');

    // Open the Claude session (the agent's copy, not the store's).
    await page.locator('tr', { hasNotText: 'store' }).locator('a.open').first().click();
    await expect.poll(() => page.locator('#chain').textContent()).toMatch(/^Hash chain verified: 82 events/);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Add DELETE endpoint for todos');
    expect(await page.content()).not.toContain(secret);
    await shot(page, '3-session');
    await accessible(page, 'session');
    expect(await page.locator('pre.diff .add').count()).toBeGreaterThan(0);
    expect(await page.locator('details.thinking').count()).toBe(2);

    // A tool call opens with the keyboard: Tab to its summary, Enter.
    const call = page.locator('details.tool').first();
    expect(await call.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await call.locator('summary').focus();
    await page.keyboard.press('Enter');
    expect(await call.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    await expect.poll(() => call.locator('pre').first().isVisible()).toBe(true);
    expect(await call.textContent()).toMatch(/Result #\d+/);
    await page.keyboard.press('Enter');
    expect(await call.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await page.locator('details.tool').nth(1).locator('summary').click();
    expect(await page.locator('details.tool').nth(1).evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    await shot(page, '4-tool-call');

    // Relay: preview to Codex, side by side, then write it on confirmation.
    await page.getByRole('link', { name: 'Relay to another agent…' }).click();
    await page.getByLabel('Target agent').selectOption('codex');
    await page.getByLabel("Project folder (empty: the session's own)").fill(allowed);
    await page.getByRole('button', { name: 'Preview (dry run)' }).click();
    await expect.poll(() => page.locator('#totals').textContent(), { timeout: 30_000 }).toMatch(/^Dry run, history mode: \d+ carried, \d+ translated/);
    expect(await page.locator('.ledger tbody tr').count()).toBe(82);
    expect(await page.locator('.ledger .badge.translated').count()).toBeGreaterThan(0);
    expect(await page.locator('pre.native').textContent()).toContain('"session_meta"');
    await shot(page, '5-relay-preview');
    await accessible(page, 'relay');
    await page.getByRole('button', { name: 'Write…' }).click();
    // The confirmation takes the focus: Enter confirms.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('confirm-write');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#written').textContent(), { timeout: 30_000 }).toMatch(/^Written: /);
    const written = (await page.locator('#written').textContent())!;
    const path = /^Written: (\S+) — resume with/.exec(written)![1];
    expect(path.startsWith(scratch.codex)).toBe(true);
    expect(existsSync(path)).toBe(true);
    await shot(page, '6-relay-written');
    const id = /codex resume (\S+)/.exec(written)![1];
    const back = sp('sp-capture.js', ['codex', '--home', scratch.codex, '--session', id]);
    expect(back.status, back.stderr).toBe(0);
    expect(back.stdout).toContain('DELETE /todos/:id');
    expect(back.stdout).not.toContain(secret);

    // Compile: the handoff, and a [seq N] link back to its event.
    await page.getByRole('link', { name: '← Back to the session' }).click();
    await page.getByRole('link', { name: 'Compile a handoff…' }).click();
    await page.getByLabel('For').selectOption('codex');
    await page.getByRole('button', { name: 'Compile' }).click();
    await expect.poll(() => page.locator('pre.handoff a.prov').count(), { timeout: 30_000 }).toBeGreaterThan(2);
    expect(await page.locator('pre.handoff').textContent()).toMatch(/^# Handoff/);
    await shot(page, '7-compile');
    await accessible(page, 'compile');
    const link = page.locator('pre.handoff a.prov').first();
    const seq = await link.textContent();
    await link.click();
    await expect.poll(() => page.locator(`#e-${seq}.target`).count()).toBe(1);
    await shot(page, '8-provenance');

    // The stored copy: signature and chain of the store.
    await page.goto(`http://127.0.0.1:${served.port}/#/`);
    await page.locator('tr', { hasText: 'store' }).locator('a.open').first().click();
    await expect.poll(() => page.locator('.store').textContent()).toMatch(/Signature: trusted/);
    expect(await page.locator('.store').textContent()).toMatch(/Receipts \(1\).*claude → codex at seq 82, signature verified/);
    expect(await page.locator('#chain').textContent()).toMatch(/^Hash chain verified: 83 events/);
    await shot(page, '9-stored-session');
    await accessible(page, 'stored session');

    // Usage: bars and a table of tokens and cost, by day and by agent.
    await page.getByRole('link', { name: 'Usage' }).click();
    await expect.poll(() => page.locator('#usage-total').textContent(), { timeout: 60_000 }).toMatch(/^[\d,]+ tokens, (\$[\d.]+( \+ \?)?|\?) \(prices of /);
    expect(await page.locator('svg.chart rect.chart-bar').count()).toBeGreaterThan(0);
    await page.getByLabel('Group by').selectOption('agent');
    await expect.poll(() => page.locator('table.usage tbody th').allTextContents()).toEqual(expect.arrayContaining(['claude', 'codex']));
    await shot(page, '9b-usage');
    await accessible(page, 'usage');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('sp export html: one file that opens offline, redacted; encrypted, it asks for the passphrase', { timeout: 120_000 }, async () => {
    const plainPath = join(scratch.work, 'session.html');
    const plain = sp('sp-export.js', ['html', CLAUDE_ID, '--out', plainPath]);
    expect(plain.status, plain.stderr).toBe(0);
    const encPath = join(scratch.work, 'session-encrypted.html');
    const enc = spawnSync(process.execPath, [join(ROOT, 'dist/bin/sp-export.js'), 'html', CLAUDE_ID, '--encrypt', '--public'], { env: { ...scratch.env, SP_EXPORT_PASSPHRASE: 'correct horse battery' }, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20 });
    expect(enc.status, enc.stderr).toBe(0);
    writeFileSync(encPath, enc.stdout);
    const plainText = readFileSync(plainPath, 'utf8');
    expect(plainText).toContain('DELETE /todos/:id');
    expect(plainText).not.toContain(secret);
    expect(plainText).not.toMatch(/<script[^>]+src=|<link[^>]+href="(?!data:)|https?:\/\/(?!www\.w3\.org)/i);
    // No plaintext of the session in the encrypted file: not a prompt, a title, a path or an id.
    for (const text of ['DELETE /todos', 'Add DELETE endpoint', 'acme-api', CLAUDE_ID, 'sess_737ee653', 'todos.js']) expect(enc.stdout, text).not.toContain(text);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    await page.goto(`file://${plainPath}`);
    await expect.poll(() => page.locator('#chain').textContent()).toMatch(/^Hash chain verified: 82 events/);
    expect(await page.locator('h1').textContent()).toBe('Add DELETE endpoint for todos');
    await page.locator('details.tool summary').first().click();
    await shot(page, '10-export');
    await accessible(page, 'export');

    await page.goto(`file://${encPath}`);
    await page.getByLabel('Passphrase').fill('wrong passphrase');
    await page.getByRole('button', { name: 'Open' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 30_000 }).toMatch(/Wrong passphrase/);
    await shot(page, '11-export-wrong-passphrase');
    await accessible(page, 'export locked');
    await page.getByLabel('Passphrase').fill('correct horse battery');
    await page.getByRole('button', { name: 'Open' }).click();
    await expect.poll(() => page.locator('#chain').textContent(), { timeout: 30_000 }).toMatch(/^Hash chain verified: 82 events/);
    // The public profile: the home folder is gone from what is shown.
    expect(await page.content()).not.toContain('/home/alice');
    await shot(page, '12-export-decrypted');
    expect(requests.every((u) => u.startsWith('file://') || u.startsWith('data:'))).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe.skipIf(!haveChromium)('sp serve timings', () => {
  it('lists 1,000 sessions and opens a 10k-event session', { timeout: 240_000 }, async () => {
    const big = scratchHomes('sp-serve-bench-');
    // 1,000 Claude Code sessions: the recorded one under 1,000 ids.
    const dir = join(big.claude, 'projects/-home-alice-acme-api');
    const transcript = readFileSync(join(dir, `${CLAUDE_ID}.jsonl`), 'utf8');
    for (let i = 0; i < 999; i++) {
      const id = `${CLAUDE_ID.slice(0, 24)}${i.toString(16).padStart(12, '0')}`;
      writeFileSync(join(dir, `${id}.jsonl`), transcript.replaceAll(CLAUDE_ID, id));
    }
    // A 10k-event session in the store: a session.start, then user / assistant turns.
    const chainer = new Chainer();
    const session = 'sess_big10k';
    const events: SpEvent[] = [chainer.chain({ session, seq: 0, ts: 1796000000, agent: 'claude', type: 'session.start', payload: { native_id: 'big-10k', cwd: '/work/big', title: 'A 10k-event session' } })];
    for (let seq = 1; seq < 10_000; seq++) {
      const user = seq % 2 === 1;
      events.push(chainer.chain({ session, seq, ts: 1796000000 + seq, agent: 'claude', type: user ? 'message.user' : 'message.assistant', actor: user ? 'user' : 'agent:claude', payload: { content: [{ type: 'text', text: `${user ? 'question' : 'answer'} ${seq}: ${'lorem ipsum '.repeat(8)}` }] } }));
    }
    const ingested = spawnSync(process.execPath, [join(ROOT, 'dist/bin/sp-sync.js'), 'ingest', '-q'], { env: big.env, input: events.map((e) => JSON.stringify(e)).join('\n') + '\n', encoding: 'utf8', timeout: 120_000 });
    expect(ingested.status, ingested.stderr).toBe(0);
    const server = await startServe(['--home', `claude=${big.claude}`], big.env, big.work);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      let t = performance.now();
      await page.goto(server.url);
      await expect.poll(() => page.locator('#count').textContent(), { timeout: 60_000, interval: 50 }).toBe('1001 of 1001 sessions');
      const list = performance.now() - t;
      expect(await page.locator('table.list tbody tr').count()).toBe(1001);
      // Again, from the server's listing of the homes (kept 5 s) rather than a cold read of 1,000 files.
      t = performance.now();
      await page.getByLabel('Search', { exact: true }).fill('big');
      await expect.poll(() => page.locator('#count').textContent(), { interval: 50 }).toBe('1 of 1001 sessions');
      const filter = performance.now() - t;
      t = performance.now();
      await page.locator('a.open').first().click();
      await expect.poll(() => page.locator('#chain').textContent(), { timeout: 60_000, interval: 50 }).toMatch(/^Hash chain verified: 10000 events/);
      const open = performance.now() - t;
      expect(await page.locator('.events [id^="e-"]').count()).toBe(400);
      await shot(page, '13-10k-session');
      timings.push(`list 1,000 sessions (cold, 1001 rows rendered): ${Math.round(list)} ms`, `filter them by a word: ${Math.round(filter)} ms`, `open a 10k-event session (first 400 items rendered, chain verified): ${Math.round(open)} ms`);
      // Generous bounds for a busy 2-core machine: a regression by an order of magnitude fails.
      expect(list).toBeLessThan(60_000);
      expect(open).toBeLessThan(30_000);
    } finally {
      await context.close();
      await server.stop();
    }
  });
});
