/**
 * A real HTTP CONNECT proxy on loopback, for the Kubernetes client's proxy support: it records
 * each CONNECT (target and Proxy-Authorization) and tunnels bytes. `hosts` maps names only the
 * proxy can resolve (as a corporate proxy's DNS), so a request that bypasses it fails.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

/** A running CONNECT proxy. */
export interface ConnectProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** One entry per CONNECT: `host:port`, then the Proxy-Authorization header when sent. */
  readonly connects: string[];
  close(): Promise<void>;
}

/** Starts a CONNECT-only proxy (other requests get 405). */
export async function startConnectProxy(hosts: Readonly<Record<string, string>> = {}): Promise<ConnectProxy> {
  const connects: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_req, res) => res.writeHead(405).end('CONNECT only'));
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    connects.push(`${req.url ?? ''} ${req.headers['proxy-authorization'] ?? ''}`.trim());
    const [host = '', port = ''] = (req.url ?? '').split(/:(?=\d+$)/);
    const upstream = net.connect(Number(port), hosts[host] ?? host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(client).add(upstream);
    for (const s of [client, upstream]) s.once('close', () => sockets.delete(s));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connects,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
