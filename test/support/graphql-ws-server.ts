/**
 * A real GraphQL server on loopback speaking HTTP POST (introspection,
 * queries) and the graphql-ws protocol (`graphql-transport-ws`, graphql-ws's
 * own server over ws) on one URL, for the remote subscription tests: events
 * are published by the test, every upgrade's headers and connection params
 * are recorded, open sockets are counted (leaks show), and sockets can be cut.
 */
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { buildSchema, execute, graphql, parse, subscribe, validate, type GraphQLError, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';

/** graphql-js as Node loads it (graphql-ws's instance): errors graphql-ws sends must be its GraphQLError. */
const NodeGraphQLError = (createRequire(import.meta.url)('graphql') as { GraphQLError: typeof GraphQLError }).GraphQLError;

/** One graphql-ws connection as the server saw it. */
export interface RecordedConnection {
  readonly headers: http.IncomingHttpHeaders;
  readonly params: Record<string, unknown> | undefined;
}

/** A running server. */
export interface GraphqlWsTestServer {
  readonly url: string;
  /** Sockets open now. */
  openSockets(): number;
  readonly connections: RecordedConnection[];
  /** Subscribe messages received: their query and variables. */
  readonly subscribes: Array<{ query: string; variables: Record<string, unknown> | undefined }>;
  /** Subscriptions running now (their iterators not yet returned). */
  activeSubscriptions(): number;
  /** Sends `event` (the root value of one result: `{field: value}`) to every subscriber of `topic`. */
  publish(topic: string, event: Record<string, unknown>): void;
  /** Ends every subscription of `topic` (the server completes them). */
  end(topic: string): void;
  /** Replaces the schema the server validates and runs with (a remote that changed since Engine introspected it). */
  setSchema(sdl: string): void;
  /** Stops reading every socket (a remote that hangs without closing: no pong, no event). */
  freeze(): void;
  /** Cuts every socket without a close frame. */
  dropAll(): void;
  close(): Promise<void>;
}

/** An async iterator fed by `publish`. */
class Channel implements AsyncIterableIterator<unknown> {
  readonly #queue: unknown[] = [];
  #wake: ((r: IteratorResult<unknown>) => void) | null = null;
  done = false;
  readonly #onDone: () => void;
  constructor(onDone: () => void) {
    this.#onDone = onDone;
  }
  push(v: unknown): void {
    if (this.done) return;
    if (this.#wake !== null) {
      const w = this.#wake;
      this.#wake = null;
      w({ value: v, done: false });
    } else this.#queue.push(v);
  }
  next(): Promise<IteratorResult<unknown>> {
    if (this.#queue.length > 0) return Promise.resolve({ value: this.#queue.shift(), done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.#wake = resolve));
  }
  return(): Promise<IteratorResult<unknown>> {
    if (!this.done) {
      this.done = true;
      this.#onDone();
    }
    this.#wake?.({ value: undefined, done: true });
    this.#wake = null;
    return Promise.resolve({ value: undefined, done: true });
  }
  [Symbol.asyncIterator](): this {
    return this;
  }
}

/**
 * Starts the server for `sdl`; `root` resolves queries (graphql-js rootValue),
 * and each subscription field `f` of `topics` is fed by `publish(topics[f](args))`.
 */
export async function startGraphqlWsServer(
  sdl: string,
  root: Record<string, unknown>,
  topics: Record<string, (args: Record<string, unknown>) => string>,
): Promise<GraphqlWsTestServer> {
  let schema: GraphQLSchema = buildSchema(sdl);
  const channels = new Map<string, Set<Channel>>();
  const subscriptionRoot: Record<string, unknown> = {};
  for (const [field, topicOf] of Object.entries(topics)) {
    subscriptionRoot[field] = (args: Record<string, unknown>) => {
      const topic = topicOf(args);
      const set = channels.get(topic) ?? new Set<Channel>();
      channels.set(topic, set);
      const ch: Channel = new Channel(() => set.delete(ch));
      set.add(ch);
      return ch;
    };
  }
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      void (async () => {
        let body: { query?: string; variables?: Record<string, unknown> } = {};
        try {
          body = JSON.parse(text) as typeof body;
        } catch {
          body = {};
        }
        const result = await graphql({ schema, source: body.query ?? '', rootValue: root, variableValues: body.variables ?? null });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      })();
    });
  });
  const wss = new WebSocketServer({ server, path: '/graphql' });
  const sockets = new Set<WebSocket>();
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
  });
  const connections: RecordedConnection[] = [];
  const subscribes: GraphqlWsTestServer['subscribes'] = [];
  const ws = useServer(
    {
      schema,
      onConnect: (ctx) => {
        connections.push({ headers: ctx.extra.request.headers, params: ctx.connectionParams });
        return true;
      },
      // graphql-ws loads graphql as Node does, this module as vite does: two realms of graphql-js. Parsing,
      // validating and running here keeps graphql-ws from meeting this module's schema objects.
      execute: (args) => execute(args),
      subscribe: (args) => subscribe(args),
      onSubscribe: (_ctx, _id, payload) => {
        subscribes.push({ query: payload.query, variables: payload.variables ?? undefined });
        const document = parse(payload.query);
        const errors = validate(schema, document);
        if (errors.length > 0) return errors.map((e) => new NodeGraphQLError(e.message));
        const isSubscription = document.definitions.some((d) => d.kind === 'OperationDefinition' && d.operation === 'subscription');
        return {
          schema,
          document,
          variableValues: payload.variables ?? null,
          operationName: payload.operationName ?? null,
          rootValue: isSubscription ? subscriptionRoot : root,
        };
      },
    },
    wss,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    openSockets: () => sockets.size,
    connections,
    subscribes,
    activeSubscriptions: () => [...channels.values()].reduce((n, s) => n + s.size, 0),
    publish: (topic, event) => {
      for (const ch of channels.get(topic) ?? []) ch.push(event);
    },
    end: (topic) => {
      for (const ch of [...(channels.get(topic) ?? [])]) void ch.return();
    },
    setSchema: (next) => {
      schema = buildSchema(next);
    },
    freeze: () => {
      for (const s of sockets) (s as unknown as { _socket: { pause(): void } })._socket.pause();
    },
    dropAll: () => {
      for (const s of sockets) s.terminate();
    },
    close: async () => {
      for (const s of sockets) s.terminate();
      await ws.dispose();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
