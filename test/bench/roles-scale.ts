/**
 * Roles at scale: 200 tables (foreign-key chain, relationships both ways) ×
 * 20 roles with select, insert, update and delete permissions on every table.
 * Measures, in one engine process: replace_metadata (catalog build), the time
 * to build all 20 role schemas, and the heap/RSS they keep, in two layouts:
 *
 * - distinct: every role has its own rules (a role-specific constant in each
 *   filter, limit and check; column sets and allow_aggregations vary with
 *   the role too, giving 4 different shapes);
 * - filters: every role has its own filters, limits, checks and presets but
 *   the same columns (the common real case): one shape, so one schema and 20
 *   sets of compiled permissions (Note [Shared role types] in
 *   engine/graphql/schema/role-access.ts);
 * - writes: as filters, but the roles also write differently (update columns
 *   and delete permission vary: 4 write shapes), so 4 schemas that share one
 *   set of table types;
 * - grouped: the 20 roles fall into 4 groups of equal rules, so the catalog
 *   interns their permissions.
 *
 * "Through SchemaCache" is what the engine does; the first role of each shape
 * builds the schema, the others only compile their permissions. The cost per
 * extra role is (all roles − first role) / (roles − 1).
 *
 * Run: node --expose-gc test/bench/roles-scale.ts [tables] [roles]
 */
import { buildEngine, type BuiltEngine } from '../../engine/boot.ts';
import { defaultSettings } from '../../engine/cli/settings.ts';
import { buildRoleSchema } from '../../engine/graphql/schema/build-schema.ts';
import { SchemaCache } from '../../engine/graphql/schema/schema-cache.ts';
import { silentLogger } from '../../engine/logger.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { gc, mib } from './lib/heap.ts';

const TABLES = Number(process.argv[2] ?? 200);
const ROLES = Number(process.argv[3] ?? 20);
const GROUPS = 4;

type Json = Record<string, unknown>;

const tableName = (i: number): string => `t${String(i).padStart(4, '0')}`;

function ddl(i: number): string {
  const fk = i > 1 ? `, prev_id int REFERENCES ${tableName(i - 1)} (id)` : '';
  return `CREATE TABLE ${tableName(i)} (id serial PRIMARY KEY, name text NOT NULL, value int, owner_id int, org_id int, note text, meta jsonb${fk});`;
}

type Layout = 'distinct' | 'filters' | 'writes' | 'grouped';

/**
 * The permissions of role `r` whose rules are those of `variant` (equal variants give equal rules);
 * `shape` decides the columns and aggregations.
 */
function permissions(variant: number, r: number, shape = variant): Json {
  const mine = { owner_id: { _eq: 'X-Engine-User-Id' } };
  const filter =
    variant % 2 === 0 ? { _or: [mine, { value: { _gt: variant } }] } : { $and: [mine, { org_id: { _in: 'x-engine-orgs' } }, { value: { _neq: variant } }] };
  return {
    select: {
      role: `role_${r}`,
      permission: { columns: shape % 2 === 0 ? '*' : ['id', 'name', 'value', 'owner_id'], filter, limit: 100 + variant, allow_aggregations: shape % 3 === 0 },
    },
    insert: { role: `role_${r}`, permission: { check: mine, set: { owner_id: 'x-engine-user-id', org_id: variant }, columns: ['name', 'value', 'note'] } },
    update: { role: `role_${r}`, permission: { columns: ['name', 'note'], filter, check: { value: { _lt: 1000 + variant } } } },
    delete: { role: `role_${r}`, permission: { filter } },
  };
}

function tableEntry(i: number, layout: Layout): Json {
  const perms = Array.from({ length: ROLES }, (_, r) =>
    layout === 'grouped' ? permissions(r % GROUPS, r + 1) : layout === 'distinct' ? permissions(r, r + 1) : permissions(r, r + 1, 0),
  );
  if (layout === 'writes') {
    perms.forEach((p, r) => {
      const update = p['update'] as { permission: Json };
      update.permission['columns'] = r % 2 === 0 ? ['name', 'note'] : ['name'];
      if (r % 4 >= 2) delete p['delete'];
    });
  }
  const entry: Json = {
    table: { schema: 'public', name: tableName(i) },
    select_permissions: perms.map((p) => p['select']),
    insert_permissions: perms.map((p) => p['insert']),
    update_permissions: perms.map((p) => p['update']),
    delete_permissions: perms.flatMap((p) => (p['delete'] === undefined ? [] : [p['delete']])),
  };
  if (i > 1) entry['object_relationships'] = [{ name: 'prev', using: { foreign_key_constraint_on: 'prev_id' } }];
  if (i < TABLES) {
    entry['array_relationships'] = [
      { name: 'nexts', using: { foreign_key_constraint_on: { table: { schema: 'public', name: tableName(i + 1) }, columns: ['prev_id'] } } },
    ];
  }
  return entry;
}

async function metadata(engine: BuiltEngine, body: unknown): Promise<Json> {
  const res = await engine.app.inject({ method: 'POST', url: '/v1/metadata', payload: body as Json });
  if (res.statusCode !== 200) throw new Error(`metadata call failed: ${res.body.slice(0, 500)}`);
  return res.json();
}

async function scenario(engine: BuiltEngine, layout: Layout): Promise<void> {
  const doc = await metadata(engine, { type: 'export_metadata', args: {} });
  const source = (doc['sources'] as Json[])[0];
  if (source === undefined) throw new Error('no source');
  source['tables'] = Array.from({ length: TABLES }, (_, k) => tableEntry(k + 1, layout));
  let t = performance.now();
  await metadata(engine, { type: 'replace_metadata', args: doc });
  const replaceMs = performance.now() - t;
  const catalog = engine.metadata.catalogRef.current;
  const roles = Array.from({ length: ROLES }, (_, r) => `role_${r + 1}`);

  gc();
  const heap0 = process.memoryUsage();
  t = performance.now();
  const unshared = roles.map((r) => buildRoleSchema(catalog, r, false));
  const unsharedMs = performance.now() - t;
  gc();
  const heap1 = process.memoryUsage();
  unshared.length = 0;
  gc();

  const heap2 = process.memoryUsage();
  const cache = new SchemaCache();
  t = performance.now();
  const first = cache.get(catalog, roles[0] ?? 'role_1', false);
  const firstMs = performance.now() - t;
  gc();
  const heapFirst = process.memoryUsage();
  t = performance.now();
  const shared = [first, ...roles.slice(1).map((r) => cache.get(catalog, r, false))];
  const restMs = performance.now() - t;
  const sharedMs = firstMs + restMs;
  gc();
  const heap3 = process.memoryUsage();
  const distinct = new Set(shared.map((s) => s.schema)).size;
  const extra = Math.max(ROLES - 1, 1);

  t = performance.now();
  buildRoleSchema(catalog, 'admin', true);
  const adminMs = performance.now() - t;

  const title = {
    distinct: 'every role distinct (columns vary too)',
    filters: 'different filters, limits, checks and presets, same columns',
    writes: 'different filters, same read columns, 4 kinds of writes',
    grouped: `${GROUPS} groups of equal rules`,
  }[layout];
  console.log(`\n## ${TABLES} tables × ${ROLES} roles, ${title}`);
  console.log(`replace_metadata (catalog build incl. introspection): ${replaceMs.toFixed(0)} ms`);
  console.log(`admin schema: ${adminMs.toFixed(0)} ms`);
  console.log(
    `${ROLES} role schemas, each built (no sharing): ${unsharedMs.toFixed(0)} ms total, ${(unsharedMs / ROLES).toFixed(1)} ms/role; heap kept ${mib(heap1.heapUsed - heap0.heapUsed)}, RSS +${mib(heap1.rss - heap0.rss)}`,
  );
  console.log(
    `${ROLES} role schemas through SchemaCache (shared by fingerprint): ${sharedMs.toFixed(0)} ms total, ${distinct} distinct schemas; heap kept ${mib(heap3.heapUsed - heap2.heapUsed)}`,
  );
  console.log(
    `  first role ${firstMs.toFixed(0)} ms, ${mib(heapFirst.heapUsed - heap2.heapUsed)}; each further role ${(restMs / extra).toFixed(1)} ms, ${mib((heap3.heapUsed - heapFirst.heapUsed) / extra)} (average over ${extra})`,
  );
  console.log(`process RSS now: ${mib(process.memoryUsage().rss)}`);
}

async function main(): Promise<void> {
  if ((globalThis as { gc?: unknown }).gc === undefined) console.log('(run with --expose-gc for exact heap numbers)');
  const pg = await startBenchPostgres();
  try {
    const url = await pg.createDatabase('roles_scale');
    const statements = Array.from({ length: TABLES }, (_, k) => ddl(k + 1));
    for (let k = 0; k < statements.length; k += 100) await pg.sql('roles_scale', statements.slice(k, k + 100).join('\n'));
    const engine = await buildEngine(defaultSettings({ databaseUrl: url, logLevel: 'error' }), silentLogger);
    try {
      gc();
      console.log(`engine started, RSS ${mib(process.memoryUsage().rss)}`);
      await scenario(engine, 'distinct');
      await scenario(engine, 'filters');
      await scenario(engine, 'writes');
      await scenario(engine, 'grouped');
    } finally {
      await engine.close();
    }
  } finally {
    await pg.stop();
  }
}

await main();
