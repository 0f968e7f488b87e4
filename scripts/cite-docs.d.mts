// Types for scripts/cite-docs.mjs (imported by test/docs.test.ts).
export interface Citation {
  line: number;
  text: string;
  column: number;
  file: string;
  current: boolean;
  sections: string[];
}
export const ROOT: string;
export const SOURCE_DIRS: string[];
export const AGENT_PAGES: string[];
export function formatPage(name: string, section: string): string;
export function findCitations(text: string): Citation[];
export function resolveCitation(doc: string, section: string): { file: string; current: boolean };
export function sectionsOf(markdown: string): Set<string>;
export function rewriteCitation(citation: Citation): string;
export function rewriteText(text: string): { text: string; changed: number };
export function sourceFiles(root?: string): Generator<string>;
