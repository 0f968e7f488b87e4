// Validation against the JSON Schemas in schema/ (2020-12, ajv). The envelope is checked for every
// event; the payload for the core types that payloads.schema.json defines. Unknown fields and
// unknown types pass: the namespace is open (docs/design.md §2).
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { packageRoot } from '../fs/paths.js';


export interface SchemaIssue {
  /** JSON pointer into the event, e.g. `/payload/call_id`. */
  path: string;
  message: string;
}

export interface EventValidator {
  /** Problems with this event, or an empty array. */
  validate(event: unknown): SchemaIssue[];
  /** Problems with a session manifest, or an empty array. */
  validateManifest(manifest: unknown): SchemaIssue[];
}

function loadSchema(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`schema/${name}`, packageRoot()), 'utf8')) as Record<string, unknown>;
}

/** The schema_version each schema file declares, by file name. */
export function schemaVersions(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['event.schema.json', 'payloads.schema.json', 'manifest.schema.json']) {
    out[name] = String(loadSchema(name).schema_version);
  }
  return out;
}

function issues(errors: ErrorObject[] | null | undefined, prefix = ''): SchemaIssue[] {
  if (!errors) return [];
  return errors
    .filter((e) => e.keyword !== 'if') // "must match then schema" only repeats the real error
    .map((e) => ({ path: prefix + e.instancePath || '/', message: e.message ?? 'invalid' }));
}

/** Compiles the schemas (ajv is imported here, lazily: only binaries that validate pay for it). */
// One validator per process: compiling the schemas makes new functions each time, and a long-running
// process that opens the store again and again (sp watch) would otherwise grow with every open.
let shared: Promise<EventValidator> | undefined;

export function createValidator(): Promise<EventValidator> {
  shared ??= compileValidator();
  return shared;
}

async function compileValidator(): Promise<EventValidator> {
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  // validateSchema off: checking our own fixed schemas against the 2020-12 meta-schema compiled that
  // meta-schema first, about 140 of sp-verify's 330 ms of start-up CPU; test/schema.test.ts checks them once.
  const ajv = new Ajv2020({ allErrors: false, strict: true, strictRequired: false, allowUnionTypes: true, validateSchema: false });
  ajv.addKeyword({ keyword: 'schema_version', schemaType: 'string' });
  const envelope = ajv.compile(loadSchema('event.schema.json'));
  const payloads = loadSchema('payloads.schema.json');
  ajv.addSchema(payloads);
  const manifest = ajv.compile(loadSchema('manifest.schema.json'));
  const definitions = Object.keys(payloads.$defs as Record<string, unknown>);
  const byType = new Map<string, ValidateFunction>();
  for (const name of definitions) {
    if (!name.includes('.') && !['decision', 'checkpoint', 'handoff', 'meta'].includes(name)) continue;
    byType.set(name, ajv.getSchema(`urn:sp:schema:payloads#/$defs/${name}`)!);
  }

  return {
    validate(event: unknown): SchemaIssue[] {
      if (!envelope(event)) return issues(envelope.errors);
      const { type, payload } = event as { type: string; payload: unknown };
      const check = byType.get(type);
      if (check && !check(payload)) return issues(check.errors, '/payload');
      return [];
    },
    validateManifest(value: unknown): SchemaIssue[] {
      return manifest(value) ? [] : issues(manifest.errors);
    },
  };
}
