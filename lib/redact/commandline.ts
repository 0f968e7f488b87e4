// Credentials on command lines and in credential files, as they show up in agents' shell calls and
// in the output of `cat ~/.netrc`: `--password X`, `mysql -pX`, `curl -u user:X`, `sshpass -p X`,
// `redis-cli -a X`, `docker login -p X`, .netrc `password X`, .pgpass `host:port:db:user:X`, YAML
// `pass: X`. Each finder starts from a fixed word (a rule keyword), and every quantifier is bounded.
import type { Span } from './rules.js';
import { hasDigit, isPlaceholder } from './values.js';

/**
 * The shell word starting at `pos`: a quoted string (its content) or a bare word up to white space
 * or a shell operator. Undefined when there is none, or it is empty.
 */
export function shellWord(text: string, pos: number): Span | undefined {
  const q = text[pos];
  if (q === '"' || q === "'") {
    const limit = Math.min(text.length, pos + 1 + 512);
    for (let i = pos + 1; i < limit; i++) {
      const c = text[i];
      if (c === '\n' || c === '\r') return undefined;
      if (c === '\\' && q === '"') {
        i++;
        continue;
      }
      if (c === q) return i > pos + 1 ? { start: pos + 1, end: i } : undefined;
    }
    return undefined;
  }
  BARE_WORD.lastIndex = pos;
  const m = BARE_WORD.exec(text);
  if (!m) return undefined;
  let end = pos + m[0].length;
  // JSON-escaped command text (`\"` or `\n` right after the value) ends the word too.
  const escape = m[0].search(/\\[nrt"]/);
  if (escape !== -1) end = pos + escape;
  return end > pos ? { start: pos, end } : undefined;
}

const BARE_WORD = /[^\s"'`|;&<>()]{1,512}/y;

/** A value given on a command line that may be a credential: not a flag, a reference or a template. */
function cliSecret(value: string, spaced: boolean): boolean {
  if (value.length < 4 || value.startsWith('-') || isPlaceholder(value)) return false;
  // `--password flag`, `--token option`: after a space, prose names the flag more often than it
  // passes a lower-case word as its value; real values have a digit, a symbol or a capital.
  if (spaced && /^[a-z]+$/.test(value)) return false;
  return true;
}

// --password X, --password=X, --token X, --api-key=X, --client-secret X, --db-password X … (not
// --password-stdin or --token-file: the flag's name must end with the secret word).
const LONG_FLAG = /(?<![\w-])--(?:[a-z0-9]{1,20}-){0,3}(?:password|passwd|passphrase|pass|token|secret|api-?key)(=|[ \t]{1,4})/gi;

// Commands whose short option takes the password as its value.
const SHORT_FLAG = [
  // mysql -pSECRET (attached only: `mysql -p dbname` prompts and names a database).
  { word: 'm', command: /(?<![\w-])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mariadb|mariadb-dump)(?![\w-])/gi, flag: /[ \t]-p(?=[^\s-])/y, attachedOnly: true },
  // sshpass -p SECRET / -pSECRET
  { word: 'sshpass', command: /(?<![\w-])sshpass(?![\w-])/gi, flag: /[ \t]-p[ \t]{0,4}/y, attachedOnly: false },
  // redis-cli -a SECRET
  { word: 'redis-cli', command: /(?<![\w-])redis-cli(?![\w-])/gi, flag: /[ \t]-a[ \t]{1,4}/y, attachedOnly: false },
  // docker / podman / … login -p SECRET
  { word: 'login', command: /(?<![\w-])(?:docker|podman|buildah|skopeo|nerdctl)[ \t]{1,4}(?:[\w-]{1,20}[ \t]{1,4}){0,2}login(?![\w-])/gi, flag: /[ \t]-p[ \t]{1,4}/y, attachedOnly: false },
];

// curl -u user:SECRET, curl --user user:SECRET, curl -uuser:SECRET (also wget --user … --password is a long flag).
const CURL = /(?<![\w-])(?:curl|wget)(?![\w-])/gi;
const CURL_USER = /[ \t](?:-u|--user)[ \t=]{0,4}/y;

/** How far a command line reaches from `from`: to the end of the line, or a shell operator. */
function commandEnd(text: string, from: number): number {
  const limit = Math.min(text.length, from + 1000);
  for (let i = from; i < limit; i++) {
    const c = text[i];
    if (c === '\n' || c === '\r' || c === ';' || c === '|' || (c === '&' && text[i + 1] === '&')) return i;
    if (c === '\\' && text[i + 1] === 'n') return i; // a JSON-escaped newline
  }
  return limit;
}

export function* findCommandLineSecrets(text: string): Generator<Span> {
  LONG_FLAG.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = LONG_FLAG.exec(text))) {
    const word = shellWord(text, m.index + m[0].length);
    if (!word) continue;
    if (cliSecret(text.slice(word.start, word.end), m[1] !== '=')) yield word;
  }
  for (const { word, command, flag, attachedOnly } of SHORT_FLAG) {
    // Commands are typed in lower case: a plain search skips the regex for most texts.
    if (word === 'm' ? !text.includes('mysql') && !text.includes('mariadb') : !text.includes(word)) continue;
    command.lastIndex = 0;
    while ((m = command.exec(text))) {
      const end = commandEnd(text, m.index);
      for (let i = m.index + m[0].length; i < end; i++) {
        if (text[i] !== ' ' && text[i] !== '\t') continue;
        flag.lastIndex = i;
        const f = flag.exec(text);
        if (!f) continue;
        const word = shellWord(text, i + f[0].length);
        if (!word || word.end > end + 1) continue;
        const value = text.slice(word.start, word.end);
        if (cliSecret(value, !attachedOnly && /\s$/.test(f[0]))) yield word;
        i = word.end;
      }
      command.lastIndex = Math.max(command.lastIndex, end);
    }
  }
  CURL.lastIndex = 0;
  if (!text.includes('curl') && !text.includes('wget')) return;
  while ((m = CURL.exec(text))) {
    const end = commandEnd(text, m.index);
    for (let i = m.index + m[0].length; i < end; i++) {
      if (text[i] !== ' ' && text[i] !== '\t') continue;
      CURL_USER.lastIndex = i;
      const f = CURL_USER.exec(text);
      if (!f) continue;
      const word = shellWord(text, i + f[0].length);
      if (!word) continue;
      const pair = text.slice(word.start, word.end);
      const colon = pair.indexOf(':');
      // user:password; `-u user` alone makes curl prompt for the password.
      if (colon > 0 && colon < pair.length - 1 && !pair.includes('://')) {
        const password = pair.slice(colon + 1);
        if (password.length >= 3 && !isPlaceholder(password)) yield { start: word.start + colon + 1, end: word.end };
      }
      i = word.end;
    }
    CURL.lastIndex = Math.max(CURL.lastIndex, end);
  }
}

// .netrc: `machine HOST login USER password SECRET` (on one line or several), or `default … password SECRET`.
const NETRC = /(?<![\w-])(?:machine[ \t\r\n]{1,8}([^\s]{1,253})|default)(?:[ \t\r\n]{1,8}(?:login|account|port)[ \t\r\n]{1,8}[^\s]{1,256}){0,3}[ \t\r\n]{1,8}password[ \t]{1,8}/g;

export function* findNetrcPasswords(text: string): Generator<Span> {
  NETRC.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = NETRC.exec(text))) {
    // A host name has a dot (or the entry names its login): "machine learning password reset" is prose.
    if (m[1] !== undefined && !m[1].includes('.') && !/[ \t\r\n]login[ \t\r\n]/.test(m[0])) continue;
    const word = shellWord(text, m.index + m[0].length);
    if (word && !isPlaceholder(text.slice(word.start, word.end))) yield word;
  }
}

// .pgpass: hostname:port:database:username:password, one per line (`\:` escapes a colon).
const PGPASS = /^[ \t]*(?:[A-Za-z0-9_.*\[\]-]{1,253}):(?:[0-9]{1,5}|\*):(?:[^:\s\\]|\\.){1,128}:(?:[^:\s\\]|\\.){1,128}:((?:[^\s\\]|\\.){1,256})[ \t]*$/gm;

export function* findPgpassPasswords(text: string): Generator<Span> {
  PGPASS.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = PGPASS.exec(text))) {
    const start = m.index + m[0].indexOf(m[1], m[0].length - m[1].length - 8);
    const value = m[1];
    if (isPlaceholder(value) || value === '*') continue;
    yield { start, end: start + value.length };
  }
}

// YAML `pass:` / `passwd:` at the start of a line (also as a list item), the value ending the line.
const YAML_PASS = /^[ \t]*(?:-[ \t]+)?["']?(pass|passwd)["']?[ \t]*:[ \t]{1,8}/gim;

export function* findYamlPasswords(text: string): Generator<Span> {
  YAML_PASS.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = YAML_PASS.exec(text))) {
    const word = shellWord(text, m.index + m[0].length);
    if (!word) continue;
    const after = text.slice(word.end + (text[word.end] === '"' || text[word.end] === "'" ? 1 : 0), word.end + 80);
    if (!/^[ \t]*(?:#[^\r\n]*)?(?:\r|\n|\\n|$)/.test(after)) continue; // more on the line: not a plain scalar value
    const value = text.slice(word.start, word.end);
    if (value.length < 4 || isPlaceholder(value)) continue;
    if (/^[0-9.]+$/.test(value)) continue; // `pass: 3` (a count)
    // A bare `pass:` holds a test status as often as a password (`pass: failed`): words need a digit or symbol.
    if (m[1].toLowerCase() === 'pass' && /^[A-Za-z]+$/.test(value) && !hasDigit(value)) continue;
    yield word;
  }
}
