// sp export html: one session as one self-contained HTML file (the session page of sp serve, its
// data inline), redacted by default (the public profile on request), optionally encrypted with a
// passphrase the page asks for. The session is named as sp serve names it, looked up in the agent
// homes and then in the store, or read from a file of canonical events.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionRef } from '../adapter/interface.js';
import { UserError } from '../cli/diagnostics.js';
import type { SpEvent } from '../core/event.js';
import { ToolInputError, findSession, type Registry } from '../mcp/pipeline.js';
import type { Redactor } from '../redact/ensure.js';
import type { Profile } from '../redact/public.js';
import { createModel, sessionView, type SessionKey } from './model.js';
import { exportPage } from './page.js';

type Json = Record<string, unknown>;

/** Images inline at most this many bytes in all: a shared page stays a file one can attach. */
const MAX_INLINE_IMAGES = 32 * 1024 * 1024;

/** The redactor of a profile: the machine's key, sp-redact's rules (plus the public ones). */
export async function profileRedactor(profile: Profile): Promise<Redactor> {
  const { Redactor } = await import('../redact/ensure.js');
  if (profile === 'default') return Redactor.load();
  const { loadConfig } = await import('../redact/config.js');
  const { loadRedactKey } = await import('../redact/keys.js');
  return new Redactor(loadConfig([], profile), await loadRedactKey(), profile);
}

/** Stored images (artifact refs) put inline as data, so the file shows them offline. */
function inlineArtifacts(view: Json, storeDir: string, read: (dir: string, ref: string) => { ok: true; bytes: Buffer } | { ok: false; reason: string }): void {
  let total = 0;
  for (const event of (view.events as SpEvent[]) ?? []) {
    const content = (event.payload as Json | undefined)?.content;
    if (!Array.isArray(content)) continue;
    for (const block of content as Json[]) {
      if (block?.type !== 'image' || typeof block.artifact !== 'string' || typeof block.data === 'string') continue;
      const got = read(join(storeDir, 'artifacts'), block.artifact);
      if (!got.ok || total + got.bytes.length > MAX_INLINE_IMAGES) continue;
      total += got.bytes.length;
      block.data = got.bytes.toString('base64');
    }
  }
}

export interface ExportHtmlOptions {
  registry: Registry;
  /** A native id (or a unique prefix), a canonical sess_ id, or a stored session id. */
  session?: string;
  /** Canonical events read from a file instead. */
  events?: SpEvent[];
  agent?: string;
  homes?: Record<string, string>;
  store?: string;
  profile: Profile;
  passphrase?: string;
}

export async function exportHtml(options: ExportHtmlOptions): Promise<{ html: string; events: number; session: string | undefined }> {
  const redactor = await profileRedactor(options.profile);
  const access = { homes: options.homes ?? {}, store: options.store, limits: { maxEvents: 1_000_000, timeoutMs: 600_000 } };
  let view: Json;
  let storeDir: string | undefined;
  if (options.events) {
    view = await sessionView(options.events, redactor, {});
  } else {
    const id = options.session ?? '';
    const model = await createModel(options.registry, access, { redactor });
    let key: SessionKey | undefined;
    let ref: SessionRef | undefined;
    try {
      const found = await findSession(options.registry, id, { agent: options.agent, defaultHomes: access.homes });
      key = { agent: found.adapter.id, id: found.ref.native_id };
      ref = found.ref;
    } catch (err) {
      if (!(err instanceof ToolInputError) || /matches \d+ sessions/.test(err.message) || options.agent !== undefined) throw toUserError(err);
      key = await storedKey(id, options.store);
      if (!key) throw toUserError(err);
    }
    const got = await model.eventsOf(key);
    view = await sessionView(got.events, redactor, { key, ref: got.ref ?? ref, storedAgent: (got.stored?.summary as Json | undefined)?.agent as string | undefined });
    if (got.stored) {
      storeDir = String(got.stored.dir);
      view.store = await model.storeChecksOf(key as { stored: string }, got.stored);
    }
  }
  if (storeDir) {
    const { readArtifactForWriter } = await import('../core/artifacts.js');
    inlineArtifacts(view, storeDir, readArtifactForWriter);
  }
  // A file travels: the machine-local path of the transcript is not part of it.
  const meta = view.meta as Json;
  delete meta.path;
  delete meta.key;
  view.exported = { at: Date.now() / 1000, profile: options.profile, encrypted: options.passphrase !== undefined, ruleset: redactor.ruleset };
  return { html: exportPage(view, { passphrase: options.passphrase }), events: (view.events as unknown[]).length, session: meta.session as string | undefined };
}

function toUserError(err: unknown): unknown {
  return err instanceof ToolInputError ? new UserError(err.message) : err;
}

/** A stored session an id names (exactly, or as a unique prefix of its id or native id). */
async function storedKey(id: string, store: string | undefined): Promise<SessionKey | undefined> {
  const { Store, resolveStoreDir } = await import('../store/index.js');
  const dir = resolveStoreDir(store);
  if (!existsSync(join(dir, 'index.sqlite'))) return undefined;
  const s = Store.open(dir, { readonly: true });
  try {
    return { stored: s.resolveSession(id) };
  } catch {
    return undefined;
  } finally {
    s.close();
  }
}

/** A passphrase typed on the terminal, not echoed (twice, to catch a typo). */
export async function askPassphrase(): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) throw new UserError('--encrypt needs a passphrase: set SP_EXPORT_PASSPHRASE, or run it on a terminal to be asked');
  const ask = (prompt: string) =>
    new Promise<string>((resolve, reject) => {
      process.stderr.write(prompt);
      stdin.setRawMode(true);
      stdin.resume();
      let typed = '';
      const onData = (chunk: Buffer) => {
        for (const ch of chunk.toString('utf8')) {
          if (ch === '\r' || ch === '\n') return finish();
          if (ch === '\u0003') return finish(new UserError('interrupted'));
          if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
          else typed += ch;
        }
      };
      const finish = (err?: Error) => {
        stdin.off('data', onData);
        stdin.setRawMode(false);
        stdin.pause();
        process.stderr.write('\n');
        if (err) reject(err);
        else resolve(typed);
      };
      stdin.on('data', onData);
    });
  const first = await ask('Passphrase for the HTML file: ');
  const second = await ask('The same passphrase again: ');
  if (first !== second) throw new UserError('the two passphrases differ');
  return first;
}
