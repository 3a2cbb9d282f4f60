/**
 * The peer of the remote-joins bench cell: a graphql-tools stitching gateway
 * (@graphql-tools/stitch) over two subschemas, Engine's GraphQL endpoint
 * (the albums, without the remote relationship) and the remote artist
 * server, with `album.artist_info` added by the gateway and resolved by
 * delegating to `artistById` per album. The remote subschema has
 * graphql-tools' `batch: true`, so the delegations of one request are merged
 * into one remote request (aliased fields), what a user would configure to
 * avoid N+1.
 *
 * Environment: BENCH_ENGINE_URL (…/v1/graphql), BENCH_REMOTE_URL, BENCH_PORT.
 * Prints `READY <url>` when it listens.
 */
import { createServer } from 'node:http';
import { execute, parse, validate, type GraphQLSchema } from 'graphql';
import { buildHTTPExecutor } from '@graphql-tools/executor-http';
import { delegateToSchema } from '@graphql-tools/delegate';
import { stitchSchemas } from '@graphql-tools/stitch';
import { schemaFromExecutor } from '@graphql-tools/wrap';

const engineExecutor = buildHTTPExecutor({ endpoint: process.env['BENCH_ENGINE_URL'] ?? '' });
const remoteExecutor = buildHTTPExecutor({ endpoint: process.env['BENCH_REMOTE_URL'] ?? '' });

const engineSchema = await schemaFromExecutor(engineExecutor);
const remoteSchema = await schemaFromExecutor(remoteExecutor);
const remoteSubschema = { schema: remoteSchema, executor: remoteExecutor, batch: true };

const gateway: GraphQLSchema = stitchSchemas({
  subschemas: [{ schema: engineSchema, executor: engineExecutor }, remoteSubschema],
  typeDefs: 'extend type album { artist_info: Artist }',
  resolvers: {
    album: {
      artist_info: {
        selectionSet: '{ artist_id }',
        resolve: (
          album: { artist_id: number | null },
          _args: unknown,
          context: Record<string, unknown>,
          info: Parameters<typeof delegateToSchema>[0]['info'],
        ) =>
          album.artist_id === null
            ? null
            : delegateToSchema({ schema: remoteSubschema, operation: 'query' as never, fieldName: 'artistById', args: { id: album.artist_id }, context, info }),
      },
    },
  },
});

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    void (async () => {
      const { query, variables } = JSON.parse(body) as { query: string; variables?: Record<string, unknown> };
      const document = parse(query);
      const errors = validate(gateway, document);
      const result = errors.length > 0 ? { errors } : await execute({ schema: gateway, document, variableValues: variables ?? null, contextValue: {} });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    })();
  });
});
server.listen(Number(process.env['BENCH_PORT'] ?? '0'), '127.0.0.1', () => {
  const a = server.address();
  if (a !== null && typeof a === 'object') process.stdout.write(`READY http://127.0.0.1:${a.port}/graphql\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
