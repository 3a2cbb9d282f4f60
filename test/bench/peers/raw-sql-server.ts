/**
 * The "raw SQL" peer: the limit Engine is measured against. A bare
 * node:http server and a bare `pg` pool run Engine's own generated
 * statements (taken from `/v1/graphql/explain` with their prepared
 * arguments) and answer `{"data":<json text>}`, so all three peers are
 * measured over HTTP with the same load generator and the same bytes.
 *
 * Protocol: `POST /statements` with `{key: {text, values}}` registers
 * statements; `POST /run/<key>` runs one (request body ignored). Statements
 * are named prepared statements (parsed once per connection), the best a
 * bare client can do.
 *
 * Note [Raw peer's requests]
 * The load generator sends this peer each cell's session headers
 * (`x-engine-role`, `x-engine-user-id` for the customer), as it sends
 * Engine and PostGraphile: a hand-written server answering a role's
 * statement has to be told the role and user as much as Engine does, and
 * node:http's parsing of those headers is per-request work all peers share.
 * The peer uses no header (its statements carry their arguments); its body
 * stays `{}`, as a bare server needs no query text. Before (to 2026-11-29)
 * it got no headers, so the customer cells charged Engine alone for parsing
 * them.
 *
 * Environment: BENCH_DATABASE_URL, BENCH_PORT, BENCH_POOL_MAX. Prints
 * `READY <url>` when it listens.
 */
import { createServer, type IncomingMessage } from 'node:http';
import pg from 'pg';

const databaseUrl = process.env['BENCH_DATABASE_URL'] ?? '';
const port = Number(process.env['BENCH_PORT'] ?? '0');
const poolMax = Number(process.env['BENCH_POOL_MAX'] ?? '10');

/** One registered statement. */
interface Statement {
  readonly name: string;
  readonly text: string;
  readonly values: unknown[];
}

const pool = new pg.Pool({ connectionString: databaseUrl, max: poolMax });
pool.on('error', () => {});
const textTypes: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value };
const statements = new Map<string, Statement>();

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += (chunk as Buffer).toString();
  return text;
}

async function run(s: Statement): Promise<string> {
  const res = await pool.query({ name: s.name, text: s.text, values: s.values, rowMode: 'array', types: textTypes });
  const row = res.rows[0] as unknown[] | undefined;
  return `{"data":${row === undefined || row[0] === null ? 'null' : String(row[0])}}`;
}

const server = createServer((req, res) => {
  const url = req.url ?? '';
  const done = (status: number, body: string): void => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  if (req.method === 'POST' && url === '/statements') {
    readBody(req).then(
      (text) => {
        const body = JSON.parse(text) as Record<string, { text: string; values: unknown[] }>;
        for (const [key, s] of Object.entries(body)) statements.set(key, { name: `bench_${statements.size}`, text: s.text, values: s.values });
        done(200, '{"ok":true}');
      },
      (e: unknown) => done(400, JSON.stringify({ error: String(e) })),
    );
    return;
  }
  if (req.method === 'POST' && url.startsWith('/run/')) {
    const s = statements.get(decodeURIComponent(url.slice(5)));
    req.resume();
    if (s === undefined) return done(404, '{"error":"unknown statement"}');
    run(s).then(
      (body) => done(200, body),
      (e: unknown) => done(500, JSON.stringify({ error: String(e) })),
    );
    return;
  }
  req.resume();
  done(404, '{"error":"not found"}');
});

server.listen(port, '127.0.0.1', () => {
  const addr = server.address();
  const p = typeof addr === 'object' && addr !== null ? addr.port : port;
  process.stdout.write(`READY http://127.0.0.1:${p}\n`);
});

process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
