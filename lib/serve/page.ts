// The HTML around the bundled viewer (dist/web/app.js and app.css, built by esbuild at build time):
// the page sp serve answers with, and the one self-contained file sp export html writes — bundle,
// styles and the session's data inline, a Content-Security-Policy that allows only those inline
// parts (by hash) and data: images, so the file opens offline and reaches no network. With a
// passphrase the data is encrypted (PBKDF2-SHA256 → AES-256-GCM) and the page decrypts it with
// WebCrypto once the reader types the passphrase.
import { createCipheriv, createHash, pbkdf2Sync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UserError } from '../cli/diagnostics.js';
import { packageRoot } from '../fs/paths.js';

const assets = new Map<string, Buffer>();

/** A file of the built web bundle (dist/web/). */
export function webAsset(name: 'app.js' | 'app.css'): Buffer {
  let bytes = assets.get(name);
  if (!bytes) {
    const url = new URL(`dist/web/${name}`, packageRoot());
    try {
      bytes = readFileSync(url);
    } catch {
      throw new UserError('the web viewer is not built: run `npm run build`', url.pathname);
    }
    assets.set(name, bytes);
  }
  return bytes;
}

const SHELL_HEAD = '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">';

/** sp serve's page: the bundle from this server (script-src 'self'). */
export function servedPage(): string {
  return `${SHELL_HEAD}<title>sp sessions</title><link rel="stylesheet" href="/app.css"></head><body><div id="app"></div><script src="/app.js" defer></script></body></html>\n`;
}

/** PBKDF2 iterations: OWASP's 2023 figure for PBKDF2-HMAC-SHA256. */
export const KDF_ITERATIONS = 600_000;

export interface Sealed {
  kdf: 'PBKDF2-SHA256';
  iterations: number;
  cipher: 'AES-256-GCM';
  salt: string;
  iv: string;
  /** Ciphertext followed by the 16-byte tag, as WebCrypto's AES-GCM wants it; base64. */
  data: string;
}

/** Encrypts text so that the page's WebCrypto code (deriveKey PBKDF2 → AES-GCM decrypt) opens it. */
export function seal(text: string, passphrase: string, iterations = KDF_ITERATIONS): Sealed {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const key = pbkdf2Sync(Buffer.from(passphrase.normalize('NFC'), 'utf8'), salt, iterations, 32, 'sha256');
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return { kdf: 'PBKDF2-SHA256', iterations, cipher: 'AES-256-GCM', salt: salt.toString('base64'), iv: iv.toString('base64'), data: body.toString('base64') };
}

const cspHash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** JSON that can sit in a <script type="application/json"> element: no `<` to close it or open a comment. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/**
 * One HTML file with the viewer and a session view inside. `view` is what the session page shows
 * (already redacted by the caller); with `passphrase` only ciphertext of it is in the file.
 */
export function exportPage(view: unknown, options: { passphrase?: string; iterations?: number } = {}): string {
  const js = webAsset('app.js').toString('utf8').replace(/<\/script/gi, '<\\/script');
  const css = webAsset('app.css').toString('utf8').replace(/<\/style/gi, '<\\/style');
  const payload = options.passphrase !== undefined ? { sealed: seal(JSON.stringify(view), options.passphrase, options.iterations) } : { view };
  const csp = `default-src 'none'; script-src ${cspHash(js)}; style-src ${cspHash(css)}; img-src data:; base-uri 'none'; form-action 'none'`;
  // An encrypted file names nothing about the session, its title included.
  const title = options.passphrase !== undefined ? 'sp session (encrypted)' : 'sp session';
  return (
    `${SHELL_HEAD}<meta http-equiv="Content-Security-Policy" content="${csp}"><meta name="referrer" content="no-referrer"><title>${title}</title>` +
    `<style>${css}</style></head><body><div id="app"></div><script type="application/json" id="sp-data">${scriptJson(payload)}</script><script>${js}</script></body></html>\n`
  );
}
