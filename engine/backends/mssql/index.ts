/**
 * The MSSQL backend: wiring only (Note [Backend seam] in ../registry.ts).
 */
import type { Backend, BoundStatement, Introspector, RunSqlResult, SourceConnection, SqlTransaction } from '../backend.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { schemaNaming } from '../naming.ts';
import { compileMutation } from './compile-mutation.ts';
import { compileExplain, compileQuery, compileReadField } from './compile.ts';
import { MssqlSettings, mssqlConfiguration } from './configuration.ts';
import { MssqlConnection } from './connection.ts';
import { classifyMssqlError } from './errors.ts';
import { mssqlLiveQueries } from './live-query.ts';
import { enumRowsOf, enumRowsSql, INTROSPECTION_SQL, introspectionOf } from './introspect.ts';
import { runSqlBatch } from './run-sql.ts';
import { MSSQL_TYPES, mssqlScalar } from './scalars.ts';

const READ_ONLY_SAVEPOINT = 'engine_read_only';

/** Introspection through `query`: on the pool, or on the connection of an open transaction. */
function introspectorOn(query: (stmt: BoundStatement) => Promise<string | null>): Introspector {
  return {
    introspect: async () => introspectionOf(await query({ text: INTROSPECTION_SQL, values: [] })),
    enumRows: (queries) =>
      Promise.all(
        queries.map(async (q) => {
          try {
            return enumRowsOf(await query({ text: enumRowsSql(q), values: [] }));
          } catch (e) {
            return e instanceof Error ? e : new Error(String(e));
          }
        }),
      ),
  };
}

function own(conn: SourceConnection): MssqlConnection {
  if (conn instanceof MssqlConnection) return conn;
  throw new EngineError(ErrorCode.Unexpected, `a ${conn.kind} connection was given to the mssql backend`);
}

/** The `mssql` source kind. */
export const mssqlBackend: Backend = {
  kind: 'mssql',
  operationPrefix: 'mssql_',
  operationFamilies: ['sources', 'tables', 'relationships', 'permissions'],
  capabilities: {
    mutations: true,
    returning: true,
    upsert: 'if_matched',
    distinctOn: false,
    aggregates: true,
    streaming: false,
    relay: false,
    nestedInserts: false,
  },
  configuration: mssqlConfiguration,
  naming: schemaNaming('dbo'),
  connect: (resolved) => {
    if (!(resolved instanceof MssqlSettings)) throw new EngineError(ErrorCode.Unexpected, `a ${resolved.kind} configuration was given to the mssql backend`);
    return new MssqlConnection(resolved);
  },
  introspector: (conn) => {
    const c = own(conn);
    return introspectorOn((stmt) => c.queryJsonText(stmt));
  },
  scalar: mssqlScalar,
  types: MSSQL_TYPES,
  // v2 compat: SQL Server's own order (NULL is the smallest value), v2's msOrderByOperators.
  nullsDefaults: { asc: 'first', desc: 'last' },
  // v2 compat: msComparisonExps; its spatial `_st_*` operators are not offered yet.
  comparisons: { text: ['_like', '_nlike'], typeInfix: '_MSSQL' },
  compile: { query: compileQuery, readField: compileReadField, mutation: compileMutation, explain: compileExplain },
  toEngineError: classifyMssqlError,
  // `mssql_run_sql`: the SQL, and the introspection after it, in one transaction (run-sql.ts).
  runSql: async (conn, sql, readOnly, inside) => {
    const tx = await own(conn).openTransaction();
    try {
      const out = await inside(await tx.run((c) => runSqlBatch(c, sql)), introspectorOn(tx.query));
      // SQL Server has no read-only transaction: a read_only run is rolled back whatever it did.
      await (readOnly ? tx.rollback() : tx.commit());
      return out;
    } catch (e) {
      await tx.rollback();
      throw e;
    }
  },
  openSqlTransaction: async (conn) => {
    const tx = await own(conn).openTransaction();
    const sqlTx: SqlTransaction = {
      runSql: async (sql, readOnly) => {
        if (!readOnly) return await tx.run((c) => runSqlBatch(c, sql));
        // Read-only inside the held transaction: undone by going back to a savepoint.
        await tx.save(READ_ONLY_SAVEPOINT);
        let result: RunSqlResult;
        try {
          result = await tx.run((c) => runSqlBatch(c, sql));
        } catch (e) {
          await tx.rollbackTo(READ_ONLY_SAVEPOINT).catch(() => undefined);
          throw e;
        }
        await tx.rollbackTo(READ_ONLY_SAVEPOINT);
        return result;
      },
      introspector: introspectorOn(tx.query),
      // No deferred constraints: nothing for COMMIT to check that the statements did not.
      prepareCommit: async () => await Promise.resolve(),
      commit: tx.commit,
      rollback: tx.rollback,
    };
    return sqlTx;
  },
  // Polled, multiplexed (Note [MSSQL multiplexed live queries]); no change feed.
  liveQueries: mssqlLiveQueries,
};
