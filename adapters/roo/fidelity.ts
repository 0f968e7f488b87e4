// What each canonical event type keeps through the Roo Code adapter: the task-folder format's
// table (lib/formats/cline-tasks/fidelity.ts); the extension is read, never written.
import type { FidelityTable } from '../../lib/adapter/interface.js';
import { fidelity as taskStore } from '../../lib/formats/cline-tasks/fidelity.js';

export const fidelity: FidelityTable = taskStore;
