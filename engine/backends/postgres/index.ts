/**
 * The PostgreSQL backend: wiring only. Each member delegates to the file of
 * this folder that does the work. See Note [Backend seam] in ../registry.ts.
 */
import type pg from 'pg';
import type { Backend, Introspector, SourceConnection, SqlTransaction } from '../backend.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { schemaNaming } from '../naming.ts';
import { postgresConfiguration, PostgresSettings } from './configuration.ts';
import { compileMutation } from './compile-mutation.ts';
import { compileExplain, compileQuery, compileReadField } from './compile.ts';
import { PostgresConnection, type PgQueryable } from './connection.ts';
import { classifyPostgresError } from './errors.ts';
import { databaseState, ddlStamp } from './ddl-stamp.ts';
import { fetchEnumTableRows, INTROSPECTION_FORMAT, introspectPostgres } from './introspect.ts';
import { checkDeferredConstraints, runSqlReadOnlyIn, runSqlText } from './run-sql.ts';
import { POSTGRES_TYPES, postgresScalar } from './scalars.ts';
import { postgresTypeText } from './type-text.ts';
import { postgresLiveQueries } from './live-query.ts';
import { postgresEventLog } from './event-log.ts';
import { installCapture, removeCapture } from './event-trigger-ddl.ts';
import { metadataTransactionOn } from './metadata-db/database.ts';
import { pgDump } from './pg-dump.ts';

/** The client of each transaction this backend opened (event-trigger DDL runs on it). */
const clientOf = new WeakMap<SqlTransaction, pg.ClientBase>();

function introspectorOn(q: PgQueryable): Introspector {
  return {
    introspect: () => introspectPostgres(q),
    ddlStamp: () => ddlStamp(q),
    stored: { format: INTROSPECTION_FORMAT, current: () => databaseState(q) },
    enumRows: (queries) => fetchEnumTableRows(q, queries),
  };
}

function own(conn: SourceConnection): PostgresConnection {
  if (conn instanceof PostgresConnection) return conn;
  throw new EngineError(ErrorCode.Unexpected, `a ${conn.kind} connection was given to the postgres backend`);
}

/** The `postgres` source kind. */
export const postgresBackend: Backend = {
  kind: 'postgres',
  operationPrefix: 'pg_',
  operationFamilies: ['sources', 'tables', 'relationships', 'permissions', 'functions', 'computed-fields', 'event-triggers'],
  capabilities: {
    mutations: true,
    returning: true,
    upsert: 'on_conflict',
    distinctOn: true,
    aggregates: true,
    streaming: true,
    relay: true,
    nestedInserts: true,
  },
  configuration: postgresConfiguration,
  naming: schemaNaming('public'),
  connect: (resolved) => {
    if (!(resolved instanceof PostgresSettings))
      throw new EngineError(ErrorCode.Unexpected, `a ${resolved.kind} configuration was given to the postgres backend`);
    return new PostgresConnection(resolved.url, resolved.pool, resolved.tls);
  },
  introspector: (conn) => introspectorOn(own(conn).queryable),
  scalar: postgresScalar,
  typeText: postgresTypeText,
  types: POSTGRES_TYPES,
  compile: { query: compileQuery, readField: compileReadField, mutation: compileMutation, explain: compileExplain },
  toEngineError: classifyPostgresError,
  runSql: (conn, sql, readOnly, inside) =>
    own(conn).withTransaction(async (client) => inside(await runSqlText(client, sql), introspectorOn(client)), readOnly ? 'BEGIN READ ONLY' : 'BEGIN'),
  openSqlTransaction: async (conn) => {
    const open = await own(conn).openTransaction();
    const client = open.client;
    const tx: SqlTransaction = {
      runSql: async (sql, readOnly) => (readOnly ? await runSqlReadOnlyIn(client, sql) : await runSqlText(client, sql)),
      introspector: introspectorOn(client),
      prepareCommit: async () => await checkDeferredConstraints(client),
      commit: open.commit,
      rollback: open.rollback,
      metadataTransaction: metadataTransactionOn(client),
    };
    clientOf.set(tx, client);
    return tx;
  },
  eventTriggers: {
    async applyCapture(tx, change) {
      const client = clientOf.get(tx);
      if (client === undefined) throw new EngineError(ErrorCode.Unexpected, 'event trigger DDL needs a transaction of the postgres backend');
      for (const name of change.remove) await removeCapture(client, name);
      for (const spec of change.install) await installCapture(client, spec);
    },
    eventLog: (conn) => {
      const c = own(conn);
      return postgresEventLog(c.queryable as pg.Pool, c.clientConfig);
    },
  },
  liveQueries: postgresLiveQueries,
  dump: (conn, opts, clean, env) => pgDump(own(conn).url, opts, clean, env, own(conn).tls),
};
