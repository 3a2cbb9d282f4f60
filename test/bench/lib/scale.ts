/**
 * Metadata at scale: a database of N tables chained by foreign keys (each
 * table but the first references its predecessor, and each from the third
 * on also references table ⌊i/2⌋), every foreign key tracked as an object
 * relationship one way and an array relationship the other, and R roles with
 * a select permission on every table. Measures replace_metadata, tracking
 * one more table afterwards (made through run_sql, then one made by a
 * separate client), restarting the engine on that metadata, and RSS.
 */
import { metadataCall } from './engine-metadata.ts';
import { startEngine } from './engine.ts';
import type { BenchPostgres } from './postgres.ts';
import { cpuMs, rssMiB } from './process.ts';
import type { ScaleCurvePoint, ScaleResult } from './report.ts';

/** The name of table i (1-based). */
export const tableName = (i: number): string => `t${String(i).padStart(5, '0')}`;

/** Foreign keys of table i as [column, referenced table index]. */
function foreignKeys(i: number): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  if (i > 1) out.push(['a_id', i - 1]);
  if (i > 2) out.push(['b_id', Math.floor(i / 2)]);
  return out;
}

/** The CREATE TABLE of table i. */
export function createTableSql(i: number): string {
  const fks = foreignKeys(i)
    .map(([col, ref]) => `, ${col} int REFERENCES ${tableName(ref)} (id)`)
    .join('');
  return `CREATE TABLE ${tableName(i)} (id serial PRIMARY KEY, name text NOT NULL, value int, owner_id int, created_at timestamptz DEFAULT now()${fks});`;
}

type Json = Record<string, unknown>;

/** The metadata of table i of n: its relationships and the select permissions of `roles` roles. */
export function tableEntry(i: number, n: number, roles: number): Json {
  const objects = foreignKeys(i).map(([col, ref]) => ({
    name: `${col === 'a_id' ? 'prev' : 'half'}_${tableName(ref)}`,
    using: { foreign_key_constraint_on: col },
  }));
  const arrays: Json[] = [];
  if (i + 1 <= n)
    arrays.push({
      name: `next_${tableName(i + 1)}s`,
      using: { foreign_key_constraint_on: { table: { schema: 'public', name: tableName(i + 1) }, column: 'a_id' } },
    });
  for (const j of [2 * i, 2 * i + 1]) {
    if (j > 2 && j <= n)
      arrays.push({
        name: `double_${tableName(j)}s`,
        using: { foreign_key_constraint_on: { table: { schema: 'public', name: tableName(j) }, column: 'b_id' } },
      });
  }
  const perms = Array.from({ length: roles }, (_, r) => ({
    role: `role_${r + 1}`,
    permission: {
      columns: r % 2 === 0 ? '*' : ['id', 'name', 'value'],
      filter: r % 3 === 0 ? {} : { owner_id: { _eq: 'X-Engine-User-Id' } },
      ...(r % 2 === 0 ? { allow_aggregations: true } : { limit: 100 }),
    },
  }));
  const entry: Json = { table: { schema: 'public', name: tableName(i) }, select_permissions: perms };
  if (objects.length > 0) entry['object_relationships'] = objects;
  if (arrays.length > 0) entry['array_relationships'] = arrays;
  return entry;
}

/** Creates tables 1..`count` of the scale database in `db` (250 per statement batch). */
export async function createScaleTables(pg: BenchPostgres, db: string, count: number): Promise<void> {
  const ddl = Array.from({ length: count }, (_, k) => createTableSql(k + 1));
  for (let k = 0; k < ddl.length; k += 250) await pg.sql(db, ddl.slice(k, k + 250).join('\n'));
}

/** An exported metadata document with the default source's tables set to the scale database's first `tables`, each with `roles` roles. */
export function withScaleTables(exported: Json, tables: number, roles: number): Json {
  const source = (exported['sources'] as Json[]).find((s) => s['name'] === 'default');
  if (source === undefined) throw new Error('no default source');
  source['tables'] = Array.from({ length: tables }, (_, k) => tableEntry(k + 1, tables, roles));
  return exported;
}

async function gql(url: string, query: string, headers: Record<string, string> = {}): Promise<void> {
  const res = await fetch(`${url}/v1/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
  const text = await res.text();
  if (!res.ok || text.includes('"errors"')) throw new Error(`query failed: ${text.slice(0, 400)}`);
}

/** Sends one query as admin and as each role in turn (each needs its role schema). */
export async function allRolesAnswer(url: string, table: string, roles: number): Promise<void> {
  await gql(url, `{ ${table}(limit: 1) { id } }`);
  for (let r = 1; r <= roles; r++) await gql(url, `{ ${table}(limit: 1) { id } }`, { 'x-engine-role': `role_${r}`, 'x-engine-user-id': '1' });
}

/**
 * Note [Settled RSS]
 * "RSS with every role schema built" is read the moment the last role
 * answered, when the heap still holds whatever garbage the builds left:
 * at 2,000 tables × 10 roles, 240-370 MiB of heap with 195 MiB live, so the
 * figure moved by up to 70 MiB from run to run with the timing of V8's last
 * full collection. The figure beside it, read 20 s later with no request in
 * between, is what an engine that went quiet after a metadata change holds:
 * engine/idle-gc.ts collects within about 2 s of the burst's end (Note
 * [Collecting after a burst]), and V8's memory reducer, which that
 * collection starts, returns the emptied pages 8-12 s after it (its own
 * collections paused the engine 0.4-0.7 s on the loaded 2-core machine). Both
 * are kept. Since Note [No memory reducer] (engine/cli/v8-flags.ts) the engine
 * runs without the reducer, so the later figure keeps the emptied pages.
 */
async function settledRssMiB(pid: number | undefined): Promise<number | null> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  return await rssMiB(pid);
}

const SETTLE_MS = 20_000;

/** Runs the scale benchmark on a fresh database of `pg`. */
export async function runScaleBench(pg: BenchPostgres, tables: number, roles: number, log: (s: string) => void): Promise<ScaleResult> {
  const db = 'bench_scale';
  const url = await pg.createDatabase(db);
  log(`scale: creating ${tables} tables`);
  const ddl: string[] = [];
  for (let i = 1; i <= tables; i++) ddl.push(createTableSql(i));
  for (let k = 0; k < ddl.length; k += 250) await pg.sql(db, ddl.slice(k, k + 250).join('\n'));
  let foreignKeyCount = 0;
  for (let i = 1; i <= tables; i++) foreignKeyCount += foreignKeys(i).length;

  let engine = await startEngine(url);
  try {
    const exported = await metadataCall(engine.url, { type: 'export_metadata', args: {} });
    const source = (exported['sources'] as Json[]).find((s) => s['name'] === 'default');
    if (source === undefined) throw new Error('no default source');
    source['tables'] = Array.from({ length: tables }, (_, k) => tableEntry(k + 1, tables, roles));
    const body = JSON.stringify({ type: 'replace_metadata', args: exported });
    log(`scale: replace_metadata (${(body.length / 1024 / 1024).toFixed(1)} MiB)`);
    let cpu0 = (await cpuMs(engine.child.pid)) ?? NaN;
    let t = performance.now();
    await metadataCall(engine.url, body);
    const replaceMetadataMs = performance.now() - t;
    const rssAfterReplaceMiB = await rssMiB(engine.child.pid);
    // Role schemas may be built lazily or in the background: "ready" is when every role has answered.
    await allRolesAnswer(engine.url, tableName(tables), roles);
    const replaceToReadyMs = performance.now() - t;
    const replaceToReadyCpuMs = ((await cpuMs(engine.child.pid)) ?? NaN) - cpu0;
    const rssReadyMiB = await rssMiB(engine.child.pid);
    const rssSettledMiB = await settledRssMiB(engine.child.pid);

    // One more table: made through run_sql (which re-introspects), then tracked on its own.
    const extra = tableName(tables + 1);
    await metadataCall(
      engine.url,
      {
        type: 'run_sql',
        args: { source: 'default', sql: `CREATE TABLE ${extra} (id serial PRIMARY KEY, name text, a_id int REFERENCES ${tableName(tables)} (id));` },
      },
      '/v2/query',
    );
    await allRolesAnswer(engine.url, tableName(tables), roles);
    cpu0 = (await cpuMs(engine.child.pid)) ?? NaN;
    t = performance.now();
    await metadataCall(engine.url, { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: extra } } });
    const trackOneMoreMs = performance.now() - t;
    const trackOneMoreCpuMs = ((await cpuMs(engine.child.pid)) ?? NaN) - cpu0;
    await gql(engine.url, `{ ${extra}(limit: 1) { id } }`);
    const trackThenFirstQueryMs = performance.now() - t;
    await allRolesAnswer(engine.url, tableName(tables), roles);
    const trackToReadyMs = performance.now() - t;
    const trackToReadyCpuMs = ((await cpuMs(engine.child.pid)) ?? NaN) - cpu0;
    // And one made by a separate client (psql, a migration tool): seen without reload_metadata.
    const external = tableName(tables + 2);
    await pg.sql(db, `CREATE TABLE ${external} (id serial PRIMARY KEY, name text, a_id int REFERENCES ${tableName(tables)} (id));`);
    t = performance.now();
    await metadataCall(engine.url, { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: external } } });
    const trackExternalMs = performance.now() - t;
    await gql(engine.url, `{ ${external}(limit: 1) { id } }`);
    log(
      `scale: replace ${replaceMetadataMs.toFixed(0)} ms (ready ${replaceToReadyMs.toFixed(0)} ms), track one more ${trackOneMoreMs.toFixed(0)} ms (ready ${trackToReadyMs.toFixed(0)} ms), track one made outside ${trackExternalMs.toFixed(0)} ms`,
    );

    await engine.stop();
    t = performance.now();
    engine = await startEngine(url);
    const restartToHealthyMs = performance.now() - t;
    await gql(engine.url, `{ ${tableName(1)}(limit: 1) { id } }`);
    const restartToFirstQueryMs = performance.now() - t;
    await allRolesAnswer(engine.url, tableName(tables), roles);
    const restartToReadyMs = performance.now() - t;
    const restartToReadyCpuMs = (await cpuMs(engine.child.pid)) ?? NaN;
    const rssAfterRestartMiB = await rssMiB(engine.child.pid);
    const rssAfterRestartSettledMiB = await settledRssMiB(engine.child.pid);
    return {
      tables,
      roles,
      foreignKeys: foreignKeyCount,
      metadataBytes: body.length,
      replaceMetadataMs,
      replaceToReadyMs,
      trackOneMoreMs,
      trackThenFirstQueryMs,
      trackToReadyMs,
      trackExternalMs,
      restartToHealthyMs,
      restartToFirstQueryMs,
      restartToReadyMs,
      rssAfterReplaceMiB,
      rssReadyMiB,
      rssSettledMiB,
      rssAfterRestartMiB,
      rssAfterRestartSettledMiB,
      cpu: {
        replaceToReadyMs: replaceToReadyCpuMs,
        trackOneMoreMs: trackOneMoreCpuMs,
        trackToReadyMs: trackToReadyCpuMs,
        restartToReadyMs: restartToReadyCpuMs,
      },
    };
  } finally {
    await engine.stop();
  }
}

/**
 * The curve of one change: tracking one more table at each size of `sizes`
 * tables (× `roles` roles, the database above), three times in a row on one
 * engine per size, each time the `pg_track_table` answer, then the first
 * admin query on the new table, then admin and every role answered (the
 * medians), and the engine process's CPU time for the answer and for all of
 * it (steadier than wall time on a shared machine). A change whose cost grows with the change, not the database
 * (Note [Types across catalog versions] in engine/graphql/schema/schema-cache.ts),
 * keeps these flat. Run with `npm run bench -- --scale-curve`.
 */
export async function runScaleCurve(pg: BenchPostgres, sizes: readonly number[], roles: number, log: (s: string) => void): Promise<ScaleCurvePoint[]> {
  const TRACKS = 3;
  const points: ScaleCurvePoint[] = [];
  for (const tables of sizes) {
    const db = `bench_curve_${tables}`;
    const url = await pg.createDatabase(db);
    const ddl: string[] = [];
    for (let i = 1; i <= tables; i++) ddl.push(createTableSql(i));
    for (let k = 1; k <= TRACKS; k++) {
      ddl.push(`CREATE TABLE ${tableName(tables + k)} (id serial PRIMARY KEY, name text, a_id int REFERENCES ${tableName(tables)} (id));`);
    }
    for (let k = 0; k < ddl.length; k += 250) await pg.sql(db, ddl.slice(k, k + 250).join('\n'));
    const engine = await startEngine(url);
    try {
      const exported = await metadataCall(engine.url, { type: 'export_metadata', args: {} });
      const source = (exported['sources'] as Json[]).find((s) => s['name'] === 'default');
      if (source === undefined) throw new Error('no default source');
      source['tables'] = Array.from({ length: tables }, (_, k) => tableEntry(k + 1, tables, roles));
      await metadataCall(engine.url, JSON.stringify({ type: 'replace_metadata', args: exported }));
      await allRolesAnswer(engine.url, tableName(tables), roles);
      const answer: number[] = [];
      const firstQuery: number[] = [];
      const ready: number[] = [];
      const answerCpu: number[] = [];
      const readyCpu: number[] = [];
      const pid = engine.child.pid;
      for (let k = 1; k <= TRACKS; k++) {
        const extra = tableName(tables + k);
        const cpu0 = (await cpuMs(pid)) ?? NaN;
        const t = performance.now();
        await metadataCall(engine.url, { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: extra } } });
        answer.push(performance.now() - t);
        answerCpu.push(((await cpuMs(pid)) ?? NaN) - cpu0);
        await gql(engine.url, `{ ${extra}(limit: 1) { id } }`);
        firstQuery.push(performance.now() - t);
        await allRolesAnswer(engine.url, tableName(tables), roles);
        ready.push(performance.now() - t);
        readyCpu.push(((await cpuMs(pid)) ?? NaN) - cpu0);
      }
      const point: ScaleCurvePoint = {
        tables,
        roles,
        trackAnswerMs: median(answer),
        trackThenFirstQueryMs: median(firstQuery),
        trackToReadyMs: median(ready),
        trackAnswerCpuMs: median(answerCpu),
        trackToReadyCpuMs: median(readyCpu),
        rssReadyMiB: await rssMiB(engine.child.pid),
      };
      log(
        `curve: ${tables} tables: track ${point.trackAnswerMs.toFixed(0)} ms, first admin query ${point.trackThenFirstQueryMs.toFixed(0)} ms, all roles ${point.trackToReadyMs.toFixed(0)} ms; engine CPU: answer ${point.trackAnswerCpuMs.toFixed(0)} ms, to all roles ${point.trackToReadyCpuMs.toFixed(0)} ms (medians of ${TRACKS}), RSS ${point.rssReadyMiB ?? '?'} MiB`,
      );
      points.push(point);
    } finally {
      await engine.stop();
    }
  }
  return points;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}
