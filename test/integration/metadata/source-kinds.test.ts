/** v2's `list_source_kinds`: the kinds of database this engine can add, named as v2 names them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

describe('list_source_kinds', () => {
  let f: MetadataFixture;
  beforeAll(async () => {
    f = await startFixture();
  });
  afterAll(async () => {
    await f.close();
  });

  it('lists every backend as a built-in, available kind, by the name its operations carry', async () => {
    const r = await f.md('list_source_kinds', {});
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      sources: [
        { kind: 'pg', builtin: true, available: true },
        { kind: 'bigquery', builtin: true, available: true },
        { kind: 'mssql', builtin: true, available: true },
      ],
    });
    // Each kind listed is one whose add_source exists (a bad configuration is refused, not unknown).
    for (const { kind } of r.body.sources as { kind: string }[]) {
      const add = await f.md(`${kind}_add_source`, { name: `k_${kind}`, configuration: {} });
      expect(add.status).toBe(400);
      expect(add.body.code).not.toBe('not-supported');
      expect(add.body.error).not.toMatch(/unknown|not supported/i);
    }
    expect((await f.md('list_source_kinds', { extra: 1 })).status).toBe(400);
  });
});
