/**
 * A request statement's cell as a byte string (PostgresConnection.
 * queryJsonByteString; Note [Answer bytes] in engine/backends/postgres/answer-bytes.ts):
 * the UTF-8 bytes of the text path's answer, for cells larger than a
 * socket read and with characters of every UTF-8 length, on connections that
 * pipeline text and bytes statements together, under a role's time limit, after
 * a stale prepared statement, and after a failed statement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresConnection, type PostgresPoolSettings } from '../../../engine/backends/postgres/connection.ts';
import type { BoundStatement } from '../../../engine/backends/backend.ts';
import { RequestContext } from '../../../engine/request-context.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
const conns: PostgresConnection[] = [];

beforeAll(async () => {
  db = await createTestDatabase('answerbytes');
  // Names with 1- to 4-byte UTF-8 characters; 3,000 rows make a JSON cell of several hundred KB.
  await db.sql(`CREATE TABLE word (id int PRIMARY KEY, name text NOT NULL);
    INSERT INTO word SELECT i, 'w' || i || ' Beyoncé Дмитрий 東京 🎸 "quoted" \\ back' FROM generate_series(1, 3000) AS i;`);
});
afterAll(async () => {
  await Promise.all(conns.map((c) => c.close()));
  await db?.drop();
});

function connect(settings: PostgresPoolSettings = {}): PostgresConnection {
  const c = new PostgresConnection(db.url, settings);
  conns.push(c);
  return c;
}

const stmt = (text: string, values: unknown[] = []): BoundStatement => ({ text, values });

const WORDS = `SELECT json_build_object('words', coalesce(json_agg(json_build_object('id', id, 'name', name) ORDER BY id), '[]'))::text FROM word WHERE id <= $1`;

/** The bytes a byte-string answer stands for (null for none). */
async function bytesOf(c: PostgresConnection, s: BoundStatement, opts?: Parameters<PostgresConnection['queryJsonByteString']>[1]): Promise<Buffer | null> {
  const cell = await c.queryJsonByteString(s, opts);
  return cell === null ? null : Buffer.from(cell, 'latin1');
}

describe('request statements answered as bytes', () => {
  it('give the UTF-8 bytes of the text answer, byte for byte, for cells larger than a socket read', async () => {
    const c = connect({ maxConnections: 1 });
    for (const n of [1, 10, 3000]) {
      const text = await c.queryJsonText(stmt(WORDS, [n]));
      const bytes = await bytesOf(c, stmt(WORDS, [n]));
      expect(bytes?.equals(Buffer.from(text ?? '', 'utf8'))).toBe(true);
      expect((JSON.parse(String(bytes)) as { words: unknown[] }).words).toHaveLength(n);
    }
    expect((await bytesOf(c, stmt(WORDS, [3000])))?.length).toBeGreaterThan(200_000);
  });

  it('answer null for no row and for a NULL cell, and keep only the first row', async () => {
    const c = connect({ maxConnections: 1 });
    expect(await bytesOf(c, stmt('SELECT name FROM word WHERE id = $1', [-1]))).toBeNull();
    expect(await bytesOf(c, stmt('SELECT NULL::text'))).toBeNull();
    expect(String(await bytesOf(c, stmt('SELECT to_json(id)::text FROM word WHERE id <= 3 ORDER BY id')))).toBe('1');
  });

  it('share a pipelining connection with text statements, each answered its own cell', async () => {
    const c = connect({ maxConnections: 1 });
    const sizes = Array.from({ length: 40 }, (_, i) => 1 + ((i * 397) % 3000));
    const answers = await Promise.all(
      sizes.map(async (n, i) => (i % 2 === 0 ? String(await bytesOf(c, stmt(WORDS, [n]))) : ((await c.queryJsonText(stmt(WORDS, [n]))) ?? ''))),
    );
    answers.forEach((a, i) => expect((JSON.parse(a) as { words: unknown[] }).words, `request ${i}`).toHaveLength(sizes[i] ?? -1));
  });

  it('answer under a role time limit (a transaction) and with a cancellation, the same bytes', async () => {
    const c = connect({ maxConnections: 2 });
    const plain = await bytesOf(c, stmt(WORDS, [50]));
    expect((await bytesOf(c, stmt(WORDS, [50]), { timeoutMs: 5000 }))?.equals(plain ?? Buffer.alloc(0))).toBe(true);
    expect((await bytesOf(c, stmt(WORDS, [50]), { cancel: new RequestContext('127.0.0.1') }))?.equals(plain ?? Buffer.alloc(0))).toBe(true);
    expect(await bytesOf(c, stmt('SELECT NULL::text'), { timeoutMs: 5000 })).toBeNull();
  });

  it('run again unnamed after a column type change left the prepared statement stale', async () => {
    await db.sql(`CREATE TABLE retyped_b (id int PRIMARY KEY, code int NOT NULL); INSERT INTO retyped_b VALUES (1, 7)`);
    const c = connect({ maxConnections: 1 });
    const text = `SELECT json_agg(id)::text FROM retyped_b WHERE code = $1`;
    expect(String(await bytesOf(c, stmt(text, ['7'])))).toBe('[1]');
    await db.sql(`ALTER TABLE retyped_b ALTER COLUMN code TYPE text`);
    expect(String(await bytesOf(c, stmt(text, ['7'])))).toBe('[1]');
  });

  it('fail a statement the server refuses and answer the next one on the same connection', async () => {
    const c = connect({ maxConnections: 1 });
    const pid = await c.queryJsonText(stmt('SELECT pg_backend_pid()::text'));
    await expect(bytesOf(c, stmt('SELECT (1 / $1::int)::text', [0]))).rejects.toMatchObject({ code: '22012' });
    expect(String(await bytesOf(c, stmt('SELECT pg_backend_pid()::text')))).toBe(pid);
  });
});
