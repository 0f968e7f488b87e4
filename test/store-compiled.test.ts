// The store records handoffs: ingesting a compiled stream (ending in context.compiled) adds an entry
// to the session manifest's compiled_context — target, format, budget, tokens, the hash of the
// rendered text, the stored seq and the times — signed with the manifest; `sp-sync log --compiled`
// lists them. Old (1.0.0) manifests without the field still verify and list nothing.
import { describe, expect, it } from 'vitest';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { CORPUS, capture, parseLines, root, sp, tempDir } from './support/store.js';

type Json = Record<string, any>;
const sha = (text: string) => 'sha256:' + createHash('sha256').update(text, 'utf8').digest('hex');
const manifestOf = (home: string, id: string): Json => JSON.parse(readFileSync(join(home, 'store/sessions', id, 'manifest.json'), 'utf8'));
function ok(r: { status: number | null; stdout: string; stderr: string }, what: string): string {
  expect(r.status, `${what}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

describe('compiled_context in the manifest', () => {
  it('ingest records each handoff once, signed; log --compiled lists them as NDJSON or a table', () => {
    const home = tempDir('sp-compiled-');
    const session = capture('claude', CORPUS.claudeDebug);
    const first = ok(sp('sp-compile', ['--for', 'codex', '--no-workspace'], { home, input: session }), 'compile');
    ok(sp('sp-sync', ['ingest', '-q'], { home, input: first }), 'ingest');
    const events = parseLines(first);
    const compiled = events.at(-1)! as Json;
    const id = compiled.session as string;

    let manifest = manifestOf(home, id);
    expect(manifest.schema_version).toBe('1.1.0');
    expect(manifest.compiled_context).toHaveLength(1);
    const entry = manifest.compiled_context[0];
    expect(entry).toEqual({
      seq: manifest.event_count - 1,
      target: 'codex',
      format: 'message',
      tokenizer: 'o200k_base',
      budget: compiled.payload.budget,
      tokens: compiled.payload.tokens,
      sha256: sha(compiled.payload.text),
      ts: compiled.ts,
      recorded_at: expect.any(Number),
    });
    expect(Math.abs(entry.recorded_at - Date.now() / 1000)).toBeLessThan(600);
    ok(sp('sp-verify', ['--store', join(home, 'store')], { home }), 'verify');

    // A second handoff compiled from the stored log, for another target and budget; ingesting the same
    // output twice adds nothing the second time.
    const stored = ok(sp('sp-sync', ['log', id], { home }), 'log');
    const second = ok(sp('sp-compile', ['--for', 'claude', '--budget', '6000', '--no-workspace'], { home, input: stored }), 'compile 2');
    for (let i = 0; i < 2; i++) ok(sp('sp-sync', ['ingest', '-q'], { home, input: second }), 'ingest 2');
    manifest = manifestOf(home, id);
    expect(manifest.compiled_context.map((e: Json) => [e.target, e.budget])).toEqual([['codex', compiled.payload.budget], ['claude', 6000]]);
    expect(manifest.compiled_context[1].seq).toBe(manifest.event_count - 1);
    expect(manifest.compiled_context[1].sha256).toBe(sha((parseLines(second).at(-1) as Json).payload.text));

    const listed = parseLines(ok(sp('sp-sync', ['log', '--compiled', id.slice(0, 12)], { home }), 'log --compiled'));
    expect(listed).toEqual(manifest.compiled_context.map((e: Json) => ({ session: id, ...e })));
    const table = ok(sp('sp-sync', ['log', '--compiled', id], { home, env: { SP_FORCE_TTY: '1', COLUMNS: '200', NO_COLOR: '1' } }), 'table');
    expect(table.split('\n')[0]).toMatch(/^\s*SEQ\s+TARGET\s+FORMAT\s+TOKENS\s+COMPILED\s+TEXT SHA256\s*$/);
    expect(table).toContain(`${manifest.compiled_context[1].tokens}/6000`);
    expect(table).toContain(manifest.compiled_context[0].sha256);

    // The entries are signed: an edited token count fails verification.
    const path = join(home, 'store/sessions', id, 'manifest.json');
    writeFileSync(path, readFileSync(path, 'utf8').replace(`"tokens": ${entry.tokens}`, `"tokens": ${entry.tokens + 1}`));
    const bad = sp('sp-verify', ['--store', join(home, 'store')], { home });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/bad signature/);
  });

  it('a hostile context.compiled (oversized target) is stored but not listed; unknown sessions are a usage error', () => {
    const home = tempDir('sp-compiled-');
    const events = parseLines(capture('claude', CORPUS.claudeDebug));
    const last = events.at(-1)! as Json;
    const odd = { session: last.session, seq: last.seq + 1, ts: last.ts, agent: last.agent, type: 'context.compiled', payload: { target: 'x'.repeat(5000), tokens: 3, text: 'hi' } };
    const input = [...events, odd].map((e) => JSON.stringify({ ...e, checksum: undefined })).join('\n') + '\n';
    ok(sp('sp-sync', ['ingest', '-q'], { home, input }), 'ingest');
    const manifest = manifestOf(home, last.session);
    expect(manifest.event_count).toBe(events.length + 1);
    expect(manifest.compiled_context).toBeUndefined();
    expect(ok(sp('sp-sync', ['log', '--compiled', last.session], { home }), 'log --compiled')).toBe('');
    const unknown = sp('sp-sync', ['log', '--compiled', 'sess_nosuchsession'], { home });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('a store from the previous release (1.0.0 manifests) verifies, lists nothing, and takes a handoff', () => {
    const work = tempDir('sp-compiled-upgrade-');
    cpSync(join(root, 'fixtures/sync-upgrade/home-a'), work, { recursive: true });
    execFileSync('sh', ['-c', `find "${work}" -type d -exec chmod 700 {} + && find "${work}" -type f -exec chmod 600 {} +`]);
    const id = 'sess_upgradefixture0001';
    expect(manifestOf(work, id).schema_version).toBe('1.0.0');
    ok(sp('sp-verify', ['--store', join(work, 'store')], { home: work }), 'verify old');
    expect(ok(sp('sp-sync', ['log', '--compiled', id], { home: work }), 'log --compiled')).toBe('');
    const log = ok(sp('sp-sync', ['log', '--local', id], { home: work }), 'log');
    const compiled = ok(sp('sp-compile', ['--for', 'pi', '--no-workspace'], { home: work, input: log }), 'compile');
    ok(sp('sp-sync', ['ingest', '-q'], { home: work, input: compiled }), 'ingest');
    const manifest = manifestOf(work, id);
    expect(manifest.schema_version).toBe('1.1.0');
    expect(manifest.compiled_context.map((e: Json) => e.target)).toEqual(['pi']);
    ok(sp('sp-verify', ['--store', join(work, 'store')], { home: work }), 'verify new');
  });
});
