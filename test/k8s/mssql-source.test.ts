/**
 * An MSSQL source through the operator on a REAL kube-apiserver + etcd and a real engine (issue
 * 31): a Source `kind: mssql` whose connection string comes from a Secret (as a postgres source's
 * database URL does: `{from_env}` in the resource, the Secret in the engine's environment), a
 * TrackedTable with a bare name (in `dbo`, MSSQL's default schema), a relationship and a
 * Permission. No SQL Server runs here: the connection string points at a closed port, so the
 * engine keeps the source's metadata and lists the source inconsistent (v2), which the resources
 * must report rather than Ready.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/engine-process.ts';
import { k8sSkipReason, resource, startOperatorEnv, type OperatorEnv } from './harness.ts';

const skipReason = k8sSkipReason();

interface MssqlTable {
  table: { schema: string; name: string };
  object_relationships?: { name: string; using: unknown }[];
  select_permissions?: { role: string; permission: { columns: string[]; filter: unknown } }[];
}
interface MssqlSource {
  name: string;
  kind: string;
  configuration: { connection_info: { connection_string: unknown; pool_settings?: unknown; isolation_level?: string } };
  tables: MssqlTable[];
}

describe.skipIf(skipReason !== null)('an MSSQL Source and its tables through the operator on a real kube-apiserver', { timeout: 120_000 }, () => {
  let env: OperatorEnv;
  let connectionString = '';
  const shop = async (): Promise<MssqlSource | undefined> =>
    (await env.client.exportMetadata()).metadata.sources.find((s) => s.name === 'shop') as unknown as MssqlSource | undefined;

  beforeAll(async () => {
    // A port nothing listens on: the engine's tedious connection is refused.
    const closed = await freePort();
    connectionString = `Server=127.0.0.1,${closed};Database=shop;User Id=sa;Password=Not-In-Any-Resource-1;Encrypt=false;Connect Timeout=2`;
    // No kubelet runs here: the engine gets the Secret's value in its environment as a Pod's
    // `env[].valueFrom.secretKeyRef` would give it (Engine spec.deployment.env, README).
    env = await startOperatorEnv('k8s_mssql', 'SELECT 1;', {}, { env: { SHOP_MSSQL_CONNECTION_STRING: connectionString } });
  }, 180_000);

  afterAll(async () => {
    await env?.stop();
  });

  it('validates the MSSQL sample', () => {
    expect(env.cp.kubectl(['apply', '-n', 'default', '-f', 'config/samples/source_mssql.yaml', '--dry-run=server'])).toContain(
      'source.graphql.engine.dev/shop created (server dry run)',
    );
  });

  it('applies the source with its connection string from the environment, the dbo table, relationship and permission; reports the source unreachable', async () => {
    env.cp.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'shop-mssql', namespace: 'default' },
      stringData: { 'connection-string': connectionString },
    });
    env.cp.apply(resource('Engine', 'main', { url: `http://127.0.0.1:${env.enginePort}`, adminSecretRef: { name: 'engine-admin' } }));
    env.cp.apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        resource('Source', 'shop', {
          kind: 'mssql',
          configuration: {
            connection_info: {
              connection_string: { from_env: 'SHOP_MSSQL_CONNECTION_STRING' },
              pool_settings: { max_connections: 5, idle_timeout: 30 },
              isolation_level: 'snapshot',
            },
          },
        }),
        resource('TrackedTable', 'customer', { source: 'shop', table: 'customer' }),
        resource('TrackedTable', 'orders', {
          source: 'shop',
          table: 'orders',
          object_relationships: [{ name: 'customer', using: { foreign_key_constraint_on: 'customer_id' } }],
        }),
        resource('Permission', 'customer-user-select', {
          source: 'shop',
          table: 'customer',
          role: 'user',
          operation: 'select',
          permission: { columns: ['id', 'name'], filter: {} },
        }),
      ],
    });

    const source = await env.until('the mssql source with both tables in the engine', async () => {
      const s = await shop();
      return s !== undefined && s.tables.length === 2 && s;
    });
    expect(source.kind).toBe('mssql');
    expect(source.configuration.connection_info).toEqual({
      connection_string: { from_env: 'SHOP_MSSQL_CONNECTION_STRING' },
      pool_settings: { max_connections: 5, idle_timeout: 30 },
      isolation_level: 'snapshot',
    });
    // The secret is in neither the resource nor the engine's metadata.
    expect(env.cp.kubectl(['get', 'sources.graphql.engine.dev', 'shop', '-o', 'json'])).not.toContain('Not-In-Any-Resource-1');
    expect(JSON.stringify(source)).not.toContain('Not-In-Any-Resource-1');
    // Bare names are in dbo, MSSQL's default schema, not postgres' public.
    const tables = new Map(source.tables.map((t) => [t.table.name, t]));
    expect(tables.get('customer')?.table).toEqual({ schema: 'dbo', name: 'customer' });
    expect(tables.get('orders')?.table).toEqual({ schema: 'dbo', name: 'orders' });
    expect(tables.get('orders')?.object_relationships).toEqual([{ name: 'customer', using: { foreign_key_constraint_on: 'customer_id' } }]);
    expect(tables.get('customer')?.select_permissions).toEqual([{ role: 'user', permission: { columns: ['id', 'name'], filter: {} } }]);
    expect(env.get('engines', 'main')?.status?.managedObjects).toEqual(
      expect.arrayContaining(['source/shop', 'table/shop/dbo.customer', 'table/shop/dbo.orders', 'permission/shop/dbo.customer/user/select']),
    );

    // The engine resolved the variable (a missing one says "is not set") and tried the port:
    // the Source is not Ready and says why in tedious' words.
    const c = await env.until('the Source reporting its server unreachable', () => {
      const r = env.cond('sources', 'shop');
      return r?.status === 'False' && r;
    });
    // Unreachable is an outage, not a stall: the operator reloads the source with backoff.
    expect(c.reason).toBe('RemoteUnavailable');
    expect(c.message).not.toContain('is not set');
    expect(c.message).toMatch(/ECONNREFUSED|Failed to connect/);
    console.log(`[k8s] mssql Source: ${c.reason}: ${c.message}`);
    // What depends on the source says so: not Ready, with the source's reason.
    for (const [plural, name] of [
      ['trackedtables', 'customer'],
      ['trackedtables', 'orders'],
      ['permissions', 'customer-user-select'],
    ] as const) {
      const d = await env.until(`${plural}/${name} not Ready`, () => {
        const r = env.cond(plural, name);
        return r?.status === 'False' && r;
      });
      expect(d.message).toContain('depends on an inconsistent object');
      expect(d.message).toMatch(/could not connect to source "shop"/);
    }
  });

  it('removes a deleted TrackedTable of the mssql source from the engine', async () => {
    env.cp.kubectl(['delete', 'trackedtables.graphql.engine.dev', 'orders', '--wait=false']);
    await env.until('orders gone from the engine', async () => {
      const s = await shop();
      return s !== undefined && !s.tables.some((t) => t.table.name === 'orders') && s;
    });
    await env.until('the TrackedTable resource gone', () => env.get('trackedtables', 'orders') === null);
    const s = await shop();
    expect(s?.tables.map((t) => t.table)).toEqual([{ schema: 'dbo', name: 'customer' }]);
    expect(env.get('engines', 'main')?.status?.managedObjects).not.toContain('table/shop/dbo.orders');
  });
});
