/**
 * A reverse proxy on loopback that serves an upstream under a path prefix
 * (`/prefix/x` → upstream `/x`), as an ingress would: for testing that a web
 * page makes only relative requests.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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
