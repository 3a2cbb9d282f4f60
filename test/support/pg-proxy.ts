/**
 * A TCP proxy in front of PostgreSQL that counts what a client sends, to
 * measure the engine's statements and round trips from outside it. It reads
 * the frontend protocol: a statement is a Parse ('P', extended protocol) or
 * a Query ('Q', simple protocol); a round trip starts whenever the client
 * sends while it has no request awaiting an answer (no Sync or Query without
 * its ReadyForQuery), i.e. after it waited for the server.
 */
import net from 'node:net';

/** Counters since the proxy started (or since {@link PgProxy.reset}). */
export interface ProxyCounts {
  statements: number;
  /** Statements run: Executes ('E', a prepared statement run again is not parsed again) and simple Queries. */
  executions: number;
  roundTrips: number;
  /** The SQL text of each Parse/Query, in order. */
  texts: string[];
}

/** A running proxy. */
export interface PgProxy {
  /** The database URL to hand the client (same credentials, the proxy's port). */
  readonly url: string;
  readonly counts: ProxyCounts;
  reset(): void;
  close(): Promise<void>;
}

/** Splits a byte stream into typed messages; the first message of a connection has no type byte. */
class MessageReader {
  #buf = Buffer.alloc(0);
  #started: boolean;

  constructor(untypedFirst: boolean) {
    this.#started = !untypedFirst;
  }

  push(chunk: Buffer, onMessage: (type: string, body: Buffer) => void): void {
    this.#buf = Buffer.concat([this.#buf, chunk]);
    for (;;) {
      if (!this.#started) {
        if (this.#buf.length < 4) return;
        const len = this.#buf.readInt32BE(0);
        if (this.#buf.length < len) return;
        this.#buf = this.#buf.subarray(len);
        this.#started = true;
        continue;
      }
      if (this.#buf.length < 5) return;
      const len = this.#buf.readInt32BE(1);
      if (this.#buf.length < len + 1) return;
      onMessage(String.fromCharCode(this.#buf[0] ?? 0), this.#buf.subarray(5, len + 1));
      this.#buf = this.#buf.subarray(len + 1);
    }
  }
}

/** Starts a proxy to the server of `url`. */
export async function startPgProxy(url: string): Promise<PgProxy> {
  const target = new URL(url);
  const counts: ProxyCounts = { statements: 0, executions: 0, roundTrips: 0, texts: [] };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    let awaiting = 0;
    const fromClient = new MessageReader(true);
    const fromServer = new MessageReader(false);
    client.on('data', (chunk) => {
      if (awaiting === 0) counts.roundTrips++;
      fromClient.push(chunk, (type, body) => {
        if (type === 'P') {
          counts.statements++;
          const nameEnd = body.indexOf(0);
          counts.texts.push(body.subarray(nameEnd + 1, body.indexOf(0, nameEnd + 1)).toString());
        }
        if (type === 'Q') {
          counts.statements++;
          counts.texts.push(body.subarray(0, body.length - 1).toString());
        }
        if (type === 'E' || type === 'Q') counts.executions++;
        if (type === 'S' || type === 'Q') awaiting++;
      });
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      fromServer.push(chunk, (type) => {
        if (type === 'Z' && awaiting > 0) awaiting--;
      });
      client.write(chunk);
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return {
    url: proxied.toString(),
    counts,
    reset() {
      counts.statements = 0;
      counts.executions = 0;
      counts.roundTrips = 0;
      counts.texts = [];
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
