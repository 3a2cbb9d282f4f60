/**
 * The remote GraphQL server of the remote-subscriptions row of the
 * remote-joins bench cell (test/bench/capabilities/remote-joins.ts): HTTP
 * POST for introspection and graphql-ws (`graphql-transport-ws`, graphql-ws's
 * server over ws) on one URL, `subscription { ticks(count: Int!) { n at } }`
 * sending `count` events as fast as the socket takes them, then completing.
 *
 * Environment: BENCH_PORT. Prints `READY <url>` when it listens.
 */
import { createServer } from 'node:http';
import { buildSchema, graphql } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';

const schema = buildSchema(`
type Tick { n: Int! at: String! }
type Query { ok: Boolean }
type Subscription { ticks(count: Int!): Tick! }
`);
const AT = new Date(0).toISOString();

async function* ticks({ count }: { count: number }): AsyncGenerator<{ ticks: { n: number; at: string } }> {
  for (let n = 0; n < count; n++) yield { ticks: { n, at: AT } };
}

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    void (async () => {
      const { query, variables } = JSON.parse(body) as { query: string; variables?: Record<string, unknown> };
      const result = await graphql({ schema, source: query, rootValue: { ok: true }, variableValues: variables ?? null });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    })();
  });
});
useServer({ schema, roots: { query: { ok: true }, subscription: { ticks } } }, new WebSocketServer({ server, path: '/graphql' }));
server.listen(Number(process.env['BENCH_PORT'] ?? '0'), '127.0.0.1', () => {
  const a = server.address();
  if (a !== null && typeof a === 'object') process.stdout.write(`READY http://127.0.0.1:${a.port}/graphql\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
