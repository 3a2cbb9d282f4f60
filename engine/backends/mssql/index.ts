/**
 * The MSSQL backend: wiring only (Note [Backend seam] in ../registry.ts).
 */
import type { Backend, SourceConnection } from '../backend.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { schemaNaming } from '../naming.ts';
import { compileMutation } from './compile-mutation.ts';
import { compileExplain, compileQuery, compileReadField } from './compile.ts';
import { MssqlSettings, mssqlConfiguration } from './configuration.ts';
import { MssqlConnection } from './connection.ts';
import { classifyMssqlError } from './errors.ts';
import { enumRowsOf, enumRowsSql, INTROSPECTION_SQL, introspectionOf } from './introspect.ts';
import { MSSQL_TYPES, mssqlScalar } from './scalars.ts';

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
    onConflict: true,
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
    return {
      introspect: async () => introspectionOf(await c.queryJsonText({ text: INTROSPECTION_SQL, values: [] })),
      enumRows: (queries) =>
        Promise.all(
          queries.map(async (q) => {
            try {
              return enumRowsOf(await c.queryJsonText({ text: enumRowsSql(q), values: [] }));
            } catch (e) {
              return e instanceof Error ? e : new Error(String(e));
            }
          }),
        ),
    };
  },
  scalar: mssqlScalar,
  types: MSSQL_TYPES,
  // v2 compat: SQL Server's own order (NULL is the smallest value), v2's msOrderByOperators.
  nullsDefaults: { asc: 'first', desc: 'last' },
  // v2 compat: msComparisonExps; its spatial `_st_*` operators are not offered yet.
  comparisons: { text: ['_like', '_nlike'], typeInfix: '_MSSQL' },
  compile: { query: compileQuery, readField: compileReadField, mutation: compileMutation, explain: compileExplain },
  toEngineError: classifyMssqlError,
};
