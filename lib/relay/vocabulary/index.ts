// The tool vocabularies a relay translates between: one entry per agent (its file in this folder).
import { atifVocabulary } from './atif.js';
import { claudeVocabulary } from './claude.js';
import { codexVocabulary } from './codex.js';
import { copilotVocabulary } from './copilot.js';
import { cursorVocabulary } from './cursor.js';
import { geminiVocabulary } from './gemini.js';
import { hermesVocabulary } from './hermes.js';
import { opencodeVocabulary } from './opencode.js';
import { piVocabulary } from './pi.js';
import { qwenVocabulary } from './qwen.js';
import type { Vocabulary } from './types.js';

export const VOCABULARIES: Record<string, Vocabulary> = {
  claude: claudeVocabulary,
  codex: codexVocabulary,
  pi: piVocabulary,
  hermes: hermesVocabulary,
  opencode: opencodeVocabulary,
  copilot: copilotVocabulary,
  // Cursor's calls are translated for other targets; as a target its (experimental) writer takes text.
  cursor: cursorVocabulary,
  gemini: geminiVocabulary,
  qwen: qwenVocabulary,
  // Qoder's tools are Claude Code's (docs/formats/qoder.md §4).
  qoder: { ...claudeVocabulary, agent: 'qoder' },
  atif: atifVocabulary,
};

export function vocabularyOf(agent: string | undefined): Vocabulary | undefined {
  return agent !== undefined ? VOCABULARIES[agent] : undefined;
}

export type { Intent, NativeCall, Vocabulary } from './types.js';
