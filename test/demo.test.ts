import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { root } from './support/streams.js';

// The README's third command must keep working: a real relay on a bundled fixture.
describe('npm run demo', () => {
  it('relays the bundled Claude Code session into Codex and the real client sends all of it', () => {
    const r = spawnSync(process.execPath, [join(root, 'examples', 'demo.mjs')], { encoding: 'utf8', timeout: 240_000 });
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('1 session, 47 events: verified'); // 46 captured and sp-redact's closing sp.redacted marker
    expect(r.stdout).toMatch(/✓ Codex resumed the Claude Code session: every prompt \(2\) and every tool call \(8\) reached the model/);
  }, 240_000);
});
