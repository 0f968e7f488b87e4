// Aligned tables for a terminal: each column as wide as its widest cell, numbers right-aligned,
// one "flex" column (a title) taking whatever width is left and cut to it with an ellipsis.
// Widths are display widths, so CJK titles line up. Colour is applied after padding.
import { cutToWidth, displayWidth, padToWidth } from './width.js';
import type { Palette } from './color.js';

export interface Column {
  header: string;
  align?: 'left' | 'right';
  /** Takes the width the others leave (at most one column). */
  flex?: boolean;
  /** Cells longer than this are cut (non-flex columns); such a column also shrinks when the table is too wide. */
  max?: number;
  /** Colours a cell's padded text. */
  style?: (text: string, row: number) => string;
}

const GAP = '  ';

export function renderTable(columns: Column[], rows: string[][], options: { width: number; palette: Palette }): string {
  const { width, palette } = options;
  const clean = rows.map((row) => columns.map((_, i) => (row[i] ?? '').replace(/[\x00-\x1f\x7f]+/g, ' ')));
  const widths = columns.map((c, i) => {
    let w = displayWidth(c.header);
    for (const row of clean) w = Math.max(w, displayWidth(row[i]!));
    return c.max !== undefined && !c.flex ? Math.min(w, Math.max(c.max, displayWidth(c.header))) : w;
  });
  const flex = columns.findIndex((c) => c.flex);
  if (flex >= 0) {
    const others = widths.reduce((sum, w, i) => (i === flex ? sum : sum + w), 0) + GAP.length * (columns.length - 1);
    widths[flex] = Math.max(Math.min(widths[flex]!, width - others), Math.min(widths[flex]!, 10));
  }
  // Still too wide (the title at its minimum): take it from the cuttable columns (those with a max).
  let over = widths.reduce((a, b) => a + b, 0) + GAP.length * (columns.length - 1) - width;
  for (let i = 0; i < columns.length && over > 0; i++) {
    if (columns[i]!.max === undefined || columns[i]!.flex) continue;
    const give = Math.min(over, Math.max(0, widths[i]! - Math.max(8, displayWidth(columns[i]!.header))));
    widths[i]! -= give;
    over -= give;
  }
  const line = (cellsOf: string[], style: (text: string, col: number) => string) =>
    cellsOf
      .map((cell, i) => {
        const last = i === columns.length - 1;
        const cut = cutToWidth(cell, widths[i]!);
        // The last column is not padded: no trailing spaces.
        const padded = last && columns[i]!.align !== 'right' ? cut : padToWidth(cut, widths[i]!, columns[i]!.align);
        return style(padded, i);
      })
      .join(GAP);
  const out = [line(columns.map((c) => c.header), (text) => palette.bold(text))];
  clean.forEach((row, r) => out.push(line(row, (text, i) => (columns[i]!.style ? columns[i]!.style!(text, r) : text))));
  return out.join('\n') + '\n';
}

/** A count with thousands separators ("12,345"). */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
