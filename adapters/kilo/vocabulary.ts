// Kilo Code CLI's tool vocabulary (docs/formats/kilo.md §3): OpenCode's tools with the same arguments
// (lib/formats/opencode/vocabulary.ts), plus Kilo's own, which the relay passes through by name.
import { SHARED_TOOLS, storeVocabulary } from '../../lib/formats/opencode/vocabulary.js';

const KILO_TOOLS = ['background_process', 'board_post', 'board_read', 'cancel_wakeup', 'kilo_local_recall', 'schedule_wakeup'];

export const kiloVocabulary = storeVocabulary('kilo', [...SHARED_TOOLS, ...KILO_TOOLS]);
