// Display widths on a terminal: how many columns a string takes (CJK and most emoji take two,
// combining marks and zero-width joiners none), and cutting or wrapping to a width without
// splitting a grapheme. string-width does the per-grapheme measure; ANSI colour codes count zero.
import stringWidth from 'string-width';

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Columns `text` takes on a terminal (ANSI escapes count zero). */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/** The graphemes of `text`, each with its width. */
function* cells(text: string): Generator<{ g: string; w: number }> {
  for (const { segment } of graphemes.segment(text)) yield { g: segment, w: stringWidth(segment) };
}

/**
 * `text` on one line of at most `width` columns: newlines and tabs become spaces, and a cut text
 * ends in `ellipsis`. A wide character that would straddle the edge is left out whole.
 */
export function cutToWidth(text: string, width: number, ellipsis = '…'): string {
  const flat = text.replace(/[\r\n\t]+/g, ' ');
  if (width <= 0) return '';
  if (stringWidth(flat) <= width) return flat;
  const room = width - stringWidth(ellipsis);
  if (room < 0) return '';
  let out = '';
  let used = 0;
  for (const { g, w } of cells(flat)) {
    if (used + w > room) break;
    out += g;
    used += w;
  }
  return out + ellipsis;
}

/** `text` padded with spaces to `width` columns (left-aligned, or right-aligned for numbers). */
export function padToWidth(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const gap = Math.max(0, width - stringWidth(text));
  return align === 'right' ? ' '.repeat(gap) + text : text + ' '.repeat(gap);
}

/**
 * The break opportunities of a paragraph: a word with the spaces after it, or a single wide
 * grapheme (CJK text has no spaces and may break between any two characters).
 */
function tokens(paragraph: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const { g, w } of cells(paragraph)) {
    if (w >= 2) {
      if (current !== '') out.push(current);
      out.push(g);
      current = '';
    } else if (g === ' ') {
      current += g;
    } else {
      if (current.endsWith(' ')) {
        out.push(current);
        current = '';
      }
      current += g;
    }
  }
  if (current !== '') out.push(current);
  return out;
}

/**
 * Wraps plain text (no ANSI codes) to `width` columns: at spaces, between CJK characters, and
 * between graphemes in a word longer than a line. Existing line breaks are kept; trailing spaces
 * are dropped.
 */
export function wrapText(text: string, width: number): string[] {
  const w = Math.max(1, width);
  const out: string[] = [];
  for (const paragraph of text.replace(/\r\n?/g, '\n').replace(/\t/g, '  ').split('\n')) {
    let line = '';
    let used = 0;
    const flush = () => {
      out.push(line.replace(/\s+$/, ''));
      line = '';
      used = 0;
    };
    for (const word of tokens(paragraph)) {
      const ww = stringWidth(word);
      const bare = stringWidth(word.trimEnd());
      if (used + bare <= w) {
        line += word;
        used += ww;
        continue;
      }
      if (used > 0 && bare <= w) {
        flush();
        line = word;
        used = ww;
        continue;
      }
      // A word longer than the room left: break it between graphemes.
      for (const { g, w: gw } of cells(word)) {
        if (used + gw > w && used > 0) {
          if (g === ' ') continue;
          flush();
        }
        line += g;
        used += gw;
      }
    }
    flush();
  }
  return out;
}
