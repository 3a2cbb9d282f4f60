/**
 * The WebSocket upgrade of `/v1/graphql` (compat.md): sub-protocol
 * `graphql-transport-ws` or `graphql-ws`, the upgrade's Origin checked
 * against the CORS setting like any request's (and, when its credentials are
 * a cookie, refused from a cross-site Origin: Note [Cookie credentials] in
 * ../cookie-guard.ts), then one GraphqlSocket per
 * connection (connection.ts). Other upgrade paths are refused with 404.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { AppDeps } from '../deps.ts';
import type { CorsPolicy } from '../cors.ts';
import { isCrossSite } from '../cookie-guard.ts';
import { GraphqlSocket, MAX_PAYLOAD } from './connection.ts';
import { chooseProtocol, CloseCode, type Protocol } from './protocol.ts';

/** The sockets of one server, for closing them on shutdown. */
export interface WebSocketEndpoint {
  /** Open sockets. */
  readonly size: number;
  /** Closes every socket (1001) and stops taking upgrades. */
  close(): void;
}

function refuse(socket: Duplex, status: number, text: string): void {
  const body = JSON.stringify({ path: '$', error: text, code: status === 404 ? 'not-found' : status === 403 ? 'access-denied' : 'bad-request' });
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

function offeredProtocols(req: IncomingMessage): Set<string> {
  const h = req.headers['sec-websocket-protocol'];
  return new Set(
    (h ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  );
}

/** Serves GraphQL over WebSocket on `server`'s upgrades of /v1/graphql. */
export function attachWebSocket(server: Server, deps: AppDeps, cors: CorsPolicy): WebSocketEndpoint {
  const sockets = new Set<GraphqlSocket>();
  let closing = false;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_PAYLOAD,
    perMessageDeflate: false,
    handleProtocols: (offered) => chooseProtocol(offered) ?? false,
  });
  const timings = {
    keepAliveMs: deps.settings.websocketKeepalive * 1000,
    initTimeoutMs: deps.settings.websocketConnectionInitTimeout * 1000,
  };
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/v1/graphql' || deps.socket === undefined) return refuse(socket, 404, 'Not Found');
    if (closing) return refuse(socket, 503, 'Service Unavailable');
    const origin = req.headers.origin;
    if (origin !== undefined && !cors.allows(origin)) return refuse(socket, 403, 'Forbidden');
    // Cross-site WebSocket hijacking: the browser sends the user's cookies with any page's upgrade.
    if (deps.auth.usesCookieCredentials(req.headers) && isCrossSite(cors, req.headers)) return refuse(socket, 403, 'Forbidden');
    const protocol: Protocol | null = chooseProtocol(offeredProtocols(req));
    if (protocol === null) return refuse(socket, 400, 'Bad Request');
    wss.handleUpgrade(req, socket, head, (ws) => {
      const s = new GraphqlSocket(ws, req, protocol, deps, timings, () => {
        if (sockets.delete(s)) deps.metrics?.websocketClosed();
      });
      sockets.add(s);
      deps.metrics?.websocketOpened();
    });
  });
  return {
    get size() {
      return sockets.size;
    },
    close() {
      closing = true;
      for (const s of [...sockets]) s.close(CloseCode.GoingAway, 'server shutting down');
    },
  };
}
