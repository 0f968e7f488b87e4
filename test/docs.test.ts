// The knowledge the code cites is in the repo: every `docs/design.md §N` / `docs/formats/<agent>.md
// §N` citation in a source comment (and the older short forms `DESIGN §N`, `formats/<note>.md §N`,
// which scripts/cite-docs.mjs rewrites) must name a docs/ page that exists and a numbered section
// that page defines. Also: every adapter has its format page, and the rewrite is mechanical.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT, findCitations, rewriteText, sectionsOf, sourceFiles } from '../scripts/cite-docs.mjs';

const sections = new Map<string, Set<string> | undefined>();
function sectionsIn(file: string): Set<string> | undefined {
  if (!sections.has(file)) {
    const path = join(ROOT, file);
    sections.set(file, existsSync(path) ? sectionsOf(readFileSync(path, 'utf8')) : undefined);
  }
  return sections.get(file);
}

/** Every citation in `text` whose page or section does not exist, as `where: citation → problem`. */
function brokenCitations(text: string, where: string): string[] {
  const problems: string[] = [];
  for (const c of findCitations(text)) {
    const defined = sectionsIn(c.file);
    if (!defined) problems.push(`${where}:${c.line}: ${c.text} → ${c.file} does not exist`);
    else for (const s of c.sections) if (!defined.has(s)) problems.push(`${where}:${c.line}: ${c.text} → ${c.file} has no section ${s}`);
  }
  return problems;
}

function docsPages(): string[] {
  const pages = readdirSync(join(ROOT, 'docs')).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`);
  return pages.concat(readdirSync(join(ROOT, 'docs/formats')).filter((n) => n.endsWith('.md')).map((n) => `docs/formats/${n}`));
}

describe('section citations', () => {
  it('every cited section in the sources exists in docs/', () => {
    let count = 0;
    const problems: string[] = [];
    for (const path of sourceFiles()) {
      const text = readFileSync(path, 'utf8');
      count += findCitations(text).length;
      problems.push(...brokenCitations(text, relative(ROOT, path)));
    }
    expect(problems).toEqual([]);
    // The sources do cite (a scan that found nothing would pass trivially).
    expect(count).toBeGreaterThan(80);
  });

  it('every cited section in the docs pages themselves exists', () => {
    const problems = docsPages().flatMap((page) => brokenCitations(readFileSync(join(ROOT, page), 'utf8'), page));
    expect(problems).toEqual([]);
  });

  it('reports a missing page and a missing section', () => {
    expect(brokenCitations('// see DESIGN §99 and docs/design.md §2', 'x.ts')).toEqual(['x.ts:1: DESIGN §99 → docs/design.md has no section 99']);
    expect(brokenCitations('// formats/nosuch.md §1', 'y.ts')).toEqual(['y.ts:1: formats/nosuch.md §1 → docs/formats/nosuch.md does not exist']);
    expect(brokenCitations('// formats/claude-code.md §5–§9', 'z.ts')).toEqual(['z.ts:1: formats/claude-code.md §5–§9 → docs/formats/claude.md has no section 9']);
  });

  it('resolves the old note names to the pages that took them over', () => {
    const files = (text: string) => findCitations(text).map((c) => c.file);
    expect(files('formats/claude-code.md §2.4')).toEqual(['docs/formats/claude.md']);
    expect(files('formats/gemini-qwen.md §2.3, formats/gemini-qwen.md §1')).toEqual(['docs/formats/gemini.md', 'docs/formats/gemini.md']);
    expect(files('formats/gemini-qwen.md §3.2')).toEqual(['docs/formats/qwen.md']);
    expect(files('DESIGN §3; pi.md §6')).toEqual(['docs/design.md', 'docs/formats/pi.md']);
    // Not citations: other documents' sections.
    expect(files('RFC 8785 §3.2.3, seed §7.3, README.md §2')).toEqual([]);
  });
});

describe('scripts/cite-docs.mjs', () => {
  it('rewrites old forms to docs/ paths, keeps the section text, and is idempotent', () => {
    const before = [
      '// The hash chain (DESIGN §2): checksum …',
      '// resumes (formats/claude-code.md §5–§7). What the client needs',
      '// Where Qwen Code keeps sessions (formats/gemini-qwen.md §3.1): …',
      '/** Columns (`formats/hermes.md` §8.5) */',
      '// already docs/formats/pi.md §2',
    ].join('\n');
    const once = rewriteText(before);
    expect(once.changed).toBe(4);
    expect(once.text.split('\n')).toEqual([
      '// The hash chain (docs/design.md §2): checksum …',
      '// resumes (docs/formats/claude.md §5–§7). What the client needs',
      '// Where Qwen Code keeps sessions (docs/formats/qwen.md §3.1): …',
      '/** Columns (`docs/formats/hermes.md` §8.5) */',
      '// already docs/formats/pi.md §2',
    ]);
    expect(rewriteText(once.text)).toEqual({ text: once.text, changed: 0 });
  });
});

describe('format pages', () => {
  it('every adapter folder has docs/formats/<agent>.md with numbered sections', () => {
    const agents = readdirSync(join(ROOT, 'adapters'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(agents.length).toBeGreaterThanOrEqual(13);
    for (const agent of agents) {
      const defined = sectionsIn(`docs/formats/${agent}.md`);
      expect(defined, agent).toBeDefined();
      expect(defined!.has('1'), `${agent}: §1`).toBe(true);
    }
  });
});
