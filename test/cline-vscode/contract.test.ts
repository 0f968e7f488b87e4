// The shared adapter contract suite on Cline VS Code task folders built from the format
// (test/cline-tasks/build.ts): native tool calls, XML-style text tools, a task with UI messages only.
import { clineVscode } from '../../adapters/cline-vscode/index.js';
import { clineNative, clineXml, uiOnly, writeClineHistory } from '../cline-tasks/build.js';
import { scratchStorage, taskContract } from '../cline-tasks/support.js';
import { testAdapter } from '../contract/testAdapter.js';

const storage = scratchStorage('cline-vscode', 'saoudrizwan.claude-dev');
const fixtures = [clineNative(storage), clineXml(storage), uiOnly(storage)];
writeClineHistory(storage, [{ id: '1764579600000', ts: 1764579605000, task: 'Fix the failing test in src/app.ts', cwdOnTaskInitialization: '/home/dev/project' }]);

testAdapter(clineVscode, taskContract(fixtures, storage));
