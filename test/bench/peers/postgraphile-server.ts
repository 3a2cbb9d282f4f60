/**
 * PostGraphile v5 as a benchmark peer: the amber preset plus the connection
 * filter plugin (for `like`) and @graphile/pg-aggregates (for `sum`, as a
 * PostGraphile user gets aggregates), served by grafserv's node adapter on
 * its own process. Prints `READY <url>` when it listens.
 *
 * Environment: BENCH_DATABASE_URL, BENCH_PORT, BENCH_POOL_MAX.
 *
 * Permissions are PostGraphile's own way: a request with header
 * `x-engine-role: customer` runs as the database role `bench_customer`
 * with `jwt.claims.user_id` set from `x-engine-user-id`, and row-level
 * security policies (made by the bench, see peers/postgraphile-rls.ts) do
 * the filtering. Other requests run as the connecting (owner) role.
 */
import { PgAggregatesPreset } from '@graphile/pg-aggregates';
import { createServer } from 'node:http';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { PostGraphileConnectionFilterPreset } from 'postgraphile-plugin-connection-filter';
import { CUSTOMER_DB_ROLE } from './postgraphile-rls.ts';

const databaseUrl = process.env['BENCH_DATABASE_URL'] ?? '';
const port = Number(process.env['BENCH_PORT'] ?? '0');
const poolMax = Number(process.env['BENCH_POOL_MAX'] ?? '10');

const preset: GraphileConfig.Preset = {
  extends: [PostGraphileAmberPreset, PostGraphileConnectionFilterPreset, PgAggregatesPreset],
  pgServices: [makePgService({ connectionString: databaseUrl, schemas: ['public'], poolConfig: { max: poolMax } })],
  // Plain lists besides connections, as PostGraphile's performance page asks for a like-for-like
  // comparison with list-returning servers; connections stay for totalCount.
  schema: { defaultBehavior: '+list' },
  // Filtering and ordering on unindexed columns too (albums.title has no index), as Engine allows.
  disablePlugins: ['PgIndexBehaviorsPlugin'],
  grafserv: { graphiql: false, watch: false },
  grafast: {
    explain: false,
    context(requestContext) {
      const headers = requestContext.node?.req.headers ?? {};
      if (headers['x-engine-role'] !== 'customer') return {};
      const userId = headers['x-engine-user-id'];
      return { pgSettings: { role: CUSTOMER_DB_ROLE, 'jwt.claims.user_id': typeof userId === 'string' ? userId : '' } };
    },
  },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = createServer();
server.on('error', (e) => {
  process.stderr.write(`${String(e)}\n`);
  process.exit(1);
});
serv.addTo(server).then(
  () => {
    server.listen(port, '127.0.0.1', () => {
      const addr = server.address();
      const p = typeof addr === 'object' && addr !== null ? addr.port : port;
      process.stdout.write(`READY http://127.0.0.1:${p}/graphql\n`);
    });
  },
  (e: unknown) => {
    process.stderr.write(`${String(e)}\n`);
    process.exit(1);
  },
);

process.on('SIGTERM', () => {
  server.close();
  void Promise.resolve(pgl.release()).then(() => process.exit(0));
});
