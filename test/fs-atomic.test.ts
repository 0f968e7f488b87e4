// Folders that writers move into place (lib/fs/atomic.ts renameDirNoReplace, lib/write/folder.ts)
// never replace what is there: rename(2) alone silently replaces an empty folder.
import { mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renameDirNoReplace } from '../lib/fs/atomic.js';
import { createFolderAtomic } from '../lib/write/folder.js';
import { tempDir } from './support/streams.js';

function staged(root: string): string {
  const staging = join(root, '.staging');
  mkdirSync(staging);
  writeFileSync(join(staging, 'session.json'), '{}');
  return staging;
}

describe('renameDirNoReplace', () => {
  it('moves a folder to a name nothing has', () => {
    const root = tempDir();
    renameDirNoReplace(staged(root), join(root, 'dir'));
    expect(readdirSync(root)).toEqual(['dir']);
    expect(readdirSync(join(root, 'dir'))).toEqual(['session.json']);
  });

  it('refuses an empty folder (which rename would replace), a full one, a file; each stays as it was', () => {
    for (const make of [(p: string) => mkdirSync(p), (p: string) => (mkdirSync(p), writeFileSync(join(p, 'theirs'), 'x')), (p: string) => writeFileSync(p, 'x')]) {
      const root = tempDir();
      const staging = staged(root);
      const dir = join(root, 'dir');
      make(dir);
      const before = statSync(dir);
      expect(() => renameDirNoReplace(staging, dir)).toThrow(expect.objectContaining({ code: 'EEXIST' }));
      expect(statSync(dir).ino).toBe(before.ino);
      expect(readdirSync(staging)).toEqual(['session.json']); // the caller still has its folder
    }
    // The check that fails without the claim: plain rename replaces the empty folder.
    const root = tempDir();
    mkdirSync(join(root, 'dir'));
    renameSync(staged(root), join(root, 'dir'));
    expect(readdirSync(join(root, 'dir'))).toEqual(['session.json']);
  });
});

describe('createFolderAtomic', () => {
  it('a folder made while its files were written (even empty) is left, with one line saying so; no staging left', () => {
    const root = tempDir();
    const dir = join(root, 'task-1');
    const files: Array<[string, () => Iterable<string>]> = [
      ['a.json', () => {
        mkdirSync(dir); // the racer, while the first file is written
        return ['{}'];
      }],
      ['b.json', () => ['{}']],
    ];
    expect(() => createFolderAtomic(root, dir, 'task-1', files)).toThrow(/a session with this id appeared meanwhile; nothing was written/);
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(root)).toEqual(['task-1']);
  });
});
