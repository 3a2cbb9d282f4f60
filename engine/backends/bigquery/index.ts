/**
 * The BigQuery backend: wiring only (Note [Backend seam] in ../registry.ts).
 * BigQuery sources are read-only (v2): no mutations, transactions, event
 * triggers, live queries, streams, Relay or distinct_on; of the optional
 * members of the seam only `runSqlAtOnce` is present.
 */
import type { Backend, SourceConnection } from '../backend.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { bigqueryConfiguration, BigQuerySettings } from './configuration.ts';
import { compileExplain, compileMutation, compileQuery, compileReadField } from './compile.ts';
import { BigQueryConnection } from './connection.ts';
import { classifyBigQueryError } from './errors.ts';
import { bigqueryIntrospector } from './introspect.ts';
import { bigqueryNaming } from './naming.ts';
import { runBigQuerySql } from './run-sql.ts';
import { BIGQUERY_TYPES, bigqueryScalar } from './scalars.ts';

function own(conn: SourceConnection): BigQueryConnection {
  if (conn instanceof BigQueryConnection) return conn;
  throw new EngineError(ErrorCode.Unexpected, `a ${conn.kind} connection was given to the bigquery backend`);
}

/** The `bigquery` source kind. */
export const bigqueryBackend: Backend = {
  kind: 'bigquery',
  operationPrefix: 'bigquery_',
  // v2 compat: computed fields (table-valued functions by argument mapping), no tracked functions
  // (v2's BigQuery buildFunctionInfo refuses them: Note [BigQuery routines]).
  operationFamilies: ['sources', 'tables', 'relationships', 'permissions', 'computed-fields'],
  computedFieldInputs: 'argument-mapping',
  capabilities: {
    mutations: false,
    returning: false,
    upsert: null,
    distinctOn: false,
    aggregates: true,
    streaming: false,
    relay: false,
    nestedInserts: false,
  },
  configuration: bigqueryConfiguration,
  naming: bigqueryNaming,
  connect: (resolved) => {
    if (!(resolved instanceof BigQuerySettings))
      throw new EngineError(ErrorCode.Unexpected, `a ${resolved.kind} configuration was given to the bigquery backend`);
    return new BigQueryConnection(resolved);
  },
  introspector: (conn) => bigqueryIntrospector(own(conn)),
  scalar: bigqueryScalar,
  typeText: (c) => (c.elementType === null ? c.dbType : `ARRAY<${c.elementType}>`),
  types: BIGQUERY_TYPES,
  // v2 compat: BigQuery's `asc` is nulls first and `desc` nulls last, and its comparison types are
  // `<Scalar>_BigQuery_comparison_exp`. v2 has no text operators on BigQuery; the engine offers the
  // pattern operators translate/bool-exp.ts has (not `_similar`/`_nsimilar`).
  nullsDefaults: { asc: 'first', desc: 'last' },
  comparisons: { text: ['_like', '_nlike', '_ilike', '_nilike', '_regex', '_nregex', '_iregex', '_niregex'], typeInfix: '_BigQuery' },
  compile: { query: compileQuery, readField: compileReadField, mutation: compileMutation, explain: compileExplain },
  toEngineError: classifyBigQueryError,
  runSqlAtOnce: async (conn, sql, opts) => await runBigQuerySql(own(conn), sql, opts),
};
