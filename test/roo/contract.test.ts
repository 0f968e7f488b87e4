// The shared adapter contract suite on Roo Code task folders built from the format
// (test/cline-tasks/build.ts): the versioned AI SDK file and the older Anthropic array.
import { roo } from '../../adapters/roo/index.js';
import { rooLegacy, rooV2, uiOnly } from '../cline-tasks/build.js';
import { scratchStorage, taskContract } from '../cline-tasks/support.js';
import { testAdapter } from '../contract/testAdapter.js';

const storage = scratchStorage('roo', 'rooveterinaryinc.roo-cline');
const fixtures = [rooV2(storage), rooLegacy(storage), uiOnly(storage, 'a1b2c3d4-0000-4000-8000-000000000001')];

testAdapter(roo, taskContract(fixtures, storage));
