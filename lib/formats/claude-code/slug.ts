// The project folder Claude Code keeps a cwd's sessions in (docs/formats/claude.md §1). The client
// finds a session only in the folder of its own cwd, so a writer must get this name exactly right.

/** Longest slug the client uses as is; longer ones are cut and get a hash suffix. */
export const MAX_SLUG_LENGTH = 200;

/**
 * The Java `String.hashCode` of `text` (32-bit, over UTF-16 code units): `h = 31*h + c`,
 * wrapping at 32 bits. The client disambiguates cut slugs with it.
 */
export function javaStringHash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i += 1) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h;
}

/**
 * `~/.claude/projects/<slug>` for an (already resolved) absolute cwd: every UTF-16 code unit outside
 * [A-Za-z0-9] becomes `-` (so `é` is one dash, an emoji two); past 200 characters the slug is cut and
 * `-` + base-36 of |hash(original path)| is appended.
 */
export function projectSlug(cwd: string): string {
  const slug = cwd.replace(/[^A-Za-z0-9]/g, '-');
  if (slug.length <= MAX_SLUG_LENGTH) return slug;
  return `${slug.slice(0, MAX_SLUG_LENGTH)}-${Math.abs(javaStringHash(cwd)).toString(36)}`;
}

/** The cwd as the client will see it (it slugs `realpath(cwd)`). */
export { realCwd as resolveCwd } from '../../fs/paths.js';
