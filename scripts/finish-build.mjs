// After tsc: make the compiled bins executable (tsc keeps their shebang lines but not a mode).
import { chmodSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = new URL('../dist/bin/', import.meta.url).pathname;
for (const name of readdirSync(dir)) if (name.endsWith('.js')) chmodSync(join(dir, name), 0o755);

// sp usage's price table ships as JSON next to its compiled module (tsc copies only .ts output).
import { copyFileSync } from 'node:fs';
copyFileSync(new URL('../lib/usage/prices.json', import.meta.url), new URL('../dist/lib/usage/prices.json', import.meta.url));
