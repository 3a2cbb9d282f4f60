/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * `get_resource_version`: the cheap read the operator polls (drift and outage detection).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

let f: MetadataFixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(async () => {
  await f.close();
});

describe('get_resource_version', () => {
  it('answers the resource_version export_metadata reports, and follows writes and inconsistencies', async () => {
    const before = await f.md('get_resource_version');
    expect(before.status).toBe(200);
    const exported = (await f.md('export_metadata', {}, { version: 2 })).body as any;
    expect(before.body).toEqual({ resource_version: exported.resource_version, is_consistent: true, inconsistent_objects: 0 });

    expect((await f.md('pg_track_table', { table: 'authors' })).status).toBe(200);
    const after = (await f.md('get_resource_version')).body as any;
    expect(after.resource_version).toBe(exported.resource_version + 1);

    const doc = ((await f.md('export_metadata', {}, { version: 2 })).body as any).metadata;
    doc.sources[0].tables.push({ table: { schema: 'public', name: 'no_such_table' } });
    const replaced = await f.md('replace_metadata', { allow_inconsistent_metadata: true, metadata: doc }, { version: 2 });
    expect(replaced.status).toBe(200);
    expect((await f.md('get_resource_version')).body).toEqual({ resource_version: after.resource_version + 1, is_consistent: false, inconsistent_objects: 1 });
  });

  it('refuses arguments that are not an object with a v2 error', async () => {
    const r = await f.md('get_resource_version', 'nope');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ path: '$.args' });
  });
});
