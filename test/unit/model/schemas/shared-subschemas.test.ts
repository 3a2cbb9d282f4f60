/**
 * Note [Repeated subschemas compiled once] (engine/model/schemas/validate.ts):
 * the document schema with its repeated subschemas moved to `$defs` accepts
 * and refuses exactly what the schema as written does, with the same errors
 * in the same order, over a corpus of broken documents made by changing every
 * value of a document that uses most sections (replaced by another type,
 * null, an empty object or list, a key added or removed).
 */
import { Ajv, type ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { engineDocumentSchemas } from '../../../../engine/metadata/document-schemas.ts';
import { withSharedSubschemas, type JsonSchema } from '../../../../engine/model/schemas/validate.ts';

type Json = unknown;

const qualified = (name: string): Json => ({ schema: 'public', name });
const table = (name: string, prev: string | null): Json => ({
  table: qualified(name),
  configuration: {
    custom_name: `${name}_x`,
    custom_root_fields: { select: 'all', select_by_pk: { name: 'one', comment: 'c' } },
    column_config: { id: { custom_name: 'ident' } },
  },
  object_relationships: prev === null ? [] : [{ name: 'prev', using: { foreign_key_constraint_on: 'prev_id' } }],
  array_relationships: [
    { name: 'nexts', using: { foreign_key_constraint_on: { table: qualified('n'), column: 'prev_id' } } },
    { name: 'manual', using: { manual_configuration: { remote_table: qualified('m'), column_mapping: { id: 'm_id' } } } },
  ],
  computed_fields: [{ name: 'full', definition: { function: qualified('full_name'), table_argument: null } }],
  insert_permissions: [{ role: 'user', permission: { check: { id: { _eq: 'X-Engine-User-Id' } }, set: {}, columns: ['id', 'name'], backend_only: false } }],
  select_permissions: [
    { role: 'user', permission: { columns: '*', filter: {}, limit: 10, allow_aggregations: true, computed_fields: ['full'] } },
    { role: 'guest', permission: { columns: ['id'], filter: { id: { _gt: 0 } } } },
  ],
  update_permissions: [{ role: 'user', permission: { columns: ['name'], filter: {}, check: null, set: { name: 'x' } } }],
  delete_permissions: [{ role: 'user', permission: { filter: {} } }],
  event_triggers: [
    {
      name: `${name}_ev`,
      definition: { enable_manual: true, insert: { columns: '*' } },
      retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 },
      webhook: 'http://h',
    },
  ],
});
const DOCUMENT: Json = {
  version: 3,
  sources: [
    {
      name: 'default',
      kind: 'postgres',
      tables: [table('a', null), table('b', 'a')],
      functions: [{ function: qualified('f'), configuration: { custom_root_fields: { function: 'g' }, exposed_as: 'query' }, permissions: [{ role: 'user' }] }],
      configuration: {
        connection_info: { database_url: { from_env: 'DB' }, pool_settings: { max_connections: 5, idle_timeout: 1 }, isolation_level: 'read-committed' },
      },
      customization: { root_fields: { namespace: 'ns' }, type_names: { prefix: 'p_' } },
    },
  ],
  remote_schemas: [{ name: 'r', definition: { url: 'http://r' }, comment: 'c' }],
  actions: [{ name: 'act', definition: { handler: 'http://a', type: 'mutation', arguments: [] }, permissions: [{ role: 'user' }] }],
  custom_types: { objects: [], input_objects: [] },
  query_collections: [{ name: 'allowed', definition: { queries: [{ name: 'q', query: '{ a { id } }' }] } }],
  allowlist: [{ collection: 'allowed', scope: { global: true } }],
  cron_triggers: [{ name: 'c', webhook: 'http://c', schedule: '* * * * *', include_in_metadata: true, payload: {} }],
  rest_endpoints: [{ name: 'e', url: 'e', methods: ['GET'], definition: { query: { query_name: 'q', collection_name: 'allowed' } } }],
  api_limits: { disabled: false, depth_limit: { global: 5, per_role: { user: 3 } } },
  inherited_roles: [{ role_name: 'both', role_set: ['user', 'guest'] }],
  graphql_schema_introspection: { disabled_for_roles: ['guest'] },
};

/** Every value of `doc` changed in turn: replaced, set to null, emptied, a key added or removed. */
function* mutations(doc: Json): Generator<Json> {
  const clone = (): Json => structuredClone(doc);
  const paths: Array<Array<string | number>> = [];
  const walk = (v: Json, at: Array<string | number>): void => {
    paths.push(at);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...at, i]));
    else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
  };
  walk(doc, []);
  const at = (root: Json, path: Array<string | number>): Record<string | number, Json> =>
    path.reduce<Json>((o, k) => (o as Record<string | number, Json>)[k], root) as Record<string | number, Json>;
  for (const path of paths) {
    const parentPath = path.slice(0, -1);
    const key = path[path.length - 1];
    for (const replacement of [42, 'text', null, [], {}, true, -1, '']) {
      if (key === undefined) continue;
      const d = clone();
      at(d, parentPath)[key] = replacement;
      yield d;
    }
    const here = at(doc, path);
    if (typeof here === 'object' && here !== null && !Array.isArray(here)) {
      const added = clone();
      at(added, path)['colums'] = 1;
      yield added;
      for (const k of Object.keys(here)) {
        const removed = clone();
        delete at(removed, path)[k];
        yield removed;
      }
    }
  }
}

const shape = (errors: readonly ErrorObject[] | null | undefined): unknown =>
  (errors ?? []).map((e) => ({
    instancePath: e.instancePath,
    keyword: e.keyword,
    params: e.params,
    message: e.message,
    keys: Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {}),
  }));

describe('repeated subschemas compiled once', () => {
  for (const [name, schema] of [
    ['document', engineDocumentSchemas.document],
    ['stored', engineDocumentSchemas.stored],
  ] as const) {
    it(`the ${name} schema: same answers and errors as written`, () => {
      const shared = withSharedSubschemas(schema);
      expect(shared).not.toBe(schema);
      expect(Object.keys((shared as { $defs?: object }).$defs ?? {}).length).toBeGreaterThan(5);
      const options = { allErrors: true, strict: false, verbose: true, code: { optimize: false } } as const;
      const plain = new Ajv(options).compile(schema as JsonSchema);
      const refs = new Ajv({ ...options, inlineRefs: false }).compile(shared);
      expect(plain(DOCUMENT)).toBe(true);
      expect(refs(DOCUMENT)).toBe(true);
      let refused = 0;
      for (const doc of mutations(DOCUMENT)) {
        const a = plain(doc);
        const b = refs(doc);
        expect(b).toBe(a);
        if (!a) refused++;
        expect(shape(refs.errors)).toEqual(shape(plain.errors));
      }
      expect(refused).toBeGreaterThan(500);
    });
  }
});
