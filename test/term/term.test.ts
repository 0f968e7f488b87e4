// lib/term: display widths (CJK, emoji, combining marks), cutting and wrapping without splitting a
// grapheme, tables, relative times, the colour decision and the pager's command line.
import { describe, expect, it } from 'vitest';
import { cutToWidth, displayWidth, padToWidth, wrapText } from '../../lib/term/width.js';
import { relativeTime } from '../../lib/term/time.js';
import { palette, wantsColor } from '../../lib/term/color.js';
import { renderTable } from '../../lib/term/table.js';
import { pagerCommand } from '../../lib/term/pager.js';
import { stdoutIsTTY, terminalWidth } from '../../lib/term/terminal.js';

describe('display width', () => {
  it('counts CJK and emoji as two columns, combining marks and joiners as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('修复')).toBe(4);
    expect(displayWidth('テスト')).toBe(6);
    expect(displayWidth('👍')).toBe(2);
    expect(displayWidth('👩‍💻')).toBe(2);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('\x1b[31mred\x1b[39m')).toBe(3);
  });

  it('cuts to a width without splitting a wide character or a grapheme', () => {
    expect(cutToWidth('hello world', 8)).toBe('hello w…');
    expect(cutToWidth('hello', 5)).toBe('hello');
    // 修复登录 is 8 columns; at 6 only two fit before the ellipsis (4 + 1), the third would straddle.
    expect(cutToWidth('修复登录', 6)).toBe('修复…');
    expect(displayWidth(cutToWidth('修复登录', 6))).toBeLessThanOrEqual(6);
    expect(cutToWidth('ae\u0301bcdef', 4)).toBe('ae\u0301b…');
    expect(cutToWidth('👩‍💻👩‍💻👩‍💻', 5)).toBe('👩‍💻👩‍💻…');
    expect(cutToWidth('a\nb\tc', 10)).toBe('a b c');
    expect(cutToWidth('abc', 0)).toBe('');
  });

  it('pads by display width', () => {
    expect(padToWidth('修复', 6)).toBe('修复  ');
    expect(padToWidth('42', 5, 'right')).toBe('   42');
  });

  it('wraps at spaces, and inside CJK runs and over-long words', () => {
    expect(wrapText('the quick brown fox jumps', 10)).toEqual(['the quick', 'brown fox', 'jumps']);
    const cjk = wrapText('登录接口返回五百错误请修复', 10);
    expect(cjk).toEqual(['登录接口返', '回五百错误', '请修复']);
    for (const line of cjk) expect(displayWidth(line)).toBeLessThanOrEqual(10);
    expect(wrapText('abcdefghijkl', 5)).toEqual(['abcde', 'fghij', 'kl']);
    expect(wrapText('one\n\ntwo', 10)).toEqual(['one', '', 'two']);
  });
});

describe('relative time', () => {
  const now = new Date(2026, 10, 30, 15, 0, 0).getTime(); // local 30 Nov 2026 15:00
  const at = (ms: number) => ms / 1000;
  it('reads like a person would say it', () => {
    expect(relativeTime(at(now - 10_000), now)).toBe('just now');
    expect(relativeTime(at(now - 3 * 60_000), now)).toBe('3 min ago');
    expect(relativeTime(at(now - 59 * 60_000), now)).toBe('59 min ago');
    expect(relativeTime(at(now - 5 * 3600_000), now)).toBe('5 h ago');
    expect(relativeTime(at(new Date(2026, 10, 29, 23, 0).getTime()), now)).toBe('yesterday');
    expect(relativeTime(at(new Date(2026, 10, 27, 9, 0).getTime()), now)).toBe('3 days ago');
    expect(relativeTime(at(new Date(2026, 10, 2, 9, 0).getTime()), now)).toBe('2026-11-02');
  });
  it('shows the future and nonsense plainly', () => {
    expect(relativeTime(at(new Date(2027, 0, 5).getTime()), now)).toBe('2027-01-05');
    expect(relativeTime(undefined, now)).toBe('-');
    expect(relativeTime(Number.NaN, now)).toBe('-');
  });
});

describe('colour decision', () => {
  it('honours --color, NO_COLOR, FORCE_COLOR and the terminal, in that order', () => {
    expect(wantsColor({ isTTY: true, env: {} })).toBe(true);
    expect(wantsColor({ isTTY: false, env: {} })).toBe(false);
    expect(wantsColor({ isTTY: true, env: { NO_COLOR: '1' } })).toBe(false);
    expect(wantsColor({ isTTY: true, env: { NO_COLOR: '' } })).toBe(true);
    expect(wantsColor({ isTTY: false, env: { FORCE_COLOR: '1' } })).toBe(true);
    expect(wantsColor({ isTTY: true, env: { FORCE_COLOR: '0' } })).toBe(true);
    expect(wantsColor({ isTTY: false, env: { FORCE_COLOR: '' } })).toBe(false);
    expect(wantsColor({ mode: 'always', isTTY: false, env: { NO_COLOR: '1' } })).toBe(true);
    expect(wantsColor({ mode: 'never', isTTY: true, env: { FORCE_COLOR: '1' } })).toBe(false);
  });
  it('plain palette leaves text alone; a coloured one wraps it in SGR codes', () => {
    expect(palette(false).red('x')).toBe('x');
    expect(palette(true).red('x')).toBe('\x1b[31mx\x1b[39m');
  });
  it('SP_FORCE_TTY and COLUMNS override the stream', () => {
    expect(stdoutIsTTY({ SP_FORCE_TTY: '1' }, { isTTY: false })).toBe(true);
    expect(stdoutIsTTY({ SP_FORCE_TTY: '0' }, { isTTY: true })).toBe(false);
    expect(stdoutIsTTY({}, { isTTY: true })).toBe(true);
    expect(terminalWidth({ COLUMNS: '60' }, { columns: 120 })).toBe(60);
    expect(terminalWidth({}, { columns: 0 })).toBe(80);
  });
});

describe('table', () => {
  it('aligns columns by display width, right-aligns numbers and cuts the title to the width', () => {
    const text = renderTable(
      [{ header: 'ID' }, { header: 'EVENTS', align: 'right' }, { header: 'TITLE', flex: true }],
      [
        ['a1', '5', 'fix the login bug in the api please'],
        ['b22', '1234', '修复登录接口的五百错误并补上测试'],
      ],
      { width: 30, palette: palette(false) },
    );
    const lines = text.trimEnd().split('\n');
    expect(lines).toEqual(['ID   EVENTS  TITLE', 'a1        5  fix the login bu…', 'b22    1234  修复登录接口的五…']);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(30);
  });
  it('turns control characters in cells into spaces (a title cannot move the cursor)', () => {
    const text = renderTable([{ header: 'T', flex: true }], [['a\x1b[2Jb\rc']], { width: 40, palette: palette(false) });
    expect(text).not.toContain('\x1b');
    expect(text).not.toContain('\r');
  });
});

describe('pager command', () => {
  it('defaults to less -FRX, takes SP_PAGER over PAGER, and splits without a shell', () => {
    expect(pagerCommand({})).toEqual(['less', '-FRX']);
    expect(pagerCommand({ PAGER: 'more' })).toEqual(['more']);
    expect(pagerCommand({ PAGER: 'more', SP_PAGER: 'less -R' })).toEqual(['less', '-R']);
    expect(pagerCommand({ PAGER: '' })).toBeUndefined();
    expect(pagerCommand({ PAGER: 'cat' })).toBeUndefined();
    expect(pagerCommand({ PAGER: 'less; rm -rf ~' })).toEqual(['less;', 'rm', '-rf', '~']);
  });
});

describe('wrapping mixed CJK and Latin text', () => {
  it('breaks between CJK characters instead of leaving a short line', () => {
    const lines = wrapText('失败的是 `GET /todos/:id`：期望 200，实际拿到 404。', 20);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(20);
    // Nothing lost but the spaces a line ends at.
    expect(lines.join('').replace(/ /g, '')).toBe('失败的是`GET/todos/:id`：期望200，实际拿到404。');
    expect(wrapText('abc 修复登录接口', 10)).toEqual(['abc 修复登', '录接口']);
  });
});
