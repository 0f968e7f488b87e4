// The public profile (`sp-redact --public`): on top of the secrets, what identifies people and
// machines, for sessions shared outside the team. Home folders become `~` (the path stays
// readable); user names, host names, e-mail addresses, IP addresses and the owners in git remote
// URLs become placeholders of their own kind. These rules run only in this profile.
import { isIPv6 } from 'node:net';
import type { Rule, Span } from './rules.js';

export type Profile = 'default' | 'public';
export const PROFILES: readonly Profile[] = ['default', 'public'];

// /home/alice, /Users/alice, C:\Users\alice (also C:/Users/alice and JSON-escaped C:\\Users\\alice).
const HOME = /(?<![A-Za-z0-9_.-])(?:\/home\/|\/Users\/|[A-Za-z]:(?:\\{1,2}|\/)Users(?:\\{1,2}|\/))([A-Za-z0-9._-]{1,64})(?![A-Za-z0-9._-])/g;
// Not a person: macOS's shared folder, and words that follow /home/ in prose ("/home/ folder").
const NOT_A_USER = /^(?:Shared|Public|Default|All Users|\.+)$/;

function* findHomes(text: string): Generator<Span> {
  HOME.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = HOME.exec(text))) if (!NOT_A_USER.test(m[1])) yield { start: m.index, end: m.index + m[0].length };
}

// user@host: in a shell prompt (`alice@laptop:~/acme$`), and ssh/scp/rsync targets (`ssh alice@build-01`).
const PROMPT = /(?<![\w.@%+-])([a-z_][a-z0-9_-]{0,31})@([A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9-]{1,63}){0,4}):(?=~|\/)/g;
const SSH_TARGET = /(?<![\w-])(?:ssh|scp|sftp|rsync|mosh)[ \t]{1,4}(?:-[^\s]{1,40}[ \t]{1,4}(?:[^\s@-][^\s@]{0,40}[ \t]{1,4})?){0,6}([a-z_][a-z0-9_.-]{0,31})@([A-Za-z0-9][A-Za-z0-9.-]{0,253})/g;
// Names in private DNS suffixes: build-01.corp, db.internal, alices-mbp.local, nas.home.arpa.
const PRIVATE_HOST = /(?<![\w.@-])(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,6}(?:local|lan|internal|intranet|corp|localdomain|home\.arpa)(?![\w-]|\.[A-Za-z0-9])/g;

function* userHostPairs(text: string, part: 1 | 2): Generator<Span> {
  for (const re of [PROMPT, SSH_TARGET]) {
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text))) {
      if (m[1] === 'git') continue; // git@host: a remote, not a person (see git-owner)
      const userStart = m.index + m[0].lastIndexOf(`${m[1]}@${m[2]}`);
      const start = part === 1 ? userStart : userStart + m[1].length + 1;
      yield { start, end: start + m[part].length };
    }
  }
}

function* findHosts(text: string): Generator<Span> {
  yield* userHostPairs(text, 2);
  PRIVATE_HOST.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = PRIVATE_HOST.exec(text))) yield { start: m.index, end: m.index + m[0].length };
}

const EMAIL = /(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24}(?![\w-]|\.[A-Za-z0-9])/g;

function* findEmails(text: string): Generator<Span> {
  EMAIL.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = EMAIL.exec(text))) {
    const [local, domain] = m[0].split('@');
    if (local === 'git' && text[m.index + m[0].length] === ':') continue; // git@github.com:owner/repo
    // A service's no-reply sender names nobody; GitHub's users.noreply addresses do (12345+alice@…).
    if (/^no-?reply$/i.test(local) && !/users\.noreply\./i.test(domain)) continue;
    yield { start: m.index, end: m.index + m[0].length };
  }
}

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = new RegExp(`(?<![\\w.-])${OCTET}(?:\\.${OCTET}){3}(?![\\w-]|\\.[0-9])`, 'g');
// What a version number is preceded by: v1.2.3.4, version 1.2.3.4, "version": "1.2.3.4", pkg@1.2.3.4, ==1.2.3.4.
const VERSION_BEFORE = /(?:\bv|\bversion|\bver|\brelease|\bbuild|\bupdate|\bpatch|@|[=<>~^]=?|\bnode|\bpython|\bchrome|\bfirefox|\bsafari|\bedge|\bwindows|\bmacos|\bios|\bandroid)["' \t:=/]{0,4}$/i;
// Addresses that name no machine: unspecified, loopback, broadcast.
const NOT_A_HOST_V4 = /^(?:0\.0\.0\.0|127\.\d+\.\d+\.\d+|255\.255\.255\.255)$/;
const IPV6 = /(?<![\w:.])(?:[0-9A-Fa-f]{1,4}:|:){1,7}(?::|[0-9A-Fa-f]{1,4})(?:%[A-Za-z0-9]{1,16})?(?![\w:.])/g;

function* findIps(text: string): Generator<Span> {
  IPV4.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = IPV4.exec(text))) {
    if (NOT_A_HOST_V4.test(m[0])) continue;
    if (VERSION_BEFORE.test(text.slice(Math.max(0, m.index - 24), m.index))) continue;
    yield { start: m.index, end: m.index + m[0].length };
  }
  if (!text.includes(':')) return;
  IPV6.lastIndex = 0;
  while ((m = IPV6.exec(text))) {
    const address = m[0].replace(/%.*$/, '');
    const groups = address.split(':').filter(Boolean);
    // Enough of an address to be one (not `a::b` in code, nor `::` alone), and not loopback.
    if (groups.length < 3 || address.replace(/:/g, '').length < 6 || !isIPv6(address) || /^(?:0*:)*:?0*1$/.test(address)) continue;
    if (!/[0-9]/.test(address)) continue; // `dead:beef:cafe` words are hex too, addresses have digits
    yield { start: m.index, end: m.index + m[0].length };
  }
}

// git@host:OWNER/repo(.git), ssh://git@host/OWNER/repo, https://host/OWNER/repo on the forges, or any https URL ending in .git.
const GIT_SCP = /(?<![\w.-])git@[A-Za-z0-9.-]{1,253}:(?:\/)?([A-Za-z0-9_.~-]{1,100})\/[A-Za-z0-9_.-]{1,100}/g;
const GIT_URL = /(?:https?|ssh|git):\/\/(?:[^\s@\/]{1,128}@)?(github\.com|gitlab\.com|bitbucket\.org|codeberg\.org|gitea\.com|git\.sr\.ht|[A-Za-z0-9.-]{1,253}(?=(?::[0-9]{1,5})?\/[^\s"'`]{1,300}\.git(?![\w-])))(?::[0-9]{1,5})?\/([A-Za-z0-9_.~-]{1,100})\/[A-Za-z0-9_.-]{1,100}/g;
// Forge paths that are pages, not owners.
const NOT_AN_OWNER = /^(?:about|features|pricing|settings|orgs|marketplace|sponsors|login|logout|join|topics|apps|enterprise|site|explore|notifications|search|new|issues|pulls|help|docs|api|users|groups|dashboard|-)$/i;

function* findGitOwners(text: string): Generator<Span> {
  for (const [re, group] of [[GIT_SCP, 1], [GIT_URL, 2]] as const) {
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text))) {
      const owner = m[group];
      if (NOT_AN_OWNER.test(owner)) continue;
      const start = m.index + m[0].indexOf(`/${owner}/`) + 1;
      const at = group === 1 ? m.index + m[0].indexOf(`:${owner}/`) + 1 : start;
      const from = group === 1 && text[at] === '/' ? at + 1 : at;
      yield { start: from, end: from + owner.length };
    }
  }
}

/** The rules added by the public profile (priority 4: a secret rule's finding wins an overlap). */
export const PUBLIC_RULES: Rule[] = [
  { id: 'home-path', description: 'public profile: home folders (/home/alice, /Users/alice, C:\\Users\\alice) become ~', keywords: ['/home/', '/users/', '\\users\\', ':/users/', '\\\\users\\\\'], priority: 4, names: true, find: findHomes, replacement: '~' },
  { id: 'user-name', description: 'public profile: the user of a shell prompt (alice@host:~$) or an ssh/scp/rsync target (alice@host)', keywords: ['@'], priority: 4, names: true, find: (text) => userHostPairs(text, 1) },
  { id: 'hostname', description: 'public profile: the host of a shell prompt or ssh target, and names under private DNS suffixes (.local, .lan, .internal, .corp, .home.arpa …)', keywords: ['@', '.local', '.lan', '.internal', '.intranet', '.corp', '.home.arpa'], priority: 4, names: true, find: findHosts },
  { id: 'email', description: 'public profile: e-mail addresses (not documentation domains, nor a service\'s noreply sender)', keywords: ['@'], priority: 4, names: true, find: findEmails },
  { id: 'ip-address', description: 'public profile: IPv4 and IPv6 addresses (not loopback, unspecified or broadcast, nor a version number: v1.2.3.4, version 1.2.3.4, pkg@1.2.3.4, ==1.2.3.4)', keywords: [], prefilter: /[0-9]\.[0-9]{1,3}\.[0-9]|[0-9A-Fa-f]:[0-9A-Fa-f]{0,4}:/, priority: 4, names: true, find: findIps },
  { id: 'git-owner', description: 'public profile: the owner in git remote URLs (git@github.com:OWNER/repo.git, https://github.com/OWNER/repo, any https://host/OWNER/repo.git)', keywords: ['git@', 'github.com', 'gitlab.com', 'bitbucket.org', 'codeberg.org', 'gitea.com', 'git.sr.ht', '.git'], priority: 4, names: true, find: findGitOwners },
];

/** The extra rules of a profile. */
export function profileRules(profile: Profile): Rule[] {
  return profile === 'public' ? PUBLIC_RULES : [];
}
