// Redaction of everything that leaves through MCP. Events are redacted by sp-redact's stream
// (pipeline.ts) before any tool uses them; this pass is the last gate over each tool's whole answer
// (session lists with first prompts and titles, handoff texts, loss ledgers, store hits). It is the
// one in-process redactor every stage uses (lib/redact/ensure.ts): the same rules, walker (member
// names scanned, ids and signatures only against token formats) and keyed placeholders, so a
// secret gets the same placeholder here as in sp-redact's output.
import type { Redactor } from '../redact/ensure.js';

let redactor: Promise<Redactor> | undefined;

/** A deep copy of `value` with every secret in its strings (and member names) replaced by its placeholder. */
export async function redactValue<T>(value: T): Promise<T> {
  redactor ??= import('../redact/ensure.js').then(({ Redactor }) => Redactor.load());
  return (await redactor).redactValue(value ?? null) as T;
}
