// "Let me resume this session on my other machine", end to end with real parts: machine A (its own
// SP_HOME) stores a session recorded under /home/alice/acme-api (the Codex S2 recording, moved
// there, with its repository's origin URL) and pushes it to a bare git repository made by real git;
// machine B (another SP_HOME, trusting A's key, the project cloned at another path) runs
// `sp resume … --in codex|claude|pi` with a scratch home. The first resume pulls (it is not on B
// yet); each real client then resumes the written session against the mock model, and the request
// it sends names B's checkout and never A's folder.
import { spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MaterializeResult } from '../../lib/adapter/interface.js';
import { ALICE_ROOT, aliceRecording } from '../support/resume.js';
import { TARGETS } from '../support/matrixTargets.js';
import { runBin, tempDir } from '../support/streams.js';

const OLD = ALICE_ROOT;
const ORIGIN = 'git@github.com:acme/acme-api.git';

const machineA = { home: '' };
const machineB = { home: '', folder: '', checkout: '' };

function sp(name: string, args: string[], home: string, options: { input?: string; cwd?: string } = {}) {
  const r = runBin(name, args, { ...options, env: { SP_HOME: home, SP_PROGRESS: '0', CODEX_HOME: '', CLAUDE_CONFIG_DIR: '', PI_CODING_AGENT_DIR: '' } });
  return r;
}

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  expect(r.status, r.stderr).toBe(0);
}

beforeAll(() => {
  const root = realpathSync(tempDir('sp-two-machines-'));
  // Machine A: the session as recorded in Alice's checkout, stored and pushed to a bare remote.
  machineA.home = join(root, 'A');
  const recorded = aliceRecording(ORIGIN);
  expect(recorded).toContain(OLD);
  const bare = join(root, 'sessions.git');
  git(root, 'init', '-q', '--bare', bare);
  for (const [args, input] of [[['ingest', '-'], recorded + '\n'], [['remote', 'add', 'origin', bare]], [['push']]] as Array<[string[], string?]>) {
    const r = sp('sp-sync', args, machineA.home, { input });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  }
  // Machine B: trusts A's key, knows the remote, has not pulled; the project is checked out elsewhere.
  machineB.home = join(root, 'B');
  for (const args of [['trust', 'add', join(machineA.home, 'keys', 'id_ed25519.pub'), '--name', 'machine-a'], ['remote', 'add', 'origin', bare]]) {
    const r = sp('sp-sync', args, machineB.home);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  }
  machineB.folder = join(root, 'b-user');
  machineB.checkout = join(machineB.folder, 'code', 'acme-api');
  mkdirSync(machineB.checkout, { recursive: true });
  git(machineB.checkout, 'init', '-q');
  git(machineB.checkout, 'remote', 'add', 'origin', 'https://github.com/acme/acme-api.git');
});

describe('resume on another machine', () => {
  // In order: the first one finds the store empty and pulls.
  for (const [i, agent] of (['codex', 'claude', 'pi'] as const).entries()) {
    it(`--in ${agent}: the real client resumes it in B's checkout; the request has B's paths and none of A's`, async () => {
      const target = TARGETS.find((t) => t.id === agent)!;
      const place = target.prepare(realpathSync(tempDir(`sp-two-machines-${agent}-`)));
      const home = place.options.home!;
      const r = sp('sp-resume', ['01a22ad9-7cda', '--in', agent, '--home', home, '--json'], machineB.home, { cwd: machineB.folder });
      expect(r.code, r.stderr).toBe(0);
      if (i === 0) expect(r.stderr).toMatch(/not in the store here; pulling from origin[\s\S]*pulled 69 events/);
      else expect(r.stderr).not.toMatch(/pulling/);
      expect(r.stderr).toContain(`paths: ${OLD} → ${machineB.checkout}`);
      const result = JSON.parse(r.stdout) as MaterializeResult & { path_mapped: Record<string, unknown> };
      expect(result.cwd).toBe(machineB.checkout);
      expect(result.resume_exec?.env).toEqual({ [{ codex: 'CODEX_HOME', claude: 'CLAUDE_CONFIG_DIR', pi: 'PI_CODING_AGENT_DIR' }[agent]]: home });
      expect(result.resume).toContain(`cd ${machineB.checkout} && `);
      expect(Object.keys(result.path_mapped)).toContain('session.start');

      const observed = await target.resume(result, place);
      expect(observed.accepted, observed.why).toBe(true);
      expect(observed.texts).toContain(machineB.checkout);
      expect(observed.texts).not.toContain(OLD);
      expect(observed.texts).not.toContain('/home/alice');
    }, 150_000);
  }
});
