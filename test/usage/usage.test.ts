// sp usage: the vocabularies of usage records, pricing, grouping; the binary over real recorded
// homes (Claude Code, Codex, Pi) and the store; and its figures against ccusage 17 on the same
// Claude Code homes (tokens equal per day and model, cost within 1% where both price a model).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, runBin, tempDir } from '../support/streams.js';
import { UsageReader, loadPrices, normalizeUsage, priceOf, usageRows, weekOf, type PriceTable } from '../../lib/usage/usage.js';

type Json = Record<string, any>;
const lines = (text: string): Json[] => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Json);

let work: string;
let claudeHome: string;
let codexHome: string;
let piHome: string;
let env: Record<string, string>;

function jsonlUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) if (entry.isFile() && entry.name.endsWith('.jsonl')) out.push(join(entry.parentPath, entry.name));
  return out;
}

beforeAll(() => {
  work = tempDir('sp-usage-');
  env = { SP_HOME: join(work, 'sp'), TZ: 'UTC', SP_FORCE_TTY: '', NO_COLOR: '', FORCE_COLOR: '', COLUMNS: '120' };
  // One Claude home: the recorded corpus (fixtures, and the shared corpus when present: the same
  // sessions again, so dedup across files is exercised) plus the public transcripts in one project.
  claudeHome = join(work, 'claude');
  for (const s of ['S1-feature', 'S2-debug', 'S3-long']) cpSync(join(root, 'fixtures/claude/corpus', s, '.claude'), claudeHome, { recursive: true });
  const shared = '/work/shared/corpus/claude';
  if (existsSync(shared)) {
    for (const s of readdirSync(shared)) {
      const projects = join(shared, s, '.claude/projects');
      if (existsSync(projects)) cpSync(projects, join(claudeHome, 'projects-shared', s), { recursive: true });
    }
  }
  const publicDir = join(claudeHome, 'projects/-public');
  mkdirSync(publicDir, { recursive: true });
  for (const f of jsonlUnder(join(root, 'fixtures/claude/public'))) if (!f.includes('/subagents/')) cpSync(f, join(publicDir, f.split('/').pop()!));
  codexHome = join(work, 'codex');
  for (const s of ['S1-feature', 'S2-debug', 'S3-long']) cpSync(join(root, 'fixtures/codex/corpus', s, 'sessions'), join(codexHome, 'sessions'), { recursive: true });
  piHome = join(work, 'pi');
  for (const s of ['S1-feature', 'S2-debug', 'S3-long']) cpSync(join(root, 'fixtures/pi/corpus', s, 'agent'), piHome, { recursive: true });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('against ccusage', () => {
  it('same Claude Code home: tokens equal per day and per model, cost within 1% where both price the model', () => {
    const cc = spawnSync(join(root, 'node_modules/.bin/ccusage'), ['daily', '--offline', '--json', '--breakdown'], {
      env: { ...process.env, CLAUDE_CONFIG_DIR: claudeHome, TZ: 'UTC', NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 90_000,
    });
    expect(cc.status, cc.stderr).toBe(0);
    const daily = (JSON.parse(cc.stdout) as { daily: Json[] }).daily;
    expect(daily.length).toBeGreaterThanOrEqual(3);

    const byDay = new Map(lines(runBin('sp-usage', ['claude', '--home', claudeHome, '--by', 'day', '--json'], { env }).stdout).map((r) => [r.key, r]));
    for (const d of daily) {
      const ours = byDay.get(d.date);
      expect(ours, d.date).toBeDefined();
      expect([ours!.input, ours!.output, ours!.cache_read, ours!.cache_write], d.date).toEqual([d.inputTokens, d.outputTokens, d.cacheReadTokens, d.cacheCreationTokens]);
    }
    expect(byDay.size).toBe(daily.length);

    // Per model (summed over days): tokens equal; cost within 1% where ccusage prices the model,
    // and "unknown" (null) here where ccusage has no price (it counts those as $0).
    const theirs = new Map<string, Json>();
    for (const d of daily) {
      for (const m of d.modelBreakdowns as Json[]) {
        const t = theirs.get(m.modelName) ?? { input: 0, output: 0, read: 0, write: 0, cost: 0 };
        t.input += m.inputTokens;
        t.output += m.outputTokens;
        t.read += m.cacheReadTokens;
        t.write += m.cacheCreationTokens;
        t.cost += m.cost;
        theirs.set(m.modelName, t);
      }
    }
    const ours = new Map(lines(runBin('sp-usage', ['claude', '--home', claudeHome, '--by', 'model', '--json'], { env }).stdout).map((r) => [r.key, r]));
    expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
    let priced = 0;
    for (const [model, t] of theirs) {
      const o = ours.get(model)!;
      expect([o.input, o.output, o.cache_read, o.cache_write], model).toEqual([t.input, t.output, t.read, t.write]);
      if (t.cost > 0) {
        priced += 1;
        expect(o.cost, model).not.toBeNull();
        expect(Math.abs(o.cost - t.cost) / t.cost, `${model}: ours ${o.cost} theirs ${t.cost}`).toBeLessThanOrEqual(0.01);
      }
    }
    expect(priced).toBeGreaterThanOrEqual(2);
  }, 180_000);
});

describe('sp-usage over homes and the store', () => {
  it('Codex and Pi homes by model; unknown models show "?"; --prices prices them', () => {
    const codex = lines(runBin('sp-usage', ['codex', '--home', codexHome, '--by', 'model', '--json'], { env }).stdout);
    expect(codex.length).toBeGreaterThanOrEqual(1);
    const total = codex.reduce((s, r) => s + r.total, 0);
    expect(total).toBeGreaterThan(0);
    expect(codex.every((r) => r.cost === null)).toBe(true);
    const table = runBin('sp-usage', ['codex', '--home', codexHome, '--by', 'model'], { env });
    expect(table.stdout).toMatch(/^MODEL +INPUT +OUTPUT +CACHE READ +CACHE WRITE +TOTAL +COST$/m);
    expect(table.stdout).toMatch(/^total .* \?$/m);
    expect(table.stderr).toContain('"?"');
    const prices = join(work, 'prices.json');
    const models = Object.fromEntries(codex.map((r) => [r.key, { input: 1, output: 2, cache_read: 0.5, cache_write: 0 }]));
    writeFileSync(prices, JSON.stringify({ models }));
    const priced = lines(runBin('sp-usage', ['codex', '--home', codexHome, '--by', 'model', '--json', '--prices', prices], { env }).stdout);
    for (const r of priced) expect(r.cost).toBeCloseTo((r.input * 1 + r.output * 2 + r.cache_read * 0.5) / 1e6, 9);

    const pi = lines(runBin('sp-usage', ['pi', '--home', piHome, '--by', 'model', '--json'], { env }).stdout);
    const sonnet = pi.find((r) => r.key === 'claude-sonnet-4-5');
    expect(sonnet).toBeDefined();
    expect(sonnet!.cost).toBeCloseTo((sonnet!.input * 3 + sonnet!.output * 15 + sonnet!.cache_read * 0.3 + sonnet!.cache_write * 3.75) / 1e6, 9);
  }, 180_000); // five binaries, each a node start-up: slow on a loaded two-core machine

  it('the store gives the same figures as the homes it was captured from; --since/--until bound them', () => {
    const events = runBin('sp-capture', ['pi', '--all', '--home', piHome], { env }).stdout + runBin('sp-capture', ['codex', '--all', '--home', codexHome], { env }).stdout;
    expect(runBin('sp-sync', ['ingest', '-q'], { env, input: events }).code).toBe(0);
    const fromStore = lines(runBin('sp-usage', ['--store', '--by', 'agent', '--json'], { env }).stdout);
    const fromPi = lines(runBin('sp-usage', ['pi', '--home', piHome, '--by', 'agent', '--json'], { env }).stdout);
    const fromCodex = lines(runBin('sp-usage', ['codex', '--home', codexHome, '--by', 'agent', '--json'], { env }).stdout);
    const pick = (r: Json) => [r.key, r.input, r.output, r.cache_read, r.cache_write];
    expect(fromStore.map(pick).sort()).toEqual([...fromPi, ...fromCodex].map(pick).sort());
    const before = lines(runBin('sp-usage', ['--store', '--json', '--until', '2020-01-01'], { env }).stdout);
    expect(before).toEqual([]);
    const bad = runBin('sp-usage', ['--store', '--by', 'month'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^sp-usage: --by is one of/);
    const badDate = runBin('sp-usage', ['--store', '--since', 'yesterday'], { env });
    expect(badDate.code).toBe(2);
  }, 180_000);
});

describe('units', () => {
  it('reads each vocabulary into input (not cached), output (reasoning in), cache read and write', () => {
    expect(normalizeUsage({ input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 })).toEqual({ input: 10, output: 5, cache_read: 100, cache_write: 20 });
    expect(normalizeUsage({ input_tokens: 1000, cached_input_tokens: 600, output_tokens: 50, reasoning_output_tokens: 10 })).toEqual({ input: 400, output: 50, cache_read: 600, cache_write: 0 });
    expect(normalizeUsage({ promptTokenCount: 900, cachedContentTokenCount: 300, candidatesTokenCount: 40, thoughtsTokenCount: 60 })).toEqual({ input: 600, output: 100, cache_read: 300, cache_write: 0 });
    expect(normalizeUsage({ input: 3, output: 4, cacheRead: 5, cacheWrite: 6, totalTokens: 18 })).toEqual({ input: 3, output: 4, cache_read: 5, cache_write: 6 });
    expect(normalizeUsage({ input: 100, output: 10, cached: 40, thoughts: 5, total: 155 })).toEqual({ input: 60, output: 15, cache_read: 40, cache_write: 0 });
    expect(normalizeUsage({ input: 7, output: 8, reasoning: 2, cache: { read: 9, write: 1 } })).toEqual({ input: 7, output: 10, cache_read: 9, cache_write: 1 });
    expect(normalizeUsage({ input_tokens: -5, output_tokens: 'many' })).toEqual({ input: 0, output: 0, cache_read: 0, cache_write: 0 });
    expect(normalizeUsage('nope')).toBeUndefined();
  });

  it('prices by exact name, provider prefix or release suffix, never a neighbour', () => {
    const table = loadPrices();
    expect(priceOf(table, 'claude-haiku-4-5-20251001')).toEqual(table.models['claude-haiku-4-5']);
    expect(priceOf(table, 'anthropic/claude-sonnet-4-5')).toEqual(table.models['claude-sonnet-4-5']);
    expect(priceOf(table, 'claude-opus-4-8')).toBeUndefined();
    expect(priceOf(table, 'gpt-5.5')).toBeUndefined();
    expect(priceOf(table, '__proto__')).toBeUndefined();
    expect(priceOf(table, undefined)).toBeUndefined();
  });

  it('refuses a hostile price table with one line', () => {
    const dir = tempDir('sp-prices-');
    for (const [name, body] of [['neg', { models: { m: { input: -1 } } }], ['str', { models: { m: { input: '1' } } }], ['none', { prices: {} }]] as const) {
      const path = join(dir, `${name}.json`);
      writeFileSync(path, JSON.stringify(body));
      expect(() => loadPrices(path)).toThrow(/price/);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('groups by Monday-started weeks; counts a Codex running total by its growth; a record once', () => {
    expect(weekOf(Date.UTC(2026, 10, 30, 12) / 1000)).toBe('2026-11-30'); // a Monday (TZ=UTC in vitest? computed locally)
    const reader = new UsageReader();
    const tc = (seq: number, total: number, last: number) => ({ session: 's', seq, ts: 1796015000 + seq, agent: 'codex', type: 'meta', payload: { key: 'codex.event_msg.token_count', value: { last: { input_tokens: last, output_tokens: 0 }, total: { total_tokens: total } } } });
    reader.add({ session: 's', seq: 0, ts: 1796015000, agent: 'codex', type: 'session.start', payload: { model: 'gpt-5', cwd: '/p' } });
    reader.add(tc(1, 100, 100));
    reader.add(tc(2, 100, 100)); // repeated: no growth
    reader.add(tc(3, 250, 150));
    const line = { path: 'x.jsonl', native_seq: 7 };
    const msg = (seq: number, extra?: Json) => ({ session: 'c', seq, ts: 1796015100, agent: 'claude', type: 'message.assistant', origin: line, payload: { message_id: 'm1', model: 'claude-haiku-4-5', usage: { input_tokens: 10, output_tokens: 1 }, ...(extra ? { extra } : {}) } });
    reader.add(msg(1, { requestId: 'r1' }));
    reader.add(msg(2)); // the same native line, without the request id
    expect(reader.records.map((r) => [r.agent, r.input, r.model, r.project])).toEqual([
      ['codex', 100, 'gpt-5', '/p'],
      ['codex', 150, 'gpt-5', '/p'],
      ['claude', 10, 'claude-haiku-4-5', undefined],
    ]);
    const prices: PriceTable = { models: { 'gpt-5': { input: 1, output: 0, cache_read: 0, cache_write: 0 } } };
    const rows = usageRows(reader.records, { by: 'agent', prices });
    expect(rows.map((r) => [r.key, r.input, r.cost])).toEqual([
      ['codex', 250, 0.00025],
      ['claude', 10, null],
    ]);
    expect(usageRows(reader.records, { by: 'agent', prices, since: 1796015050 }).map((r) => r.key)).toEqual(['claude']);
  });
});
