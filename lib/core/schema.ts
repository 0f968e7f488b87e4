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

// One validator per process: compiling the schemas makes new functions each time, and a long-running
// process that opens the store again and again (sp watch) would otherwise grow with every open.
let shared: Promise<EventValidator> | undefined;

/**
 * The validator. The build compiles the schemas once into schema.validators.cjs next to this module
 * (scripts/finish-build.mjs, ajv standalone): loading it costs a fraction of compiling them, which was
 * most of sp-verify's start-up CPU. Run from the sources (vitest), there is no such file: compile here.
 */
export function createValidator(): Promise<EventValidator> {
  shared ??= loadPrecompiled().then((done) => done ?? compileValidator());
  return shared;
}

/** The file name the build writes the generated validators to, next to the compiled schema.js. */
export const PRECOMPILED = 'schema.validators.cjs';

async function loadPrecompiled(): Promise<EventValidator | undefined> {
  let mod: { default: Record<string, ValidateFunction> };
  try {
    mod = (await import(new URL(PRECOMPILED, import.meta.url).href)) as typeof mod;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw err;
  }
  return validatorFrom(mod.default);
}

/** Compiles the schemas at run time (ajv is imported here, lazily: only processes that validate pay for it). */
export async function compileValidator(): Promise<EventValidator> {
  const { ajv, refs } = await schemaAjv();
  return validatorFrom(Object.fromEntries(Object.entries(refs).map(([name, id]) => [name, ajv.getSchema(id)!])));
}

/** The payload types checked beyond the envelope: the core types payloads.schema.json defines. */
function payloadTypes(payloads: Record<string, unknown>): string[] {
  return Object.keys(payloads.$defs as Record<string, unknown>).filter((name) => name.includes('.') || ['decision', 'checkpoint', 'handoff', 'meta'].includes(name));
}

/**
 * The one ajv set-up: the build generates its module from it (schemaAjv({ source: true })), the
 * fallback compiles with it, so both accept and reject alike. `refs` maps the export names
 * (`envelope`, `manifest`, `payload:<type>`) to schema ids.
 */
export async function schemaAjv(code: { source?: boolean } = {}): Promise<{ ajv: import('ajv').default; refs: Record<string, string> }> {
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  // validateSchema off: checking our own fixed schemas against the 2020-12 meta-schema compiled that
  // meta-schema first, about 140 of sp-verify's 330 ms of start-up CPU; test/schema.test.ts checks them once.
  const ajv = new Ajv2020({ allErrors: false, strict: true, strictRequired: false, allowUnionTypes: true, validateSchema: false, code });
  ajv.addKeyword({ keyword: 'schema_version', schemaType: 'string' });
  const payloads = loadSchema('payloads.schema.json');
  ajv.addSchema(loadSchema('event.schema.json'));
  ajv.addSchema(payloads);
  ajv.addSchema(loadSchema('manifest.schema.json'));
  const refs: Record<string, string> = { envelope: 'urn:sp:schema:event', manifest: 'urn:sp:schema:manifest' };
  for (const name of payloadTypes(payloads)) refs[`payload:${name}`] = `urn:sp:schema:payloads#/$defs/${name}`;
  return { ajv, refs };
}

function validatorFrom(fns: Record<string, ValidateFunction>): EventValidator {
  const { envelope, manifest } = fns;
  if (!envelope || !manifest) throw new Error('schema: the envelope or manifest validator is missing');
  const byType = new Map<string, ValidateFunction>();
  for (const [name, fn] of Object.entries(fns)) if (name.startsWith('payload:')) byType.set(name.slice('payload:'.length), fn);
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
