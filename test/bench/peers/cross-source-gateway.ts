/**
 * The peers of the remote-joins bench cell's cross-source row: what users do
 * instead of a `to_source` relationship to join albums of one database to
 * their stats in another.
 *
 * - `BENCH_MODE=client`: two queries joined by the client (here an HTTP
 *   service doing what the client would): the albums, then the stats of
 *   their ids (`_in`), matched in JavaScript.
 * - `BENCH_MODE=stitch`: a graphql-tools stitching gateway over two
 *   engines, one per database, with `album.stats` added by the gateway and
 *   resolved by `batchDelegateToSchema` (@graphql-tools/batch-delegate: the
 *   keys of one request in one `album_stats(where: {album_id: {_in: …}})`
 *   delegation, graphql-tools' answer to N+1).
 *
 * Environment: BENCH_MODE, BENCH_ALBUMS_URL and BENCH_STATS_URL (…/v1/graphql),
 * BENCH_PORT. Prints `READY <url>` when it listens.
 */
import { createServer } from 'node:http';
import { execute, Kind, parse, validate, type FieldNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { batchDelegateToSchema } from '@graphql-tools/batch-delegate';
import { buildHTTPExecutor } from '@graphql-tools/executor-http';
import { stitchSchemas } from '@graphql-tools/stitch';
import { schemaFromExecutor } from '@graphql-tools/wrap';
import { Agent, request } from 'undici';

const albumsUrl = process.env['BENCH_ALBUMS_URL'] ?? '';
const statsUrl = process.env['BENCH_STATS_URL'] ?? '';

const ALBUMS = '{ album(order_by: {id: asc}, limit: 100) { id title } }';
const STATS = 'query ($ids: [Int!]!) { album_stats(where: {album_id: {_in: $ids}}) { album_id plays } }';

const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });

async function post(url: string, query: string, variables?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
    dispatcher: agent,
  });
  const body = (await res.body.json()) as { data?: Record<string, unknown>; errors?: unknown };
  if (body.data === undefined) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

type Album = { id: number; title: string };
type Stats = { album_id: number; plays: number };

/** The client's way: two requests, joined by id. */
async function clientJoin(): Promise<unknown> {
  const albums = (await post(albumsUrl, ALBUMS))['album'] as Album[];
  const stats = (await post(statsUrl, STATS, { ids: albums.map((a) => a.id) }))['album_stats'] as Stats[];
  const byId = new Map(stats.map((s) => [s.album_id, { plays: s.plays }]));
  return { data: { album: albums.map((a) => ({ ...a, stats: byId.get(a.id) ?? null })) } };
}

const KEY_FIELD = (parse('{ album_id }', { noLocation: true }).definitions[0] as OperationDefinitionNode).selectionSet.selections[0] as FieldNode;
const keyed = new WeakMap<readonly FieldNode[], FieldNode[]>();

/** `nodes` with `album_id` added to their selections (the same array for the same nodes). */
function withKey(nodes: readonly FieldNode[]): FieldNode[] {
  let out = keyed.get(nodes);
  if (out === undefined) {
    out = nodes.map((n) => ({ ...n, selectionSet: { kind: Kind.SELECTION_SET, selections: [...(n.selectionSet?.selections ?? []), KEY_FIELD] } }));
    keyed.set(nodes, out);
  }
  return out;
}

async function stitchedGateway(): Promise<GraphQLSchema> {
  const albumsExecutor = buildHTTPExecutor({ endpoint: albumsUrl });
  const statsExecutor = buildHTTPExecutor({ endpoint: statsUrl });
  const albumsSchema = { schema: await schemaFromExecutor(albumsExecutor), executor: albumsExecutor };
  const statsSchema = { schema: await schemaFromExecutor(statsExecutor), executor: statsExecutor };
  return stitchSchemas({
    subschemas: [albumsSchema, statsSchema],
    typeDefs: 'extend type album { stats: album_stats }',
    resolvers: {
      album: {
        stats: {
          selectionSet: '{ id }',
          resolve: (album: { id: number }, _args: unknown, context: Record<string, unknown>, info: Parameters<typeof batchDelegateToSchema>[0]['info']) =>
            batchDelegateToSchema({
              schema: statsSchema,
              operation: 'query' as never,
              fieldName: 'album_stats',
              key: album.id,
              argsFromKeys: (ids: readonly number[]) => ({ where: { album_id: { _in: ids } } }),
              valuesFromResults: (results: Stats[], ids: readonly number[]) => ids.map((id) => results.find((r) => r.album_id === id) ?? null),
              context,
              // The client's selection plus the key to match results by; memoized, as batches are keyed by the field nodes.
              info: { ...info, fieldNodes: withKey(info.fieldNodes) },
            }),
        },
      },
    },
  });
}

const mode = process.env['BENCH_MODE'] ?? 'client';
const gateway = mode === 'stitch' ? await stitchedGateway() : null;

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    void (async () => {
      let result: unknown;
      if (gateway === null) {
        result = await clientJoin();
      } else {
        const { query, variables } = JSON.parse(body) as { query: string; variables?: Record<string, unknown> };
        const document = parse(query);
        const errors = validate(gateway, document);
        result = errors.length > 0 ? { errors } : await execute({ schema: gateway, document, variableValues: variables ?? null, contextValue: {} });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    })().catch((e: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: String(e) }] }));
    });
  });
});
server.listen(Number(process.env['BENCH_PORT'] ?? '0'), '127.0.0.1', () => {
  const a = server.address();
  if (a !== null && typeof a === 'object') process.stdout.write(`READY http://127.0.0.1:${a.port}/graphql\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
