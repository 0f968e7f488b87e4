// The shared adapter contract suite on Kilo Code task folders built from the format
// (test/cline-tasks/build.ts): Kilo writes Roo's shapes (it is Roo's fork).
import { kiloVscode } from '../../adapters/kilo-vscode/index.js';
import { rooLegacy, rooV2 } from '../cline-tasks/build.js';
import { scratchStorage, taskContract } from '../cline-tasks/support.js';
import { testAdapter } from '../contract/testAdapter.js';

const storage = scratchStorage('kilo-vscode', 'kilocode.kilo-code');
const fixtures = [rooLegacy(storage), rooV2(storage)];

testAdapter(kiloVscode, taskContract(fixtures, storage));
