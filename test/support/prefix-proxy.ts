/**
 * A reverse proxy on loopback that serves an upstream under a path prefix
 * (`/prefix/x` → upstream `/x`), as an ingress would: for testing that a web
 * page makes only relative requests.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

export interface PrefixProxy {
  readonly url: string;
  /** Paths requested that did not start with the prefix (a page escaping it). */
  readonly escaped: string[];
  close(): Promise<void>;
}

export async function startPrefixProxy(upstream: string, prefix: string): Promise<PrefixProxy> {
  const target = new URL(upstream);
  const escaped: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (!url.startsWith(`${prefix}/`)) {
      escaped.push(url);
      res.writeHead(404).end('outside the prefix');
      return;
    }
    const upstreamReq = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: url.slice(prefix.length), headers: { ...req.headers, host: target.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstreamReq.on('error', () => res.writeHead(502).end());
    req.pipe(upstreamReq);
  });
  // WebSocket upgrades pass through as raw bytes once the request line is rewritten.
  server.on('upgrade', (req, socket, head) => {
    const url = req.url ?? '/';
    if (!url.startsWith(`${prefix}/`)) {
      escaped.push(url);
      socket.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${url.slice(prefix.length)} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i]!;
        lines.push(`${name}: ${name.toLowerCase() === 'host' ? target.host : req.rawHeaders[i + 1]}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    escaped,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
