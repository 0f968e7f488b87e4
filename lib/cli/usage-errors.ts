// yargs' own usage messages ("Not enough non-option arguments: got 0, need at least 1") rewritten
// into sp's one-line style, with "did you mean" for unknown options and values.
import { didYouMean } from './suggest.js';

const flag = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`);
const list = (text: string) => text.split(/,\s*/).map((s) => s.trim()).filter(Boolean);
const unquote = (s: string) => s.trim().replace(/^"(.*)"$/, '$1');

/**
 * One line for a yargs failure message. `options` are the binary's option names (for suggestions),
 * `usage` its usage line (for missing or extra arguments), `argv` the words as typed: yargs names an
 * unknown option and a stray word the same way ("Unknown argument: x"), the words tell them apart.
 */
export function rewriteUsageError(message: string, options: readonly string[], usage: string, argv: readonly string[] = []): string {
  const text = message.trim();
  let m: RegExpExecArray | null;
  if ((m = /^Not enough non-option arguments: got (\d+), need at least (\d+)/.exec(text))) return `missing argument${Number(m[2]) - Number(m[1]) > 1 ? 's' : ''}: usage: ${usage}`;
  if ((m = /^Too many non-option arguments: got (\d+), maximum of (\d+)/.exec(text))) return `too many arguments (at most ${m[2]}): usage: ${usage}`;
  if ((m = /^Unknown (?:argument|arguments): (.+)$/s.exec(text))) {
    const names = list(m[1]);
    const known = options.filter((o) => o !== '$0' && o !== '_');
    const first = names[0];
    const more = names.length > 1 ? ` (and ${names.length - 1} more)` : '';
    if (argv.includes(first) && !argv.includes(flag(first))) return `unexpected argument ${JSON.stringify(first)}${more}: usage: ${usage}`;
    if (/^-/.test(first) || known.length === 0) return `unknown option ${first}${more}`;
    return `unknown ${names.length === 1 && !/^[a-z-]{2,}$/i.test(first) ? 'argument' : 'option'} ${first.length > 1 ? `--${first}` : `-${first}`}${didYouMean(first, known.filter((o) => o.length > 1), '--')}${more}`;
  }
  if ((m = /^Unknown (?:command|commands): (.+)$/s.exec(text))) return `unknown command ${list(m[1])[0]}`;
  if ((m = /^Missing required (?:argument|arguments): (.+)$/s.exec(text))) return `${list(m[1]).map(flag).join(', ')} ${list(m[1]).length > 1 ? 'are' : 'is'} required`;
  if ((m = /^(?:Missing argument value|Missing argument values|Not enough arguments following): (.+)$/s.exec(text))) return `${list(m[1]).map(flag).join(', ')} needs a value`;
  if ((m = /^Invalid values:\s*Argument: (\S+), Given: (.+?), Choices: (.+)$/s.exec(text))) {
    const choices = list(m[3]).map(unquote);
    const given = unquote(m[2]);
    return `${flag(m[1])} must be one of ${choices.join(', ')}, not "${given}"${didYouMean(given, choices)}`;
  }
  if ((m = /^Arguments (\S+) and (\S+) are mutually exclusive/.exec(text))) return `${flag(m[1])} and ${flag(m[2])} cannot be combined`;
  if ((m = /^Missing dependent arguments:\s*(\S+) -> (\S+)/s.exec(text))) return `${flag(m[1])} needs ${flag(m[2])}`;
  return text.replace(/\s*\n\s*/g, ' ');
}
