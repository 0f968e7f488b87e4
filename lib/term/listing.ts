// "Rows → a table when stdout is a terminal": the one hook a listing calls (sp-capture --list,
// sp-sync ls / search, and any listing added later). On a terminal without --json it prints an
// aligned table; otherwise it tells the caller to print what it printed before (NDJSON or its
// plain lines), so piped output stays byte for byte what scripts already read.
import { palette, wantsColor, type ColorMode } from './color.js';
import { renderTable, type Column } from './table.js';
import { stdoutIsTTY, terminalWidth, wantsTable } from './terminal.js';

export interface ListingOptions {
  json?: boolean;
  /** --color, when the binary has one (auto otherwise: NO_COLOR and FORCE_COLOR still apply). */
  color?: ColorMode | string;
  env?: NodeJS.ProcessEnv;
  out?: { isTTY?: boolean; columns?: number; write(text: string): unknown };
}

/** Whether a listing should print a table (lib/term/terminal.ts). */
export { wantsTable };

/**
 * Prints `rows` as a table (see lib/term/table.ts) sized to the terminal. `columns[i].style`
 * receives the palette's decision: pass a function of the palette to colour a column.
 */
export function printTable<R>(
  rows: R[],
  columns: Array<Omit<Column, 'style'> & { cell: (row: R) => string; color?: (row: R) => keyof ColourNames | undefined }>,
  options: ListingOptions & { empty?: string } = {},
): void {
  const env = options.env ?? process.env;
  const out = options.out ?? process.stdout;
  const p = palette(wantsColor({ mode: options.color, isTTY: stdoutIsTTY(env, out), env }));
  if (rows.length === 0) {
    out.write(`${options.empty ?? '(none)'}\n`);
    return;
  }
  const text = renderTable(
    columns.map((c) => ({
      header: c.header,
      align: c.align,
      flex: c.flex,
      max: c.max,
      style: c.color ? (cell: string, r: number) => {
        const name = c.color!(rows[r]!);
        return name ? p[name](cell) : cell;
      } : undefined,
    })),
    rows.map((row) => columns.map((c) => c.cell(row))),
    { width: terminalWidth(env, out), palette: p },
  );
  out.write(text);
}

type ColourNames = { red: 1; green: 1; yellow: 1; blue: 1; magenta: 1; cyan: 1; dim: 1; bold: 1 };
