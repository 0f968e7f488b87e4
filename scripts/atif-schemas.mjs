// Writes schema/atif/atif-v<version>.schema.json for every ATIF version from adapters/atif/schemas.ts
// (after `npm run build`): the same schemas sp validates with, as files other tools can use.
// test/atif/atif.test.ts fails when the files and the code differ.
import { mkdirSync, writeFileSync } from 'node:fs';

const { ATIF_VERSIONS, atifSchema } = await import('../dist/adapters/atif/schemas.js');
const dir = new URL('../schema/atif/', import.meta.url);
mkdirSync(dir, { recursive: true });
for (const version of ATIF_VERSIONS) writeFileSync(new URL(`atif-v${version}.schema.json`, dir), JSON.stringify(atifSchema(version), null, 2) + '\n');
