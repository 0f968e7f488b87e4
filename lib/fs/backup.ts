// The name of the copy a writer keeps before it adds to a file an agent shares (a database, an
// index): `<file>.sp-backup-<UTC time>`, with `-2`, `-3` … when two writes fall in one second.
import { existsSync } from 'node:fs';

export function backupName(path: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  let name = `${path}.sp-backup-${stamp}`;
  for (let n = 2; existsSync(name); n += 1) name = `${path}.sp-backup-${stamp}-${n}`;
  return name;
}
