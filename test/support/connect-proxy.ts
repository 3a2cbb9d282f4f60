/**
 * A real HTTP CONNECT proxy (and a minimal SOCKS5 one) on loopback, for the Kubernetes client's proxy support: it records
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

/** A minimal SOCKS5 proxy (no authentication, CONNECT only) recording `host:port` of each connection. */
export async function startSocks5Proxy(hosts: Readonly<Record<string, string>> = {}): Promise<ConnectProxy> {
  const connects: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    let greeted = false;
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      if (!greeted) {
        const methods = buf[1];
        if (methods === undefined || buf.length < 2 + methods) return;
        buf = buf.subarray(2 + methods);
        client.write(Buffer.from([5, 0]));
        greeted = true;
      }
      // VER CMD RSV ATYP ADDR PORT; ATYP 1 = IPv4, 3 = domain name.
      const atyp = buf[3];
      let host: string;
      let end: number;
      if (atyp === 1 && buf.length >= 10) [host, end] = [[...buf.subarray(4, 8)].join('.'), 8];
      else if (atyp === 3 && buf[4] !== undefined && buf.length >= 7 + buf[4]) [host, end] = [buf.subarray(5, 5 + buf[4]).toString(), 5 + buf[4]];
      else {
        if (atyp !== undefined && atyp !== 1 && atyp !== 3) client.end(Buffer.from([5, 8, 0, 1, 0, 0, 0, 0, 0, 0]));
        return;
      }
      const port = buf.readUInt16BE(end);
      const rest = buf.subarray(end + 2);
      client.off('data', onData);
      client.pause();
      connects.push(`${host}:${port}`);
      const upstream = net.connect(port, hosts[host] ?? host, () => {
        client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
        if (rest.length > 0) upstream.write(rest);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(upstream);
      upstream.once('close', () => sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `socks5://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connects,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
