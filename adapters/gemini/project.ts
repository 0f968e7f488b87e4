// The project folder (`tmp/<slug>`) Gemini CLI uses for a project root, as its ProjectRegistry
// finds it (docs/formats/gemini.md §2.1), and registration of a new one by NEW files only:
//   1. projects.json maps the root to a slug whose `.project_root` names no other root → that slug;
//   2. a `tmp/*/.project_root` or `history/*/.project_root` naming the root → that folder;
//   3. else basename(root) lower-cased, [^a-z0-9] → "-", squeezed, trimmed ("project" if empty),
//      with -1, -2 … while taken by another root.
// A writer that creates `tmp/<slug>/.project_root` for case 3 makes the client find the slug by rule
// 2 on its next start (and the client then records it in projects.json itself), so the user's
// projects.json is never rewritten.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { isObject } from '../../lib/core/json.js';
import { projectRootOf, tmpDir } from './paths.js';

export function readProjects(home: string): Record<string, string> {
  try {
    const value: unknown = JSON.parse(readFileSync(join(home, 'projects.json'), 'utf8'));
    if (isObject(value) && isObject(value.projects)) {
      const out: Record<string, string> = {};
      for (const [root, slug] of Object.entries(value.projects)) if (typeof slug === 'string') out[root] = slug;
      return out;
    }
  } catch {
    // missing or unreadable: the client treats it as empty
  }
  return {};
}

/** Every `<dir>/*` folder's `.project_root` owner. */
function owners(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const owner = projectRootOf(join(dir, name));
    if (owner !== undefined) out.set(name, owner);
  }
  return out;
}

export function baseSlug(root: string): string {
  const slug = basename(root).toLowerCase().replace(/[^a-z0-9]/g, '-').replace(/-+/g, '-').replace(/^-|-$/g, '');
  return slug === '' ? 'project' : slug;
}

export interface ProjectSlug {
  slug: string;
  /** True when no marker names the root yet: the writer creates `tmp/<slug>/.project_root`. */
  register: boolean;
}

export function projectSlugFor(home: string, rootPath: string): ProjectSlug {
  const root = resolve(rootPath);
  const projects = readProjects(home);
  const tmpOwners = owners(tmpDir(home));
  const historyOwners = owners(join(home, 'history'));
  const mapped = projects[root];
  if (mapped !== undefined) {
    const owner = tmpOwners.get(mapped);
    if (owner === undefined || owner === root) return { slug: mapped, register: owner === undefined };
  }
  for (const owned of [tmpOwners, historyOwners]) {
    for (const [slug, owner] of owned) if (owner === root) return { slug, register: !tmpOwners.has(slug) };
  }
  const base = baseSlug(root);
  const takenBy = (slug: string): boolean => {
    for (const [r, s] of Object.entries(projects)) if (s === slug && r !== root) return true;
    const t = tmpOwners.get(slug);
    const h = historyOwners.get(slug);
    if ((t !== undefined && t !== root) || (h !== undefined && h !== root)) return true;
    // A folder without a marker may hold another project's sessions: not claimed.
    return t === undefined && existsSync(join(tmpDir(home), slug));
  };
  let slug = base;
  for (let i = 1; takenBy(slug); i += 1) slug = `${base}-${i}`;
  return { slug, register: true };
}

/** The project root of a slug folder: its marker, else the root projects.json maps to it. */
export function rootOfSlug(home: string | undefined, slugDir: string): string | undefined {
  const marked = projectRootOf(slugDir);
  if (marked !== undefined || home === undefined) return marked;
  const slug = basename(slugDir);
  for (const [root, s] of Object.entries(readProjects(home))) if (s === slug) return root;
  return undefined;
}
