// Kimi CLI sessions built here from the client's source (docs/formats/kimi.md): the client is a
// Python program that cannot run here (one public recording is read in public.test.ts), so the tests
// write the shapes its code writes into a throw-away home: kimi.json, one session in its own
// folder (context.jsonl, wire.jsonl, state.json) and one in the older flat `<uuid>.jsonl` layout.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CWD = '/home/judy/acme-api';
export const OTHER_CWD = '/home/judy/notes';
export const SESSION_ID = '3f2b9c1e-8d4a-4e6b-9f0c-1a2b3c4d5e6f';
export const LEGACY_ID = '7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d';
export const TITLE = 'Fix the failing date test';
export const MTIME = 1_780_000_000;
export const LEGACY_MTIME = 1_770_000_000;
/** The first record of the session's wire.jsonl: when it began. */
export const WIRE_START = MTIME - 600.25;

const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');
const jsonl = (records: unknown[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** The lines of the main session, as `Context` appends them (`model_dump_json(exclude_none=True)`). */
export const SESSION_RECORDS: unknown[] = [
  { role: '_system_prompt', content: 'You are Kimi CLI, an interactive agent.' },
  { role: '_checkpoint', id: 0 },
  { role: 'user', content: 'The date test fails, fix it' },
  { role: 'assistant', content: [{ type: 'think', think: 'Run the tests first.', encrypted: null }, { type: 'text', text: 'Let me run the tests.' }], tool_calls: [{ type: 'function', id: 'Shell:0', function: { name: 'Shell', arguments: '{"command": "npm test", "timeout": 60}' } }] },
  { role: '_usage', token_count: 5120 },
  { role: 'tool', content: '1 failing: formatDate', tool_call_id: 'Shell:0' },
  { role: 'assistant', content: '', tool_calls: [{ type: 'function', id: 'ReadFile:1', function: { name: 'ReadFile', arguments: '{"path": "src/date.ts", "line_offset": 1, "n_lines": 40}' } }, { type: 'function', id: 'Glob:2', function: { name: 'Glob', arguments: '{"pattern": "**/*.test.ts"}' } }] },
  { role: 'tool', content: [{ type: 'text', text: '<system>40 lines read from file starting from line 1.</system>' }, { type: 'text', text: '1\texport const formatDate = …' }], tool_call_id: 'ReadFile:1' },
  { role: 'tool', content: [{ type: 'text', text: '<system>ERROR: No files matched.</system>' }], tool_call_id: 'Glob:2' },
  { role: '_checkpoint', id: 1 },
  { role: 'assistant', content: [{ type: 'text', text: 'Fixing the format.' }], tool_calls: [{ type: 'function', id: 'StrReplaceFile:3', function: { name: 'StrReplaceFile', arguments: '{"path": "src/date.ts", "edit": {"old": "MM", "new": "mm", "replace_all": true}}' } }] },
  { role: 'tool', content: '<system>File successfully edited.</system>', tool_call_id: 'StrReplaceFile:3' },
  { role: 'user', content: [{ type: 'text', text: 'And this screenshot?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }, { type: 'audio_url', audio_url: { url: 'https://example.com/a.mp3' } }] },
  { role: 'assistant', content: 'Done: the test passes.' },
  { role: '_usage', token_count: 8200 },
];

/** The older flat layout: the same kinds of lines (the contract grows it line by line). */
const LEGACY_RECORDS: unknown[] = [
  { role: 'user', content: 'List my notes' },
  { role: 'assistant', content: 'You have none.' },
  ...SESSION_RECORDS.slice(3),
];

export interface KimiHome {
  home: string;
  session: string;
  legacy: string;
}

/** A fresh share dir (`~/.kimi`) holding both sessions, under the system temp folder. */
export function buildHome(): KimiHome {
  const home = mkdtempSync(join(tmpdir(), 'sp-kimi-home-'));
  writeFileSync(join(home, 'kimi.json'), JSON.stringify({ work_dirs: [{ path: CWD, kaos: 'local', last_session_id: SESSION_ID }] }));
  const folder = join(home, 'sessions', md5(CWD), SESSION_ID);
  mkdirSync(folder, { recursive: true });
  const session = join(folder, 'context.jsonl');
  writeFileSync(session, jsonl(SESSION_RECORDS));
  writeFileSync(join(folder, 'state.json'), JSON.stringify({ version: 1, custom_title: TITLE, archived: false }));
  writeFileSync(join(folder, 'wire.jsonl'), jsonl([
    { type: 'metadata', protocol_version: '1.10' },
    { timestamp: WIRE_START, message: { type: 'TurnBegin', payload: { user_input: 'The date test fails, fix it' } } },
  ]));
  utimesSync(session, MTIME, MTIME);
  const otherFolder = join(home, 'sessions', md5(OTHER_CWD));
  mkdirSync(otherFolder, { recursive: true });
  const legacy = join(otherFolder, `${LEGACY_ID}.jsonl`);
  writeFileSync(legacy, jsonl(LEGACY_RECORDS));
  utimesSync(legacy, LEGACY_MTIME, LEGACY_MTIME);
  return { home, session, legacy };
}
