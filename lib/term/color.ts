// Whether to colour, and the few styles the terminal views use. The decision, in order: an explicit
// --color=always|never; NO_COLOR (any non-empty value, no-color.org) turns it off; FORCE_COLOR
// (anything but "0"/"false") turns it on; otherwise colour only when the stream is a terminal.
import { colorEnabled } from '../cli/color.js';
export type ColorMode = 'auto' | 'always' | 'never';

export const COLOR_MODES: readonly ColorMode[] = ['auto', 'always', 'never'];

export function wantsColor(options: { mode?: ColorMode | string; isTTY: boolean | undefined; env?: NodeJS.ProcessEnv }): boolean {
  if (options.mode === 'always') return true;
  if (options.mode === 'never') return false;
  // auto: the run's --color/--no-color (lib/cli/cli.ts), else NO_COLOR, FORCE_COLOR, else a terminal.
  return colorEnabled({ isTTY: options.isTTY }, options.env ?? process.env);
}

export interface Palette {
  enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  blue(text: string): string;
  magenta(text: string): string;
  cyan(text: string): string;
  /** Redaction placeholders: reversed, so a reader sees at once what was taken out. */
  mark(text: string): string;
}

const sgr = (open: number, close: number) => (text: string) => (text === '' ? '' : `\x1b[${open}m${text}\x1b[${close}m`);
const plain = (text: string) => text;

export function palette(enabled: boolean): Palette {
  if (!enabled) {
    return { enabled, bold: plain, dim: plain, red: plain, green: plain, yellow: plain, blue: plain, magenta: plain, cyan: plain, mark: plain };
  }
  return {
    enabled,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    blue: sgr(34, 39),
    magenta: sgr(35, 39),
    cyan: sgr(36, 39),
    mark: (text) => (text === '' ? '' : `\x1b[7;33m${text}\x1b[27;39m`),
  };
}
