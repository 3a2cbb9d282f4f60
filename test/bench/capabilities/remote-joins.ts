/**
 * Bench cell: remote relationships (issue 16). 100 albums, each joined to
 * its artist on a remote GraphQL server (test/bench/peers/artist-bios-server.ts,
 * its own process), through Engine's remote relationship, against the same
 * query through a graphql-tools stitching gateway
 * (test/bench/peers/stitching-gateway.ts: Engine for the albums, the remote
 * for the artists, `batch: true`). Figures: requests per second, latency,
 * and remote requests per client request (the goal: exactly one per join
 * level, whatever the row count). The gateway runs first, while Engine has
 * no remote relationship (its schema would clash with the gateway's
 * extension); then Engine gets the remote schema and the relationship.
 * A second table: the other way, the remote's 20 artists joined to their
 * 100 albums by a relationship of the remote's type (`to_source`), Engine
 * alone (one remote request and one statement per client request).
 * A third: a remote subscription (test/bench/peers/ticker-server.ts, graphql-ws)
 * streamed to graphql-ws clients directly and through Engine's proxy
 * (Note [Remote subscriptions]): events per second and CPU per 1000 events.
 * A fourth table: 100 albums of one database joined to their stats in
 * another (a table's `to_source` relationship, cross-source), against two
 * queries joined by the client and a graphql-tools stitching gateway over
 * two engines (test/bench/peers/cross-source-gateway.ts); both databases
 * sit behind statement-counting proxies (test/support/pg-proxy.ts) for
 * every peer alike, so statements per request are counted, not inferred.
 */
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { cpuMs, spawnPeer, type PeerProcess } from '../lib/process.ts';
import { startEngine } from '../lib/engine.ts';
import { runLoad } from '../lib/load.ts';
import type { CapabilityBench, CapabilityContext } from './types.ts';
import { startPgProxy, type PgProxy } from '../../support/pg-proxy.ts';

const QUERY = '{ album(order_by: {id: asc}, limit: 100) { id title artist_info { name bio } } }';
const REVERSE_QUERY = '{ artists { id name albums(order_by: {id: asc}) { id title } } }';

/** A query of the cell and how its answer is checked. */
interface Workload {
  readonly query: string;
  /** Request headers (a role's: X-Engine-Role); none for admin. */
  readonly headers?: Readonly<Record<string, string>>;
  check(body: unknown): boolean;
}

const ALBUMS: Workload = {
  query: QUERY,
  check: (body) => {
    const albums = (body as { data?: { album: Array<{ artist_info: { name: string } | null }> } }).data?.album ?? [];
    return albums.length === 100 && albums.every((a) => a.artist_info !== null);
  },
};

const ARTISTS: Workload = {
  query: REVERSE_QUERY,
  check: (body) => {
    const artists = (body as { data?: { artists: Array<{ albums: unknown[] }> } }).data?.artists ?? [];
    return artists.length === 20 && artists.reduce((n, a) => n + a.albums.length, 0) === 100;
  },
};

async function metadata(url: string, type: string, args: unknown): Promise<void> {
  const res = await fetch(`${url}/v1/metadata`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type, args }) });
  if (res.status !== 200) throw new Error(`${type}: ${res.status} ${await res.text()}`);
}

async function remoteCount(remote: PeerProcess): Promise<number> {
  const res = await fetch(remote.url.replace(/\/graphql$/, '/count'));
  return ((await res.json()) as { count: number }).count;
}

/** Checks one answer of `w`. */
async function check(url: string, w: Workload): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...w.headers }, body: JSON.stringify({ query: w.query }) });
  const body = (await res.json()) as unknown;
  if (!w.check(body)) throw new Error(`unexpected answer from ${url}: ${JSON.stringify(body).slice(0, 300)}`);
}

async function measure(
  ctx: CapabilityContext,
  name: string,
  url: string,
  pid: number | undefined,
  remote: PeerProcess,
  w: Workload = ALBUMS,
): Promise<Record<string, string | number | null>> {
  await check(url, w);
  const target = { url, body: JSON.stringify({ query: w.query }), headers: w.headers ?? {} };
  // Warm-up: plan caches, JIT, keep-alive connections.
  await runLoad(target, { connections: ctx.connections, seconds: ctx.quick ? 1 : 3 }, pid, ctx.postgres.postmasterPid);
  const before = await remoteCount(remote);
  const r = await runLoad(target, { connections: ctx.connections, seconds: ctx.seconds }, pid, ctx.postgres.postmasterPid);
  const remoteRequests = (await remoteCount(remote)) - before;
  // One more request alone, checked: a peer that caches remote answers between client requests shows it here.
  const alone0 = await remoteCount(remote);
  await check(url, w);
  const alone = (await remoteCount(remote)) - alone0;
  ctx.log(`${name}: ${r.rps.toFixed(0)} rps, ${(remoteRequests / Math.max(1, r.requests)).toFixed(2)} remote requests per request`);
  return {
    peer: name,
    rps: Math.round(r.rps),
    'p50 ms': r.p50,
    'p99 ms': r.p99,
    'remote req / req': Number((remoteRequests / Math.max(1, r.requests)).toFixed(2)),
    'remote req, one request alone': alone,
    'server CPU ms / req': r.serverCpuMsPerReq === null ? null : Number(r.serverCpuMsPerReq.toFixed(2)),
    errors: r.errors + r.non2xx,
  };
}

const TICKS = 'subscription($count: Int!) { ticks(count: $count) { n at } }';

/** Streams `count` events to each of `subs` graphql-ws clients (one socket each) at `url`; events per second over all of them. */
async function stream(url: string, subs: number, count: number): Promise<{ events: number; seconds: number }> {
  const wsUrl = url.replace(/^http/, 'ws');
  const clients = Array.from({ length: subs }, () => createClient({ url: wsUrl, webSocketImpl: WebSocket, retryAttempts: 0, lazyCloseTimeout: 0 }));
  let events = 0;
  const start = performance.now();
  try {
    await Promise.all(
      clients.map(
        (c) =>
          new Promise<void>((resolve, reject) => {
            c.subscribe(
              { query: TICKS, variables: { count } },
              {
                next: (r) => {
                  if (r.errors !== undefined) reject(new Error(JSON.stringify(r.errors)));
                  events += 1;
                },
                error: (e) => reject(e instanceof Error ? e : new Error(JSON.stringify(e))),
                complete: () => resolve(),
              },
            );
          }),
      ),
    );
  } finally {
    await Promise.all(clients.map((c) => c.dispose()));
  }
  if (events !== subs * count) throw new Error(`${url}: ${events} events, expected ${subs * count}`);
  return { events, seconds: (performance.now() - start) / 1000 };
}

/** One row of the subscription table: events/s through `url` and the CPU of the processes `pids` name. */
async function measureEvents(
  ctx: CapabilityContext,
  name: string,
  url: string,
  pids: Record<string, number | undefined>,
): Promise<Record<string, string | number | null>> {
  const subs = 10;
  const count = ctx.quick ? 1000 : 20_000;
  await stream(url, 1, 100);
  const before = await Promise.all(Object.values(pids).map((p) => cpuMs(p)));
  const r = await stream(url, subs, count);
  const after = await Promise.all(Object.values(pids).map((p) => cpuMs(p)));
  const cpu = Object.keys(pids).map((k, i) => {
    const a = after[i];
    const b = before[i];
    return [k, a === null || a === undefined || b === null || b === undefined ? null : Number((((a - b) / r.events) * 1000).toFixed(1))] as const;
  });
  ctx.log(`${name}: ${(r.events / r.seconds).toFixed(0)} events/s`);
  return { path: name, subscriptions: subs, events: r.events, 'events/s': Math.round(r.events / r.seconds), ...Object.fromEntries(cpu) };
}

const CROSS_QUERY = '{ album(order_by: {id: asc}, limit: 100) { id title stats { plays } } }';

const CROSS: Workload = {
  query: CROSS_QUERY,
  check: (body) => {
    const albums = (body as { data?: { album: Array<{ stats: { plays: number } | null }> } }).data?.album ?? [];
    return albums.length === 100 && albums.every((a) => a.stats !== null);
  },
};

/** Like `measure`, counting the statements each database ran per client request instead of remote requests. */
async function measureSql(
  ctx: CapabilityContext,
  name: string,
  url: string,
  pid: number | undefined,
  proxies: { albums: PgProxy; stats: PgProxy },
): Promise<Record<string, string | number | null>> {
  await check(url, CROSS);
  const target = { url, body: JSON.stringify({ query: CROSS.query }), headers: {} };
  await runLoad(target, { connections: ctx.connections, seconds: ctx.quick ? 1 : 3 }, pid, ctx.postgres.postmasterPid);
  proxies.albums.reset();
  proxies.stats.reset();
  const r = await runLoad(target, { connections: ctx.connections, seconds: ctx.seconds }, pid, ctx.postgres.postmasterPid);
  const per = (p: PgProxy): number => Number((p.counts.executions / Math.max(1, r.requests)).toFixed(2));
  const albums = per(proxies.albums);
  const stats = per(proxies.stats);
  proxies.albums.reset();
  proxies.stats.reset();
  await check(url, CROSS);
  const alone = `${proxies.albums.counts.executions} + ${proxies.stats.counts.executions}`;
  ctx.log(`${name}: ${r.rps.toFixed(0)} rps, ${albums} + ${stats} statements per request`);
  return {
    peer: name,
    rps: Math.round(r.rps),
    'p50 ms': r.p50,
    'p99 ms': r.p99,
    'statements / req (albums db + stats db)': `${albums} + ${stats}`,
    'statements, one request alone': alone,
    'server CPU ms / req': r.serverCpuMsPerReq === null ? null : Number(r.serverCpuMsPerReq.toFixed(2)),
    errors: r.errors + r.non2xx,
  };
}

/** 100 albums of one database joined to their stats in another: Engine's `to_source` relationship against the client's join and a stitching gateway. */
async function crossSource(ctx: CapabilityContext): Promise<Array<Record<string, string | number | null>>> {
  const albumsDb = await ctx.postgres.createDatabase('xsrc_albums');
  const statsDb = await ctx.postgres.createDatabase('xsrc_stats');
  const metaDb = await ctx.postgres.createDatabase('xsrc_meta2');
  await ctx.postgres.sql(
    'xsrc_albums',
    `CREATE TABLE album (id int PRIMARY KEY, title text NOT NULL); INSERT INTO album SELECT i, 'album ' || i FROM generate_series(1, 100) i;`,
  );
  await ctx.postgres.sql(
    'xsrc_stats',
    `CREATE TABLE album_stats (album_id int PRIMARY KEY, plays int NOT NULL); INSERT INTO album_stats SELECT i, i * 7 FROM generate_series(1, 100) i;`,
  );
  const proxies = { albums: await startPgProxy(albumsDb), stats: await startPgProxy(statsDb) };
  const rows: Array<Record<string, string | number | null>> = [];
  // Metadata goes straight to its database: the proxies count the peers' statements only.
  const engine = await startEngine(proxies.albums.url, [], { ENGINE_GRAPHQL_METADATA_DATABASE_URL: albumsDb });
  const statsEngine = await startEngine(proxies.stats.url, [], { ENGINE_GRAPHQL_METADATA_DATABASE_URL: metaDb });
  try {
    await metadata(engine.url, 'pg_track_table', { table: 'album' });
    await metadata(statsEngine.url, 'pg_track_table', { table: 'album_stats' });
    const gql = `${engine.url}/v1/graphql`;
    const statsGql = `${statsEngine.url}/v1/graphql`;
    // The peers see one engine per database (two engines exposing album_stats would be merged by the stitcher).
    for (const [name, env] of [
      ['two queries joined by the client', { BENCH_MODE: 'client', BENCH_ALBUMS_URL: gql, BENCH_STATS_URL: statsGql }],
      ['graphql-tools stitching of two engines', { BENCH_MODE: 'stitch', BENCH_ALBUMS_URL: gql, BENCH_STATS_URL: statsGql }],
    ] as const) {
      const peer = await spawnPeer('test/bench/peers/cross-source-gateway.ts', env);
      try {
        rows.push(await measureSql(ctx, name, peer.url, peer.child.pid, proxies));
      } finally {
        await peer.stop();
      }
    }
    // Added after the peers ran: the gateway's `album.stats` extension would clash with Engine's field.
    await metadata(engine.url, 'pg_add_source', { name: 'stats', configuration: { connection_info: { database_url: proxies.stats.url } } });
    await metadata(engine.url, 'pg_track_table', { source: 'stats', table: 'album_stats' });
    await metadata(engine.url, 'pg_create_remote_relationship', {
      table: 'album',
      name: 'stats',
      definition: { to_source: { source: 'stats', table: 'album_stats', relationship_type: 'object', field_mapping: { id: 'album_id' } } },
    });
    rows.push(await measureSql(ctx, 'Engine cross-source relationship', gql, engine.child.pid, proxies));
  } finally {
    await engine.stop();
    await statsEngine.stop();
    await proxies.albums.close();
    await proxies.stats.close();
  }
  return rows;
}

const bench: CapabilityBench = async (ctx) => {
  const dbUrl = await ctx.postgres.createDatabase('remote_joins');
  await ctx.postgres.sql(
    'remote_joins',
    `CREATE TABLE artist (id int PRIMARY KEY, name text NOT NULL);
     CREATE TABLE album (id int PRIMARY KEY, title text NOT NULL, artist_id int REFERENCES artist(id));
     INSERT INTO artist SELECT i, 'artist ' || i FROM generate_series(1, 20) i;
     INSERT INTO album SELECT i, 'album ' || i, 1 + (i % 20) FROM generate_series(1, 100) i;`,
  );
  const remote = await spawnPeer('test/bench/peers/artist-bios-server.ts', {});
  // Remote schema permissions on (admin is served as with them off): the role row measures a join through a role's view.
  const engine = await startEngine(dbUrl, [], { ENGINE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS: 'true' });
  const rows: Array<Record<string, string | number | null>> = [];
  const reverse: Array<Record<string, string | number | null>> = [];
  const events: Array<Record<string, string | number | null>> = [];
  try {
    await metadata(engine.url, 'pg_track_table', { table: 'artist' });
    await metadata(engine.url, 'pg_track_table', { table: 'album' });
    const gateway = await spawnPeer('test/bench/peers/stitching-gateway.ts', { BENCH_ENGINE_URL: `${engine.url}/v1/graphql`, BENCH_REMOTE_URL: remote.url });
    try {
      rows.push(await measure(ctx, 'graphql-tools stitching gateway', gateway.url, gateway.child.pid, remote));
    } finally {
      await gateway.stop();
    }
    await metadata(engine.url, 'add_remote_schema', { name: 'artists', definition: { url: remote.url } });
    await metadata(engine.url, 'pg_create_remote_relationship', {
      table: 'album',
      name: 'artist_info',
      hasura_fields: ['artist_id'],
      remote_schema: 'artists',
      remote_field: { artistById: { arguments: { id: '$artist_id' } } },
    });
    rows.push(await measure(ctx, 'Engine remote relationship', `${engine.url}/v1/graphql`, engine.child.pid, remote));
    await metadata(engine.url, 'pg_create_select_permission', {
      table: 'album',
      role: 'user',
      permission: { columns: ['id', 'title', 'artist_id'], filter: {} },
    });
    await metadata(engine.url, 'add_remote_schema_permissions', {
      remote_schema: 'artists',
      role: 'user',
      definition: { schema: 'type Artist { id: Int! name: String! bio: String! } type Query { artistById(id: Int!): Artist }' },
    });
    const asRole = { ...ALBUMS, headers: { 'X-Engine-Role': 'user' } };
    rows.push(
      await measure(ctx, "Engine remote relationship, a role's view (remote schema permissions)", `${engine.url}/v1/graphql`, engine.child.pid, remote, asRole),
    );
    await metadata(engine.url, 'create_remote_schema_remote_relationship', {
      remote_schema: 'artists',
      type_name: 'Artist',
      name: 'albums',
      definition: { to_source: { source: 'default', table: 'album', relationship_type: 'array', field_mapping: { id: 'artist_id' } } },
    });
    reverse.push(await measure(ctx, 'Engine remote type → table', `${engine.url}/v1/graphql`, engine.child.pid, remote, ARTISTS));
    const ticker = await spawnPeer('test/bench/peers/ticker-server.ts', {});
    try {
      await metadata(engine.url, 'add_remote_schema', { name: 'ticker', definition: { url: ticker.url } });
      const pids = { 'remote CPU ms / 1000 events': ticker.child.pid, 'engine CPU ms / 1000 events': engine.child.pid };
      events.push(await measureEvents(ctx, 'directly to the remote', ticker.url, pids));
      events.push(await measureEvents(ctx, 'through Engine', `${engine.url}/v1/graphql`, pids));
    } finally {
      await ticker.stop();
    }
  } finally {
    await engine.stop();
    await remote.stop();
  }
  const cross = await crossSource(ctx);
  return {
    tables: [
      { title: '100 albums joined to a remote field (20 distinct artists)', rows },
      { title: '20 remote artists joined to their 100 albums (remote type → table, one statement)', rows: reverse },
      { title: "a remote subscription: 10 graphql-ws clients, each streaming the remote's events to the end", rows: events },
      { title: '100 albums joined to their stats in another database (cross-source to_source relationship)', rows: cross },
    ],
    notes: [
      `query: ${QUERY}`,
      `remote → table query: ${REVERSE_QUERY}`,
      `cross-source query: ${CROSS_QUERY}; the server CPU of a client or gateway row is that process's only (the engines behind it are not counted)`,
      'cross-source rows: both databases behind in-process statement-counting proxies for every peer; "statements / req" counts Executes and simple Queries per client request during the measured run',
      'the remote server and the gateway are their own processes; "remote req / req" counts the remote server\'s non-introspection requests during the measured run',
      'the gateway reaches the albums through Engine itself (one extra HTTP hop per request), as a stitching gateway in front of Engine would',
      `remote subscription: ${TICKS}; the remote sends its events as fast as its socket takes them; through Engine each client subscription is one upstream graphql-ws subscription`,
      'Engine runs with ENGINE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS=true; the role row is the same query as role `user`, whose view of the remote and select permission show every field',
    ],
  };
};

export default bench;
