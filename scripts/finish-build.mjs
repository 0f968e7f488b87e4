// After tsc: make the compiled bins executable (tsc keeps their shebang lines but not a mode).
import { chmodSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = new URL('../dist/bin/', import.meta.url).pathname;
for (const name of readdirSync(dir)) if (name.endsWith('.js')) chmodSync(join(dir, name), 0o755);

// The web viewer's bundle (sp serve, sp export html).
await import('./build-web.mjs');
