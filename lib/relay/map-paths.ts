// Moving a session to another checkout (`sp resume --map-cwd OLD=NEW`): every path under the old
// project root becomes the same path under the new one, wherever the session quotes it — the
// session's cwd, tool call arguments and results, diffs, message and instruction texts. Paths are
// matched as whole components (`/home/alice/acme-api2` is not under `/home/alice/acme-api`), one
// pass per string (a new root that contains the old one is not mapped again), and the values stay
// data: a mapping is text replacement, never a command. Each event changed gets a ledger entry
// (code `path-mapped`); the stream is re-chained as every transform that changes events is.
import type { LossEntry } from '../adapter/interface.js';
import { Chainer } from '../core/chain.js';
import { UserError } from '../cli/diagnostics.js';
import type { SpEvent } from '../core/event.js';

export interface PathMapping {
  /** The old project root, without a trailing separator. */
  from: string;
  /** The new one. */
  to: string;
}

const WINDOWS_ABSOLUTE = /^(?:[A-Za-z]:[\\/]|\\\\[^\\/]+[\\/][^\\/]+)/;

function isWindowsPath(path: string): boolean {
  return WINDOWS_ABSOLUTE.test(path);
}

/** A root as given, checked (absolute, not a filesystem root, no control characters) and without trailing separators. */
function root(path: string, what: string): string {
  if (/[\0-\x1f\x7f]/.test(path)) throw new UserError(`${what} ${JSON.stringify(path)} holds a control character`);
  const windows = isWindowsPath(path);
  if (!windows && !path.startsWith('/')) throw new UserError(`${what} ${JSON.stringify(path)} is not an absolute path`);
  const trimmed = path.replace(windows ? /[\\/]+$/ : /\/+$/, '');
  if (trimmed === '' || (windows && /^[A-Za-z]:$/.test(trimmed))) throw new UserError(`${what} ${JSON.stringify(path)} is a filesystem root: give the project folder`);
  const parts = trimmed.split(windows ? /[\\/]/ : '/');
  if (parts.some((part) => part === '..' || part === '.')) throw new UserError(`${what} ${JSON.stringify(path)} has a . or .. component`);
  return trimmed;
}

/** `OLD=NEW` (the first `=` splits: a new root may hold one) as a checked mapping. */
export function parseMapping(spec: string): PathMapping {
  const at = spec.indexOf('=');
  if (at <= 0 || at === spec.length - 1) throw new UserError(`--map-cwd ${JSON.stringify(spec)}: give OLD=NEW (two absolute folders)`);
  return checkedMapping(spec.slice(0, at), spec.slice(at + 1));
}

export function checkedMapping(from: string, to: string): PathMapping {
  return { from: root(from, 'the old root'), to: root(to, 'the new root') };
}

// A character that continues a file name: a root is matched only where none precedes or follows it.
const NAME_CHAR = String.raw`\p{L}\p{N}\p{M}_~.\-`;

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The pattern of a Windows root: either separator, letters in either case (the filesystem ignores case). */
function windowsPattern(path: string): string {
  return [...path]
    .map((c) => (c === '\\' || c === '/' ? '[\\\\/]' : /\p{L}/u.test(c) && c.toLowerCase() !== c.toUpperCase() ? `[${escapeRegex(c.toLowerCase())}${escapeRegex(c.toUpperCase())}]` : escapeRegex(c)))
    .join('');
}

interface Compiled {
  mapping: PathMapping;
  /** The separator the rest of a matched path is rewritten to, when the two roots use different ones. */
  convert?: '/' | '\\';
}

/** Rewrites paths under the old roots in strings and events; counts what it changed. */
export class PathMapper {
  private readonly compiled: Compiled[];
  private readonly pattern: RegExp;

  constructor(readonly mappings: readonly PathMapping[]) {
    if (mappings.length === 0) throw new UserError('no path mapping given');
    // Longest old root first: a mapping of /a/b wins over one of /a for paths under /a/b.
    this.compiled = [...mappings]
      .sort((a, b) => b.from.length - a.from.length)
      .map((mapping) => {
        const fromWindows = isWindowsPath(mapping.from);
        const toWindows = isWindowsPath(mapping.to);
        return { mapping, ...(fromWindows !== toWindows ? { convert: toWindows ? ('\\' as const) : ('/' as const) } : {}) };
      });
    const alternatives = this.compiled.map(({ mapping, convert }) => {
      const body = isWindowsPath(mapping.from) ? windowsPattern(mapping.from) : escapeRegex(mapping.from);
      // When separators change, the rest of the path (its components up to a blank or a quote) is taken too.
      const rest = convert ? '((?:[\\\\/][^\\\\/\\s"\'`<>|*?]*)*)' : '()';
      return `(${body})(?=$|[\\\\/]|[^${NAME_CHAR}]|\\.(?![${NAME_CHAR}]))${rest}`;
    });
    this.pattern = new RegExp(`(?<![${NAME_CHAR}\\\\/])(?:${alternatives.join('|')})`, 'gu');
  }

  /** The text with every path under an old root rewritten, and how many were. */
  mapText(text: string): { text: string; count: number } {
    let count = 0;
    this.pattern.lastIndex = 0;
    const out = text.replace(this.pattern, (...groups: unknown[]) => {
      // Two groups per alternative: the root, and the rest of the path (empty unless separators change).
      for (let i = 0; i < this.compiled.length; i += 1) {
        if (groups[1 + 2 * i] === undefined) continue;
        count += 1;
        const { mapping, convert } = this.compiled[i];
        const rest = String(groups[2 + 2 * i] ?? '');
        return mapping.to + (convert ? rest.replace(/[\\/]/g, convert) : rest);
      }
      return String(groups[0]);
    });
    return { text: count > 0 ? out : text, count };
  }

  /** A copy of `value` with every string in it mapped (object keys too), and the count. */
  mapValue(value: unknown): { value: unknown; count: number } {
    if (typeof value === 'string') {
      const r = this.mapText(value);
      return { value: r.text, count: r.count };
    }
    if (Array.isArray(value)) {
      let count = 0;
      const out = value.map((item) => {
        const r = this.mapValue(item);
        count += r.count;
        return r.value;
      });
      return count > 0 ? { value: out, count } : { value, count: 0 };
    }
    if (value !== null && typeof value === 'object') {
      let count = 0;
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        // Keys can be paths too (an edit's changes by file).
        const k = this.mapText(key);
        const r = this.mapValue(item);
        count += r.count + k.count;
        out[k.text] = r.value;
      }
      return count > 0 ? { value: out, count } : { value, count: 0 };
    }
    return { value, count: 0 };
  }

  /** The event with its payload mapped (the same object when nothing changed), and the count. */
  mapEvent(event: SpEvent): { event: SpEvent; count: number } {
    const r = this.mapValue(event.payload);
    if (r.count === 0) return { event, count: 0 };
    const mapped: SpEvent = { ...event, payload: r.value as SpEvent['payload'] };
    // The native lines it was captured from still name the old paths: a mapped event is rebuilt, not copied.
    if (mapped.origin?.raw) {
      const { raw: _raw, ...origin } = mapped.origin;
      mapped.origin = origin;
    }
    // A provider's signature covers the reasoning text as it was: it would not verify after the rewrite.
    if (event.type === 'message.thinking') {
      const payload = mapped.payload as Record<string, unknown>;
      for (const key of ['signature', 'encrypted_content', 'redacted']) delete payload[key];
    }
    return { event: mapped, count: r.count };
  }
}

/** What a mapping pass changed: per event type, the events and the paths rewritten. */
export type MappedCounts = Record<string, { events: number; paths: number }>;

/**
 * The stream with paths mapped and re-chained. Every changed event is reported to `onMapped` as a
 * ledger entry (action `transformed`, code `path-mapped`, its source seq) and counted in `counts`.
 */
export async function* mapPaths(events: AsyncIterable<SpEvent>, mapper: PathMapper, report: { onMapped?: (session: string, entry: LossEntry) => void; counts?: MappedCounts } = {}): AsyncGenerator<SpEvent> {
  const chainer = new Chainer();
  const roots = mapper.mappings.map((m) => `${m.from} → ${m.to}`).join(', ');
  for await (const event of events) {
    const { event: mapped, count } = mapper.mapEvent(event);
    if (count > 0) {
      report.onMapped?.(String(event.session), { action: 'transformed', code: 'path-mapped', reason: `${count} path${count === 1 ? '' : 's'} moved to the new project root (${roots})`, seq: event.seq, type: event.type });
      if (report.counts) {
        const c = (report.counts[event.type] ??= { events: 0, paths: 0 });
        c.events += 1;
        c.paths += count;
      }
    }
    // Only chained input is re-chained: a stream without checksums stays without them.
    yield typeof event.checksum === 'string' ? chainer.chain(mapped) : mapped;
  }
}
