// sp serve over real HTTP (a real process on a free port, requests written byte for byte): the
// token, the Host check (DNS rebinding), the CSP, cross-origin and non-JSON writes, a read-only
// server refusing writes, path traversal through every parameter that names something, a session
// file that leads out of its home through a symlink, --host other than 127.0.0.1, redaction of
// everything listed and shown, the list filters, and a relay written only under --allow-write.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chainer } from '../lib/core/chain.js';
import { FAKE } from './support/fakeSecrets.js';
import { CLAUDE_ID, ROOT, scratchHomes, send, startServe, type Served } from './support/serve.js';

const secret = FAKE.githubPat;
const scratch = scratchHomes('sp-serve-test-', secret);
const OUTSIDE_ID = '0b5e1d2c-1111-4222-8333-944455556666';
// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const PNG_REF = `sha256:${createHash('sha256').update(PNG).digest('hex')}`;
let ro: Served;
let rw: Served;

beforeAll(async () => {
  // A session file in the Claude home that is a symlink to a transcript outside every root.
  const outside = join(scratch.work, 'outside');
  mkdirSync(outside);
  const source = join(scratch.claude, 'projects/-home-alice-acme-api', `${CLAUDE_ID}.jsonl`);
  writeFileSync(join(outside, `${OUTSIDE_ID}.jsonl`), readFileSync(source, 'utf8').replaceAll(CLAUDE_ID, OUTSIDE_ID).replaceAll('Add a DELETE', 'OUTSIDE-ONLY Add a DELETE'));
  symlinkSync(join(outside, `${OUTSIDE_ID}.jsonl`), join(scratch.claude, 'projects/-home-alice-acme-api', `${OUTSIDE_ID}.jsonl`));
  mkdirSync(join(scratch.work, 'allowed'));
  // A stored session with an image kept as an artifact (sp-sync ingest --artifacts).
  const blobs = join(scratch.work, 'blobs');
  mkdirSync(blobs);
  writeFileSync(join(blobs, PNG_REF.slice(7)), PNG);
  const chainer = new Chainer();
  const events = [
    chainer.chain({ session: 'sess_image', seq: 0, ts: 1796000000, agent: 'claude', type: 'session.start', payload: { native_id: 'image', cwd: '/work/pics', title: 'a screenshot' } }),
    chainer.chain({ session: 'sess_image', seq: 1, ts: 1796000001, agent: 'claude', type: 'message.user', actor: 'user', payload: { content: [{ type: 'text', text: 'what is wrong here?' }, { type: 'image', media_type: 'image/png', artifact: PNG_REF }] } }),
  ];
  const ingest = spawnSync(process.execPath, [join(ROOT, 'dist/bin/sp-sync.js'), 'ingest', '-q', '--artifacts', blobs], { env: scratch.env, input: events.map((e) => JSON.stringify(e)).join('\n') + '\n', encoding: 'utf8', timeout: 60_000 });
  expect(ingest.status, ingest.stderr).toBe(0);
  [ro, rw] = await Promise.all([
    startServe(['--home', `claude=${scratch.claude}`, '--home', `codex=${scratch.codex}`], scratch.env, scratch.work),
    startServe(['--home', `claude=${scratch.claude}`, '--home', `codex=${scratch.codex}`, '--allow-write', scratch.codex, '--allow-write', join(scratch.work, 'allowed')], scratch.env, scratch.work),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([ro?.stop(), rw?.stop()]);
});

const auth = (s: Served) => ({ 'X-SP-Token': s.token });

describe('sp serve: who may ask', () => {
  it('prints a 127.0.0.1 URL with a 43-character random token, and the two servers have different tokens', () => {
    expect(ro.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    expect(ro.token).not.toBe(rw.token);
  });

  it('refuses a request without the token, and a wrong token', async () => {
    for (const path of ['/', '/app.js', '/api/sessions', `/api/session?agent=claude&id=${CLAUDE_ID}`]) {
      const r = await send(ro.port, path);
      expect(r.status, path).toBe(401);
      expect(r.body).not.toContain('acme');
    }
    expect((await send(ro.port, '/?token=wrong')).status).toBe(403);
    expect((await send(ro.port, '/api/sessions', { headers: { 'X-SP-Token': rw.token } })).status).toBe(401);
    expect((await send(ro.port, '/api/sessions', { headers: { Cookie: `sp_token_${ro.port}=${ro.token.slice(0, -1)}x` } })).status).toBe(401);
    // The other server's cookie (cookies are shared across ports) is not this server's.
    expect((await send(ro.port, '/api/sessions', { headers: { Cookie: `sp_token_${rw.port}=${rw.token}` } })).status).toBe(401);
  });

  it('trades the URL token for an HttpOnly SameSite=Strict cookie and drops it from the address', async () => {
    const r = await send(ro.port, `/?token=${ro.token}`);
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/');
    const cookie = String(r.headers['set-cookie']);
    expect(cookie.startsWith(`sp_token_${ro.port}=`)).toBe(true);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const page = await send(ro.port, '/', { headers: { Cookie: cookie.split(';')[0] } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script src="/app.js"');
    expect(page.body).not.toContain(ro.token);
  });

  it('answers only to its own Host (DNS rebinding), even with the token', async () => {
    for (const host of ['evil.example', `evil.example:${ro.port}`, `127.0.0.1:${ro.port + 1}`, '127.0.0.1']) {
      const r = await send(ro.port, '/api/sessions', { headers: { ...auth(ro), Host: host } });
      expect(r.status, host).toBe(421);
      expect(r.body).not.toContain('acme');
    }
    expect((await send(ro.port, '/api/sessions', { headers: { ...auth(ro), Host: `localhost:${ro.port}` } })).status).toBe(200);
  });

  it('sends a strict Content-Security-Policy and nosniff on pages, assets and the API', async () => {
    for (const path of ['/', '/app.js', '/app.css', '/api/sessions', '/api/nothing']) {
      const r = await send(ro.port, path, { headers: auth(ro) });
      expect(r.headers['content-security-policy'], path).toMatch(/default-src 'none'; script-src 'self'; style-src 'self'/);
      expect(r.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('refuses a write from another origin, a non-JSON write, and any write on a read-only server', async () => {
    const body = JSON.stringify({ agent: 'claude', id: CLAUDE_ID, target: 'codex', cwd: join(scratch.work, 'allowed') });
    const cross = await send(rw.port, '/api/relay', { method: 'POST', headers: { ...auth(rw), Origin: 'http://evil.example', 'Content-Type': 'application/json' }, body });
    expect(cross.status).toBe(403);
    expect(cross.json().error).toMatch(/cross-origin/);
    const noOrigin = await send(rw.port, '/api/relay', { method: 'POST', headers: { ...auth(rw), 'Content-Type': 'application/json' }, body });
    expect(noOrigin.status).toBe(403);
    const form = await send(rw.port, '/api/relay', { method: 'POST', headers: { ...auth(rw), Origin: `http://127.0.0.1:${rw.port}`, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'agent=claude' });
    expect(form.status).toBe(415);
    const readOnly = await send(ro.port, '/api/relay', { method: 'POST', headers: { ...auth(ro), Origin: `http://127.0.0.1:${ro.port}`, 'Content-Type': 'application/json' }, body });
    expect(readOnly.status).toBe(403);
    expect(readOnly.json().error).toMatch(/read-only/);
    expect((await send(ro.port, '/api/sessions', { method: 'DELETE', headers: auth(ro) })).status).toBe(405);
    expect(spawnSync('find', [scratch.codex, join(scratch.work, 'allowed'), '-type', 'f'], { encoding: 'utf8' }).stdout).toBe('');
  });

  it('binds 127.0.0.1 only: --host anything else is a usage error', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'dist/bin/sp-serve.js'), '--host', '0.0.0.0', '--port', '0'], { env: scratch.env, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^sp-serve: --host 0\.0\.0\.0: sp serve binds 127\.0\.0\.1 only/);
  });
});

describe('sp serve: what it shows', () => {
  it('lists the session, redacted, and leaves out the one whose file leads outside the home', async () => {
    const r = await send(ro.port, '/api/sessions', { headers: auth(ro) });
    expect(r.status).toBe(200);
    const list = r.json();
    expect(list.sessions.filter((s: any) => s.source === 'agent').map((s: any) => s.id)).toEqual([CLAUDE_ID]);
    expect(list.sessions.filter((s: any) => s.source === 'store').map((s: any) => s.id)).toEqual(['sess_image']);
    expect(list.sessions[0]).toMatchObject({ agent: 'claude', project: 'acme-api', source: 'agent' });
    expect(r.body).not.toContain(secret);
    expect(list.sessions[0].first_prompt).toMatch(/My token is \[REDACTED/);
    expect(r.body).not.toContain('OUTSIDE-ONLY');
  });

  it('filters by agent, project, date and words', async () => {
    const count = async (query: string) => (await send(ro.port, `/api/sessions?${query}`, { headers: auth(ro) })).json().sessions.length;
    expect(await count('agent=claude')).toBe(2);
    expect(await count('agent=codex')).toBe(0);
    expect(await count('project=acme-api')).toBe(1);
    expect(await count('project=pics')).toBe(1);
    expect(await count('project=other')).toBe(0);
    expect(await count('q=delete%20endpoint')).toBe(1);
    expect(await count('q=no-such-words-here')).toBe(0);
    expect(await count(`since=${Date.parse('2026-11-30T00:00:00Z') / 1000}`)).toBe(2);
    // The stored session ran from 00:53 to 00:53, the Claude session around 05:14.
    expect(await count(`since=${Date.parse('2026-11-30T00:00:00Z') / 1000}&until=${Date.parse('2026-11-30T01:00:00Z') / 1000}`)).toBe(1);
    expect(await count(`since=${Date.parse('2026-11-30T05:00:00Z') / 1000}`)).toBe(1);
    expect(await count(`since=${Date.parse('2026-12-01T00:00:00Z') / 1000}`)).toBe(0);
    expect(await count(`until=${Date.parse('2026-11-29T23:59:59Z') / 1000}`)).toBe(0);
    expect((await send(ro.port, '/api/sessions?since=yesterday', { headers: auth(ro) })).status).toBe(400);
  });

  it('shows a session redacted, with its chain verified and its branches', async () => {
    const r = await send(ro.port, `/api/session?agent=claude&id=${CLAUDE_ID.slice(0, 8)}`, { headers: auth(ro) });
    expect(r.status).toBe(200);
    const view = r.json();
    expect(r.body).not.toContain(secret);
    expect(view.events.length).toBe(82);
    expect(view.chain.ok).toBe(true);
    expect(view.chain.sessions[0]).toMatchObject({ events: 82, first_seq: 0, last_seq: 81 });
    expect(view.branches.active.leaf_seq).toBeGreaterThan(0);
    expect(view.events.some((e: any) => e.origin?.raw)).toBe(false);
    expect(view.events.find((e: any) => e.type === 'file.edit').payload.diff).toMatch(/^\+function remove/m);
  });

  it("serves a stored image from the store's artifacts, checked against its hash, and only as an image type", async () => {
    const view = (await send(ro.port, '/api/session?stored=sess_image', { headers: auth(ro) })).json();
    expect(view.events[1].payload.content[1]).toMatchObject({ type: 'image', artifact: PNG_REF });
    expect(view.store.signature.status).toBe('trusted');
    const image = await send(ro.port, `/api/artifact?ref=${PNG_REF}&type=image/png`, { headers: auth(ro) });
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(Buffer.from(image.body, 'latin1').length).toBeGreaterThan(0);
    // A type the page could run is never sent: the bytes go out as an opaque download type.
    expect((await send(ro.port, `/api/artifact?ref=${PNG_REF}&type=text/html`, { headers: auth(ro) })).headers['content-type']).toBe('application/octet-stream');
    expect((await send(ro.port, `/api/artifact?ref=sha256:${'0'.repeat(64)}`, { headers: auth(ro) })).status).toBe(404);
  });

  it('refuses path traversal through every parameter that names something', async () => {
    const cases: Array<[string, number[]]> = [
      ['/api/session?agent=claude&id=../../../etc/passwd', [400]],
      ['/api/session?agent=claude&id=%2Fetc%2Fpasswd', [400]],
      ['/api/session?agent=../claude&id=x', [400]],
      ['/api/session?stored=../../etc', [400]],
      ['/api/session?stored=..', [400]],
      ['/api/artifact?ref=sha256:../../../../etc/passwd', [400]],
      ['/api/artifact?ref=../../keys/redact.key', [400]],
      ['/..%2f..%2f..%2fetc%2fpasswd', [404]],
      ['/../../etc/passwd', [404]],
      ['/app.js/../../../etc/passwd', [404]],
      [`/api/session?agent=claude&id=${OUTSIDE_ID}`, [403, 404]],
      [`/api/relay?agent=claude&id=${OUTSIDE_ID}&target=codex`, [403, 404]],
    ];
    for (const [path, statuses] of cases) {
      const r = await send(ro.port, path, { headers: auth(ro) });
      expect(statuses, `${path}: ${r.status} ${r.body.slice(0, 200)}`).toContain(r.status);
      expect(r.body).not.toMatch(/root:x:0|OUTSIDE-ONLY/);
    }
  });

  it('previews a relay (dry run) with a ledger row per source event, writing nothing', async () => {
    const r = await send(ro.port, `/api/relay?agent=claude&id=${CLAUDE_ID}&target=codex`, { headers: auth(ro) });
    expect(r.status).toBe(200);
    const relay = r.json();
    expect(relay.written).toBe(false);
    expect(relay.rows).toHaveLength(82);
    expect(relay.totals.events).toBe(82);
    expect(relay.rows.some((row: any) => row.action === 'translated')).toBe(true);
    expect(relay.lines.length).toBe(relay.results[0].records);
    expect(r.body).not.toContain(secret);
    expect(existsSync(relay.results[0].path)).toBe(false);
  });

  it('reports usage by agent from the homes and by day from the store; a grouping or source it does not know is a 400', async () => {
    const r = await send(ro.port, '/api/usage?by=agent', { headers: auth(ro) });
    expect(r.status).toBe(200);
    const report = r.json();
    // The Claude home holds the recorded session (with usage); the Codex home of this server is empty.
    expect(report.rows.map((row: { key: string }) => row.key)).toEqual(['claude']);
    for (const row of report.rows) expect(row.total).toBeGreaterThan(0);
    expect(report.total.total).toBe(report.rows.reduce((n: number, row: { total: number }) => n + row.total, 0));
    const stored = (await send(ro.port, '/api/usage?by=day&source=store', { headers: auth(ro) })).json();
    expect(stored.rows).toEqual([]); // the stored session carries no usage
    expect((await send(ro.port, '/api/usage?by=../../etc', { headers: auth(ro) })).status).toBe(400);
    expect((await send(ro.port, '/api/usage?by=day&source=/etc', { headers: auth(ro) })).status).toBe(400);
  });

  it('compiles a handoff whose [seq N] marks name real events', async () => {
    const r = await send(ro.port, `/api/compile?agent=claude&id=${CLAUDE_ID}&target=codex`, { headers: auth(ro) });
    expect(r.status).toBe(200);
    const { text } = r.json();
    expect(text).toMatch(/^# Handoff/);
    const seqs = [...text.matchAll(/\[seq (\d+)/g)].map((m: RegExpMatchArray) => Number(m[1]));
    expect(seqs.length).toBeGreaterThan(2);
    for (const seq of seqs) expect(seq).toBeLessThan(82);
    expect(text).not.toContain(secret);
    expect((await send(ro.port, `/api/compile?agent=claude&id=${CLAUDE_ID}&target=nobody`, { headers: auth(ro) })).status).toBe(400);
  });

  it('writes a relay only under --allow-write, from its own origin; the new session reads back', async () => {
    const headers = { ...auth(rw), Origin: `http://127.0.0.1:${rw.port}`, 'Content-Type': 'application/json' };
    const outside = await send(rw.port, '/api/relay', { method: 'POST', headers, body: JSON.stringify({ agent: 'claude', id: CLAUDE_ID, target: 'codex', cwd: join(scratch.work, 'outside') }) });
    expect(outside.status).toBe(403);
    expect(outside.json().error).toMatch(/outside the folders this server may write/);
    // The session's own folder (/home/alice/acme-api) is not under --allow-write either.
    expect((await send(rw.port, '/api/relay', { method: 'POST', headers, body: JSON.stringify({ agent: 'claude', id: CLAUDE_ID, target: 'codex' }) })).status).toBe(403);
    const ok = await send(rw.port, '/api/relay', { method: 'POST', headers, body: JSON.stringify({ agent: 'claude', id: CLAUDE_ID, target: 'codex', cwd: join(scratch.work, 'allowed') }) });
    expect(ok.status, ok.body).toBe(200);
    const written = ok.json();
    expect(written.written).toBe(true);
    const path = written.results[0].path as string;
    expect(path.startsWith(scratch.codex)).toBe(true);
    expect(readFileSync(path, 'utf8')).not.toContain(secret);
    const back = spawnSync(process.execPath, [join(ROOT, 'dist/bin/sp-capture.js'), 'codex', '--home', scratch.codex, '--session', written.results[0].session_id], { env: scratch.env, encoding: 'utf8', timeout: 30_000 });
    expect(back.status, back.stderr).toBe(0);
    expect(back.stdout).toContain('DELETE /todos/:id');
  });
});

describe('sp export html', () => {
  const exportHtml = (args: string[], env: NodeJS.ProcessEnv = scratch.env) =>
    spawnSync(process.execPath, [join(ROOT, 'dist/bin/sp-export.js'), 'html', ...args], { env, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] });

  it('puts a stored image inline, so the page shows it offline', () => {
    const r = exportHtml(['sess_image']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(PNG.toString('base64'));
    expect(r.stdout).not.toContain(scratch.work); // no machine-local path of the store or the transcript
  });

  it('says in one line what is wrong: no such session, no passphrase, a short one, both a session and --file', () => {
    const cases: Array<[string[], NodeJS.ProcessEnv, RegExp]> = [
      [['no-such-session'], scratch.env, /^sp-export: no session "no-such-session"/],
      [[CLAUDE_ID, '--encrypt'], scratch.env, /^sp-export: --encrypt needs a passphrase: set SP_EXPORT_PASSPHRASE/],
      [[CLAUDE_ID, '--encrypt'], { ...scratch.env, SP_EXPORT_PASSPHRASE: 'short' }, /^sp-export: the passphrase is shorter than 8 characters/],
      [[CLAUDE_ID, '--file', 'events.ndjson'], scratch.env, /^sp-export: name a session, or give --file/],
    ];
    for (const [args, env, message] of cases) {
      const r = exportHtml(args, env);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
  });

  it('refuses to overwrite a file with --out', () => {
    const out = join(scratch.work, 'exists.html');
    writeFileSync(out, 'keep me');
    const r = exportHtml([CLAUDE_ID, '--out', out]);
    expect(r.status).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('keep me');
  });
});
