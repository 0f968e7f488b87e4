// The shared adapter contract suite on VS Code chat sessions built from the format (./build.ts): an
// agent-mode mutation log first (records are its lines, so the default JSONL injections apply), a
// flat ask-mode file and an empty-window file.
import { vscodeCopilot } from '../../adapters/vscode-copilot/index.js';
import { testAdapter } from '../contract/testAdapter.js';
import { agentLog, askFlat, emptyWindow, scratchHome } from './build.js';

const home = scratchHome();
const fixtures = [agentLog(home), askFlat(home), emptyWindow(home)];

// The editor rewrites a flat file whole and its log patches earlier requests: a session is read whole.
testAdapter(vscodeCopilot, { fixtures, home, incremental: false, roundTrip: false });
