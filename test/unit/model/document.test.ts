import { describe, expect, it } from 'vitest';
import { normalizeDocument, parseTableName, toWireDocument } from '../../../engine/model/document.ts';

describe('metadata document', () => {
  it('reads bare table names in the default schema it is given', () => {
    expect(parseTableName('a', 'public')).toEqual({ schema: 'public', name: 'a' });
    expect(parseTableName({ name: 'a' }, 'dbo')).toEqual({ schema: 'dbo', name: 'a' });
    expect(parseTableName({ schema: 's', name: 'a' }, 'public')).toEqual({ schema: 's', name: 'a' });
  });

  it('normalizes, and leaves empty lists out on the wire', () => {
    const raw = {
      version: 3,
      sources: [
        {
          name: 'default',
          kind: 'pg',
          tables: [{ table: 'a', object_relationships: [], is_enum: false, configuration: {} }],
          configuration: { connection_info: { database_url: 'x' } },
        },
      ],
      remote_schemas: [],
      network: { tls_allowlist: [] },
    };
    const doc = normalizeDocument(raw);
    expect(doc.sources[0]?.kind).toBe('postgres');
    expect(doc.sources[0]?.tables[0]?.array_relationships).toEqual([]);
    expect(toWireDocument(doc)).toEqual({
      version: 3,
      sources: [
        {
          name: 'default',
          kind: 'postgres',
          tables: [{ table: { name: 'a', schema: 'public' } }],
          configuration: { connection_info: { database_url: 'x' } },
        },
      ],
      network: { tls_allowlist: [] },
    });
  });

  it('round-trips a full document', () => {
    const wire = {
      version: 3,
      sources: [
        {
          name: 'default',
          kind: 'postgres',
          tables: [
            {
              table: { name: 'a', schema: 'public' },
              configuration: { custom_name: 'x' },
              is_enum: true,
              object_relationships: [{ name: 'r', using: { foreign_key_constraint_on: 'b_id' } }],
              select_permissions: [{ role: 'u', permission: { columns: '*', filter: {} } }],
              event_triggers: [{ name: 'e', definition: { enable_manual: false } }],
            },
          ],
          functions: [{ function: { name: 'f', schema: 'public' } }],
          configuration: { connection_info: { database_url: { from_env: 'DB' } } },
        },
      ],
      actions: [{ name: 'a', definition: { handler: 'h' } }],
      inherited_roles: [{ role_name: 'r', role_set: ['u'] }],
    };
    expect(toWireDocument(normalizeDocument(wire))).toEqual(wire);
  });
});
