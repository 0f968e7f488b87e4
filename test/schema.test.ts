import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createValidator, schemaVersions, type EventValidator } from '../lib/core/schema.js';
import { root } from './support/streams.js';

let validator: EventValidator;
beforeAll(async () => {
  validator = await createValidator();
});

const good = () => ({
  session: 'sess_1',
  seq: 0,
  ts: 1790000000.5,
  agent: 'claude',
  type: 'tool.call',
  payload: { call_id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
  checksum: 'sha256:' + '0'.repeat(64),
});

describe('schemas', () => {
  it('carry a schema_version each', () => {
    const versions = schemaVersions();
    expect(Object.keys(versions)).toEqual(['event.schema.json', 'payloads.schema.json', 'manifest.schema.json']);
    for (const v of Object.values(versions)) expect(v).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('are valid 2020-12 schemas (the validator does not check them at run time)', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    ajv.addKeyword({ keyword: 'schema_version', schemaType: 'string' });
    for (const name of Object.keys(schemaVersions())) {
      const schema = JSON.parse(readFileSync(join(root, 'schema', name), 'utf8')) as Record<string, unknown>;
      expect(ajv.validateSchema(schema), `${name}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
    }
    const broken = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: 'session' };
    expect(ajv.validateSchema(broken)).toBe(false);
  });

  it('accept a valid event', () => {
    expect(validator.validate(good())).toEqual([]);
  });

  it.each(['session', 'seq', 'ts', 'agent', 'type', 'payload'])('reject an event without %s', (field) => {
    const e: Record<string, unknown> = good();
    delete e[field];
    const issues = validator.validate(e);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0].message).toContain(field);
  });

  it('accept unknown fields and unknown dotted types (forward compatibility)', () => {
    expect(validator.validate({ ...good(), future_field: { x: 1 }, payload: { ...good().payload, extra: true } })).toEqual([]);
    expect(validator.validate({ ...good(), type: 'agent.mood.changed', payload: { anything: 1 } })).toEqual([]);
  });

  it('reject malformed envelope values', () => {
    expect(validator.validate({ ...good(), type: 'Not A Type' })).not.toEqual([]);
    expect(validator.validate({ ...good(), seq: -1 })).not.toEqual([]);
    expect(validator.validate({ ...good(), checksum: 'md5:abc' })).not.toEqual([]);
    expect(validator.validate({ ...good(), level: 3 })).not.toEqual([]);
  });

  it('check the payloads of core types', () => {
    expect(validator.validate({ ...good(), payload: { name: 'Bash', input: {} } })[0].path).toBe('/payload');
    expect(validator.validate({ ...good(), type: 'message.user', payload: { content: [{ type: 'image', media_type: 'image/png' }] } })).not.toEqual([]);
    expect(validator.validate({ ...good(), type: 'message.user', payload: { content: [{ type: 'image', media_type: 'image/png', data: 'iVBO' }] } })).toEqual([]);
    expect(validator.validate({ ...good(), type: 'file.edit', payload: { path: 'a.js', diff: '@@', kind: 'rename' } })).not.toEqual([]);
    expect(validator.validate({ ...good(), type: 'meta', payload: { raw: {} } })).not.toEqual([]);
  });

  it('validate a manifest', () => {
    const manifest = { schema_version: '1.0.0', session_id: 'sess_1', created_by: { agent: 'claude' }, event_count: 2, first_seq: 0, last_seq: 1, head: 'sha256:' + 'a'.repeat(64) };
    expect(validator.validateManifest(manifest)).toEqual([]);
    expect(validator.validateManifest({ ...manifest, head: 'nope' })).not.toEqual([]);
    const { session_id: _drop, ...incomplete } = manifest;
    expect(validator.validateManifest(incomplete)).not.toEqual([]);
  });
});
