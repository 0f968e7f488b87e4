#!/usr/bin/env node
// Points the code's section citations into the repository's own docs. Comments cite the design
// notes and the agents' format notes as `DESIGN §3`, `formats/claude-code.md §5–§7`,
// `formats/gemini-qwen.md §3.2`; those files lived outside the repo. This rewrites each to the page
// under docs/ that holds the section (`docs/design.md §3`, `docs/formats/claude.md §5–§7`,
// `docs/formats/qwen.md §3.2`): the numbering of docs/ follows the old notes, so only the file
// changes. Run it again after merging a branch that still has old citations:
//
//   node scripts/cite-docs.mjs          rewrite in place, print what changed
//   node scripts/cite-docs.mjs --check  change nothing; exit 1 if an old citation is left
//
// test/docs.test.ts uses findCitations/resolveCitation/sectionsOf to check that every cited section
// (old or new form) exists.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The folders whose sources cite sections, and the file kinds read. */
export const SOURCE_DIRS = ['lib', 'adapters', 'bin', 'flows', 'test', 'scripts', 'bench', 'examples', 'web'];
const SOURCE_EXT = /\.(ts|tsx|mts|mjs|js)$/;
/** Files that show citations as examples (this script and its test): never scanned or rewritten. */
const EXAMPLES = new Set(['scripts/cite-docs.mjs', 'scripts/cite-docs.d.mts', 'test/docs.test.ts']);

/** Agent pages under docs/formats/, and the old note names that map to them. */
export const AGENT_PAGES = ['aider', 'atif', 'claude', 'codex', 'copilot', 'cursor', 'gemini', 'hermes', 'opencode', 'otel', 'pi', 'qoder', 'qwen'];
const OLD_PAGE = { 'claude-code': 'claude' };

/** The page under docs/formats/ that holds `section` of an old (or new) note name. */
export function formatPage(name, section) {
  if (name === 'gemini-qwen') return section.startsWith('3') ? 'qwen' : 'gemini';
  return OLD_PAGE[name] ?? name;
}

// A section: `§2`, `§2.4`, and ranges `§5–§7`, `§2.1–§2.2`, `§8.2–8.4`.
const SECTION = String.raw`§ ?(\d+(?:\.\d+)*)(?:\s*[–-]\s*§?(\d+(?:\.\d+)*))?`;
// The forms a citation takes: docs paths, the old `formats/<name>.md`, a bare `<agent>.md`, `DESIGN`.
const CITATION = new RegExp(
  String.raw`(docs/design\.md|docs/formats/[a-z0-9-]+\.md|(?<![\w/.-])formats/[a-z0-9-]+\.md|(?<![\w/.-])(?:${AGENT_PAGES.join('|')})\.md|\bDESIGN(?:\.md)?)\x60?\s?` + SECTION,
  'g',
);

/**
 * Every citation in `text`: where (1-based line), the text as written, the docs file it resolves to
 * (relative to the repo root) and the sections it names (both ends of a range).
 */
export function findCitations(text) {
  const out = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    for (const m of line.matchAll(CITATION)) {
      const [whole, doc, first, last] = m;
      out.push({ line: i + 1, text: whole, column: m.index, ...resolveCitation(doc, first), sections: last ? [first, last] : [first] });
    }
  });
  return out;
}

/** The docs file a cited document names, and whether the citation is already in its docs/ form. */
export function resolveCitation(doc, section) {
  if (doc.startsWith('docs/')) {
    const m = /^docs\/formats\/([a-z0-9-]+)\.md$/.exec(doc);
    return { file: m ? `docs/formats/${formatPage(m[1], section)}.md` : doc, current: !m || formatPage(m[1], section) === m[1] };
  }
  if (/^DESIGN/.test(doc)) return { file: 'docs/design.md', current: false };
  const name = doc.replace(/^formats\//, '').replace(/\.md$/, '');
  return { file: `docs/formats/${formatPage(name, section)}.md`, current: false };
}

/** The section numbers a Markdown page defines: headings `## 2. …`, `### 2.4 …`. */
export function sectionsOf(markdown) {
  const found = new Set();
  for (const line of markdown.split('\n')) {
    const m = /^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s/.exec(line);
    if (m) found.add(m[1]);
  }
  return found;
}

/** The citation in its docs/ form (the section text kept as written). */
export function rewriteCitation(citation) {
  const at = citation.text.indexOf('§');
  // Keep a closing backtick of a code-quoted name: `formats/x.md` §2 → `docs/formats/x.md` §2.
  const quote = citation.text.slice(0, at).trimEnd().endsWith('`') ? '`' : '';
  return `${citation.file}${quote} ${citation.text.slice(at)}`;
}

/** `text` with every old-form citation rewritten; unchanged when there is none. */
export function rewriteText(text) {
  const lines = text.split('\n');
  let changed = 0;
  for (let i = 0; i < lines.length; i++) {
    const cites = findCitations(lines[i]).filter((c) => !c.current);
    // Right to left, so earlier columns stay valid.
    for (const c of cites.reverse()) {
      lines[i] = lines[i].slice(0, c.column) + rewriteCitation(c) + lines[i].slice(c.column + c.text.length);
      changed++;
    }
  }
  return { text: lines.join('\n'), changed };
}

/** Source files under the cited folders (node_modules, dist and generated output left out). */
export function* sourceFiles(root = ROOT) {
  const walk = function* (dir) {
    for (const name of readdirSync(dir).sort()) {
      if (name === 'node_modules' || name === 'dist' || name === 'out' || name.startsWith('.')) continue;
      const path = join(dir, name);
      const st = statSync(path);
      if (st.isDirectory()) yield* walk(path);
      else if (SOURCE_EXT.test(name) && !EXAMPLES.has(relative(root, path))) yield path;
    }
  };
  for (const dir of SOURCE_DIRS) if (existsSync(join(root, dir))) yield* walk(join(root, dir));
}

function main(argv) {
  const check = argv.includes('--check');
  let files = 0;
  let total = 0;
  for (const path of sourceFiles()) {
    const before = readFileSync(path, 'utf8');
    const { text, changed } = rewriteText(before);
    if (!changed) continue;
    files++;
    total += changed;
    if (!check) writeFileSync(path, text);
    process.stdout.write(`${relative(ROOT, path)}: ${changed}\n`);
  }
  process.stdout.write(`${check ? 'old citations' : 'rewritten'}: ${total} in ${files} files\n`);
  return check && total > 0 ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
