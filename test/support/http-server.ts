/**
 * A real HTTP server on loopback, for the services the engine calls (auth webhooks, JWK sets):
 * tests answer with a swappable handler and read back what the engine sent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real HTTP server on loopback for webhooks and JWK sets; `handler` may be swapped. */
export interface TestServer {
  readonly url: string;
  handler: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;
  readonly requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

/** Starts a loopback HTTP server recording every request. */
export async function startTestServer(handler: TestServer['handler']): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const state = { handler };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      state.handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    get handler() {
      return state.handler;
    },
    set handler(h) {
      state.handler = h;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
