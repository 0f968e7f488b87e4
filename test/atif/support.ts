// What the ATIF tests share: the fixtures and a way to run the built binaries.
import { spawnSync } from 'node:child_process';

export const FIXTURES = ['fixtures/atif/rfc-example-v1.4.json', 'fixtures/atif/terminus-v1.7.json', 'fixtures/atif/minimal-v1.0.json', 'fixtures/atif/multimodal-v1.6.json'];

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `dist/bin/<bin>.js` with `args`, `input` on stdin, `env` added to the environment. */
export function run(bin: string, args: string[], input?: string, env: Record<string, string> = {}): Run {
  const r = spawnSync(process.execPath, [`dist/bin/${bin}.js`, ...args], { input, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
