/**
 * A real GraphQL server on loopback (graphql-js over node:http) for the
 * remote-schema tests: its schema and resolvers may be swapped between
 * requests (a server whose schema changes between reloads), it may be made
 * slow or broken, and it records every request it got (headers and body),
 * so tests can count the remote requests a query made.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, graphql, type GraphQLSchema } from 'graphql';

/** How the server answers. */
export type ServerMode = 'ok' | 'status-500' | 'garbage' | 'hang';

/** A recorded request. */
export interface RecordedRequest {
  readonly headers: http.IncomingHttpHeaders;
  readonly body: { query?: string; variables?: Record<string, unknown>; operationName?: string };
}

/** A running GraphQL test server. */
export interface GraphqlTestServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Requests other than introspection. */
  queries(): RecordedRequest[];
  mode: ServerMode;
  /** Milliseconds to wait before answering. */
  delayMs: number;
  /** Replaces the schema (SDL) and root value. */
  setSchema(sdl: string, root: Record<string, unknown>): void;
  close(): Promise<void>;
}

/**
 * Starts a GraphQL server for `sdl`, resolving through `root` (graphql-js's rootValue; functions get
 * (args, context, info)), on `port` when given (a server stopped and started again at one URL).
 */
export async function startGraphqlServer(sdl: string, root: Record<string, unknown>, port = 0): Promise<GraphqlTestServer> {
  let schema: GraphQLSchema = buildSchema(sdl);
  let rootValue = root;
  const requests: RecordedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const state = { mode: 'ok' as ServerMode, delayMs: 0 };
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      void (async () => {
        let body: RecordedRequest['body'] = {};
        try {
          body = JSON.parse(text) as RecordedRequest['body'];
        } catch {
          body = {};
        }
        requests.push({ headers: req.headers, body });
        if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
        if (state.mode === 'hang') {
          hanging.add(res);
          return;
        }
        if (state.mode === 'status-500') {
          res.writeHead(500, { 'content-type': 'text/plain' }).end('internal server error');
          return;
        }
        if (state.mode === 'garbage') {
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"data": [not json');
          return;
        }
        const result = await graphql({
          schema,
          source: body.query ?? '',
          rootValue,
          variableValues: body.variables ?? null,
          operationName: body.operationName ?? null,
          contextValue: { headers: req.headers },
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/graphql`,
    requests,
    queries: () => requests.filter((r) => !(r.body.query ?? '').includes('__schema')),
    get mode() {
      return state.mode;
    },
    set mode(m) {
      state.mode = m;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(ms) {
      state.delayMs = ms;
    },
    setSchema(nextSdl, nextRoot) {
      schema = buildSchema(nextSdl);
      rootValue = nextRoot;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of hanging) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
