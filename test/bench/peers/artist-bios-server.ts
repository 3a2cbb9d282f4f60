/**
 * The remote GraphQL server of the remote-joins bench cell
 * (test/bench/capabilities/remote-joins.ts): graphql-js over node:http,
 * `artistById(id: Int!): Artist` and `artists: [Artist!]!` (ids 1 to 20)
 * answered from memory, counting the GraphQL
 * requests it serves (`GET /count`, introspection excluded) so the cell can
 * report remote requests per client request.
 *
 * Environment: BENCH_PORT. Prints `READY <url>` when it listens.
 */
import { createServer } from 'node:http';
import { buildSchema, graphql } from 'graphql';

const schema = buildSchema(`
type Artist { id: Int! name: String! bio: String! }
type Query { artistById(id: Int!): Artist artists: [Artist!]! }
`);
const artist = (id: number): { id: number; name: string; bio: string } => ({ id, name: `Artist ${id}`, bio: `The story of artist ${id}.` });
const root = { artistById: ({ id }: { id: number }) => artist(id), artists: () => Array.from({ length: 20 }, (_, i) => artist(i + 1)) };
let count = 0;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/count') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count }));
    return;
  }
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    void (async () => {
      const { query, variables, operationName } = JSON.parse(body) as { query: string; variables?: Record<string, unknown>; operationName?: string };
      if (!query.includes('__schema')) count += 1;
      const result = await graphql({ schema, source: query, rootValue: root, variableValues: variables ?? null, operationName: operationName ?? null });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    })();
  });
});
server.listen(Number(process.env['BENCH_PORT'] ?? '0'), '127.0.0.1', () => {
  const a = server.address();
  if (a !== null && typeof a === 'object') process.stdout.write(`READY http://127.0.0.1:${a.port}/graphql\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
