// Qoder CLI loader check with the real client (@qoder-ai/qodercli 1.1.52). Qoder cannot run a
// prompt offline (every prompt needs a Qoder login, docs/formats/qoder.md §2), so what is proven is the
// part of resume before the login step: sessions materialized from a corpus session of each of the
// first four agents (Claude Code, Codex, Pi, Hermes) and a Qoder transcript carried Qoder → Qoder
// are installed in one project of a throw-away home; with the network cut (a proxy at a closed
// port), `qodercli --list-sessions` must list each with a real title, its own or its first prompt (a broken
// parentUuid chain shows as "Empty conversation": the hand-broken control must), and
// `qodercli -p PROBE -r <id>` must get past session resolution to "Not logged in" (a rejected
// transcript exits 42 "Invalid session identifier"). Which history would reach the model is not
// observable here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { qoder } from '../../adapters/qoder/index.js';
import { projectSlug } from '../../lib/formats/claude-code/slug.js';
import type { MaterializeResult } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { canonicalize } from '../../lib/core/jcs.js';
import { captureAll } from '../contract/testAdapter.js';
import { SOURCES } from '../support/matrix.js';
import { clientBin } from '../support/geminiClients.js';
import { runClient, type ClientRun } from '../support/run.js';
import { ASSEMBLED, BROKEN_CHAIN } from '../qoder/support.js';

type Json = Record<string, any>;
/** One corpus session per source agent (the loader check costs ~30 s per client run). */
const PICKED = [['claude', 'S2'], ['codex', 'S1'], ['pi', 'S3'], ['hermes', 'S1']] as const;
const BROKEN_ID = '9b9b9b9b-0000-4000-8000-000000000001';

let work: string;
let home: string;
let cwd: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-qoder-acceptance-'));
  home = join(work, 'home');
  cwd = join(work, 'acme-api');
  mkdirSync(cwd, { recursive: true });
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function qodercli(args: string[]): Promise<ClientRun> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TERM: 'dumb', LANG: 'C.UTF-8', NO_COLOR: '1', HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '' };
  return runClient(clientBin('qodercli'), args, { cwd, env, timeoutMs: 240_000, killGroup: true });
}

async function* from(events: SpEvent[]): AsyncGenerator<SpEvent> {
  for (const event of events) yield JSON.parse(canonicalize(event)) as SpEvent;
}

function firstPrompt(path: string): string {
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as Json;
    if (r.type !== 'user') continue;
    const content = r.message?.content;
    if (typeof content === 'string') return content;
    const text = (content as Json[]).find((b) => b.type === 'text');
    if (text) return String(text.text);
  }
  return '';
}

/** `N. <title> (<when>) [<id>]` lines of --list-sessions → id → title. */
function listed(stdout: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const m = /^\s*\d+\.\s+(.*)\s+\([^()]*\)\s+\[([0-9a-f-]{36})\]\s*$/.exec(line);
    if (m) out.set(m[2], m[1].trim());
  }
  return out;
}

describe('qoder loader check: the real client lists and resolves materialized sessions up to its login step', () => {
  it('sessions from claude, codex, pi, hermes and qoder are listed with a real title and resolve to the login gate', async () => {
    const written: Array<{ name: string; result: MaterializeResult; prompt: string }> = [];
    for (const [agent, name] of PICKED) {
      const source = SOURCES.find((s) => s.agent === agent && s.name === name)!;
      const result = await qoder.materialize!(from(await source.capture()), { home: join(home, '.qoder'), cwd });
      written.push({ name: `${agent} ${name}`, result, prompt: firstPrompt(result.path) });
    }
    const own = await captureAll(qoder, ASSEMBLED);
    const result = await qoder.materialize!(from(own.events), { home: join(home, '.qoder'), cwd });
    written.push({ name: 'qoder assembled', result, prompt: firstPrompt(result.path) });
    expect(written.every((w) => w.result.path.startsWith(join(home, '.qoder', 'projects', projectSlug(cwd))))).toBe(true);
    // The control: a transcript whose chain is cut, installed next to them under its own id.
    const broken = readFileSync(BROKEN_CHAIN, 'utf8').replace(/"sessionId": ?"[^"]+"/g, `"sessionId": "${BROKEN_ID}"`);
    const brokenPath = join(home, '.qoder', 'projects', projectSlug(cwd), `${BROKEN_ID}.jsonl`);
    writeFileSync(brokenPath, broken);

    const list = await qodercli(['--list-sessions']);
    expect(list.timedOut, list.stderr.slice(-500)).toBe(false);
    expect(list.code, list.stderr.slice(-500)).toBe(0);
    const titles = listed(list.stdout);
    for (const w of written) {
      const title = titles.get(w.result.session_id);
      expect(title, `${w.name}: not listed\n${list.stdout}`).toBeDefined();
      expect(title, w.name).not.toBe('Empty conversation');
      // The title is the session's own (a title record the writer carried over) or its first prompt.
      const squash = (t: string) => t.replace(/\s+/g, ' ').trim();
      const head = squash(title!).replace(/…$/, '').slice(0, 30);
      const fromFile = readFileSync(w.result.path, 'utf8').includes(JSON.stringify(title).slice(1, -1));
      expect(fromFile || squash(w.prompt).startsWith(head), `${w.name}: title ${title}`).toBe(true);
    }
    expect(titles.get(BROKEN_ID)).toBe('Empty conversation');

    // Resolution: concurrently (each run mostly waits on its blocked network calls).
    const runs = await Promise.all(written.map((w) => qodercli(['-p', 'SP-LOADER-CHECK-PROBE', '-r', w.result.session_id])));
    runs.forEach((run, i) => {
      const out = run.stdout + run.stderr;
      expect(run.timedOut, written[i].name).toBe(false);
      expect(out, written[i].name).not.toMatch(/Invalid session identifier/);
      expect(run.code, written[i].name).not.toBe(42);
      expect(out, written[i].name).toMatch(/Not logged in/);
    });
  }, 900_000);
});
