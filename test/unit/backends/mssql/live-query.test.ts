/**
 * Multiplexed live queries of MSSQL sources without a SQL Server (the gated
 * live suite runs one: test/integration/backends/mssql-live.test.ts): the
 * batch statement made of a read statement the engine compiles for the MSSQL
 * fixture (Note [MSSQL multiplexed live queries]), read by the T-SQL parser;
 * limits and offsets kept as parameters of the batch; placeholders rewritten
 * only outside quotes; and subscription_root offered on an MSSQL source.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mssqlConfiguration } from '../../../../engine/backends/mssql/configuration.ts';
import { MssqlConnection } from '../../../../engine/backends/mssql/connection.ts';
import { mssqlLiveQueries, multiplexedText, rewritePlaceholders, rowCountParameters } from '../../../../engine/backends/mssql/live-query.ts';
import type { CompiledSql } from '../../../../engine/backends/sql/fragment.ts';
import type { Catalog } from '../../../../engine/catalog/types.ts';
import { SchemaCache } from '../../../../engine/graphql/schema/schema-cache.ts';
import { catalogFromRecording, documentForKind, readMetadata, readRecording } from '../../../support/recorded-catalog.ts';
import { planRequest } from '../../../support/request-pipeline.ts';
import { parseTsql, sqlglotPython } from '../../../support/sqlglot.ts';

const fixture = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../golden/fixture');
const catalog: Catalog = catalogFromRecording(
  documentForKind(readMetadata(path.join(fixture, 'metadata.json')), 'mssql'),
  readRecording(path.join(fixture, 'introspection.mssql.json')),
);

/** The read statement the engine compiles for `query` on the MSSQL fixture. */
function readSql(query: string, role = 'admin', variables: Record<string, unknown> = {}): CompiledSql {
  const step = planRequest(new SchemaCache(), catalog, { query, role, variables }).steps.find((s) => s.kind === 'read');
  if (step?.kind !== 'read') throw new Error('no read step');
  return step.sql;
}

/** The placeholders of `text` outside quotes. */
function placeholders(text: string): number[] {
  const seen: number[] = [];
  rewritePlaceholders(text, (n) => {
    seen.push(n);
    return '';
  });
  return seen;
}

// A role's filter on a session variable, a list, a text pattern, the permission's limit and the request's.
const query = `query ($ids: [Int!], $n: Int, $skip: Int) {
  albums(where: {id: {_in: $ids}, title: {_like: "%a%"}}, limit: $n, offset: $skip, order_by: {id: asc}) { id title }
  artists_aggregate { aggregate { count } }
}`;

describe('MSSQL multiplexed live queries', () => {
  it('rewrites placeholders outside [identifiers] and N\u2019strings\u2019 only', () => {
    expect(rewritePlaceholders("SELECT [@p1], N'@p1 '' @p2', @p1, @p12, [a]]@p3]", (n) => `<${n}>`)).toBe("SELECT [@p1], N'@p1 '' @p2', <1>, <12>, [a]]@p3]");
  });

  it('keeps the parameters of OFFSET and FETCH as parameters of the batch, and reads every other from the OPENJSON row', async () => {
    const stmt = readSql(query, 'user', { ids: [1, 2], n: 5, skip: 1 });
    const shared = [...rowCountParameters(stmt.text)].sort((a, b) => a - b);
    // The request's offset and limit and the permission's limit.
    expect(shared).toHaveLength(3);
    const perRow = stmt.params.map((_, k) => k + 1).filter((n) => !shared.includes(n));
    expect(perRow.length).toBeGreaterThan(0);
    const text = multiplexedText(
      stmt,
      stmt.params.map(() => 'NVARCHAR(MAX)'),
      shared,
    );
    expect(text).toMatch(
      /^SELECT \[_subs\]\.\[__i\] AS \[__i\], \(SELECT \(SELECT .* AS \[data\]\) AS \[data\] FROM OPENJSON\(@p1\) WITH \(\[__i\] INT N'\$\."i"'/,
    );
    // The batch's own parameters: the JSON of the rows, then the shared ones in order.
    expect([...new Set(placeholders(text))].sort((a, b) => a - b)).toEqual([1, ...shared.map((_, i) => i + 2)]);
    for (const n of perRow) expect(text).toContain(`[_subs].[__p${n}]`);
    for (const n of perRow) expect(text).toContain(`[__p${n}] NVARCHAR(MAX) N'$."p${n}"'`);
    for (const m of text.matchAll(/ OFFSET (.*?) ROWS(?: FETCH NEXT (.*?) ROWS ONLY)?/g)) expect(m[0]).not.toContain('[_subs]');
    const py = await sqlglotPython();
    if ('skip' in py) {
      console.log(`[mssql] parser check skipped: ${py.skip}`);
      return;
    }
    expect(await parseTsql(py.python, [stmt.text, text])).toEqual([null, null]);
  }, 600_000);

  it('is made by the backend without a round trip: its text for the statement, polled (no tables to watch)', async () => {
    const settings = mssqlConfiguration.resolve(
      { connection_info: { connection_string: 'Server=127.0.0.1,1;Uid=u;Pwd=p' } },
      { env: () => undefined, statementTimeoutMs: 0 },
    );
    if ('reason' in settings) throw new Error(settings.reason);
    const conn = new MssqlConnection(settings as never);
    try {
      const stmt = readSql('{ genres(order_by: {id: asc}) { id name } }');
      const m = await mssqlLiveQueries.multiplex(conn, stmt);
      expect(m.tables).toBeNull();
      expect(m.text).toBe(
        multiplexedText(
          stmt,
          stmt.params.map(() => 'NVARCHAR(MAX)'),
          [...rowCountParameters(stmt.text)],
        ),
      );
      expect(mssqlLiveQueries.watchTables).toBeUndefined();
      expect(mssqlLiveQueries.listen).toBeUndefined();
    } finally {
      await conn.close();
    }
  });

  it('offers subscription_root on an MSSQL source, without _stream fields', () => {
    const plan = planRequest(new SchemaCache(), catalog, { query: '{ __type(name: "subscription_root") { fields { name } } }' });
    const step = plan.steps.find((s) => s.kind === 'static');
    if (step?.kind !== 'static') throw new Error('no static answer');
    const names = (JSON.parse(step.json) as { __type: { fields: { name: string }[] } }).__type.fields.map((f) => f.name);
    expect(names).toEqual(expect.arrayContaining(['albums', 'albums_aggregate', 'albums_by_pk']));
    expect(names.filter((n) => n.endsWith('_stream'))).toEqual([]);
  });
});
