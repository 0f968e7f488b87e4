// Redaction of everything that leaves through MCP. Events are redacted by sp-redact's stream
// (pipeline.ts) before any tool uses them; this pass is the last gate over each tool's whole answer
// (session lists with first prompts and titles, handoff texts, loss ledgers, store hits), with the
// same rules, the same walker (ids, signatures and hashes left alone) and the same keyed
// placeholders, so a secret gets the same placeholder here as in sp-redact's output.
import type { Placeholders } from '../redact/keys.js';
import type { Scanner } from '../redact/walker.js';

interface Redactor {
  scanner: Scanner;
  placeholders: Placeholders;
  applyHits: typeof import('../redact/walker.js').applyHits;
  walkEvent: typeof import('../redact/walker.js').walkEvent;
}

let redactor: Promise<Redactor> | undefined;

async function load(): Promise<Redactor> {
  const { loadConfig } = await import('../redact/config.js');
  const { Detector } = await import('../redact/detector.js');
  const { Placeholders, loadRedactKey } = await import('../redact/keys.js');
  const { Scanner, applyHits, walkEvent } = await import('../redact/walker.js');
  const config = loadConfig();
  const detector = new Detector(config.rules, { values: config.allowValues, regexes: config.allowRegexes });
  return { scanner: new Scanner(detector), placeholders: new Placeholders(await loadRedactKey()), applyHits, walkEvent };
}

/** A deep copy of `value` with every secret in its strings replaced by its placeholder. */
export async function redactValue<T>(value: T): Promise<T> {
  redactor ??= load();
  const r = await redactor;
  // A wrapper the event walker accepts: `payload` is walked, structural members skipped.
  const holder = { payload: JSON.parse(JSON.stringify(value ?? null)) as unknown };
  r.walkEvent(holder, (text, key) => {
    const hits = r.scanner.scanString(text, key);
    return hits.length > 0 ? r.applyHits(text, hits, r.placeholders) : undefined;
  });
  return holder.payload as T;
}
