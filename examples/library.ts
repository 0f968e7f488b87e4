// The library API in one script: list, capture (redacted), verify, compile and materialize a
// bundled Claude Code session into a temporary Codex home, without spawning a binary.
//   node dist/examples/library.js [CLAUDE_HOME]    (from a clone, after npm run build)
// Prints one line per step; exit 0 when every step did what it says.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agents, captureAll, compile, listSessionsAll, materialize, verify, type SpEvent } from 'session-portability';

const bundled = fileURLToPath(new URL('../../fixtures/claude/corpus/S2-debug/.claude', import.meta.url));
const claudeHome = process.argv[2] ?? bundled;
const work = mkdtempSync(join(tmpdir(), 'sp-library-'));
// The redaction key lives in SP_HOME: a temporary one here, not your ~/.sp.
process.env.SP_HOME ??= join(work, 'sp-home');

try {
  const writable = agents().filter((a) => a.writable).map((a) => a.id);
  console.log(`agents: ${agents().length} registered; writable: ${writable.join(', ')}`);

  const sessions = await listSessionsAll('claude', { home: claudeHome });
  if (sessions.length === 0) throw new Error(`no Claude Code session under ${claudeHome}`);
  console.log(`sessions: ${sessions.length}; newest: ${sessions[0].native_id} "${sessions[0].title ?? sessions[0].first_prompt ?? ''}"`);

  const events: SpEvent[] = await captureAll('claude', { home: claudeHome, session: sessions[0].native_id });
  console.log(`capture: ${events.length} events (redacted), ${events.filter((e) => e.type === 'tool.call').length} tool calls`);

  const report = await verify(events, { schema: true });
  console.log(`verify: ${report.ok ? 'ok' : 'FAILED'} (${report.sessions.length} session, ${report.events} events)`);
  if (!report.ok) process.exitCode = 1;

  const handoff = await compile(events, { target: 'codex', budget: 4000 });
  console.log(`compile: a ${handoff.tokens}-token handoff for Codex`);

  const [written] = await materialize('codex', events, { home: join(work, 'codex-home'), cwd: join(work, 'project'), mkcwd: true });
  console.log(`materialize: Codex session ${written.session_id}; resume with: ${written.resume}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
